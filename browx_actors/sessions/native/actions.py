"""The actions over a native screen: click, fill, press, scroll, navigate, go_back.

Shared by android-app and ios-app. Each action that names an element reads a fresh
hierarchy, resolves its target in it (:func:`~.target.locate_in`: refs anchored on the
test id, stale and ambiguous refusals) and dispatches at the point that read gave, in
the same call; nothing is cached or replayed. The answer names what was acted on and
where::

    {ok, action, target: {ref, role, name, testId, matchedBy} | null, point: {x, y},
     warnings}

No hierarchy is read after the input: a dump costs a few hundred milliseconds on a
device and every action already pays for one; ``snapshot`` shows what changed.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from ...devices.nodes import NativeNode, Rect
from ...errors import ToolError
from ...secret_book import mask_deep
from ...tools import Reply
from ...tools.actions import ClickArgs, FillArgs, PressArgs, ScrollArgs
from ...tools.contract import SessionArgs
from ...tools.navigation import NavigateArgs
from ...tools.targets import Element
from .platform import unsupported
from .refs import Hierarchy
from .target import Located, locate_in, on_screen, point_of, target_json

if TYPE_CHECKING:
    from .session import NativeSession

__all__ = ["click", "fill", "fill_located", "go_back", "literal_text", "locate", "navigate", "press", "scroll",
           "tap_located"]

#: What an unregistered or unsubstituted alias looks like in typed text.
_ALIAS = re.compile(r"<[A-Z][A-Z0-9_]{0,63}>")
#: How far in from a scroll area's edges a swipe starts and ends, as a share of its size.
SCROLL_MARGIN = 0.2
#: Most swipes ``scroll {to}`` makes before it says the end was not reached.
SCROLL_TO_SWIPES = 10


async def locate(session: NativeSession, target: Element) -> Located:
    """Read the screen freshly and resolve the call's target in that read."""
    hierarchy = await session.read()
    return locate_in(hierarchy, session.refs, target)


def _point_json(point: tuple[float, float]) -> dict[str, float]:
    return {"x": round(point[0], 2), "y": round(point[1], 2)}


def _check_enabled(located: Located, action: str) -> None:
    if not located.node.enabled:
        raise ToolError("action-failed", f"{action}: {located.ref} ({located.node.role} "
                        f"{located.hierarchy.name_of(located.node)!r}) is disabled, and a tap on it does nothing",
                        ref=located.ref, state="disabled")


async def click(session: NativeSession, args: ClickArgs) -> Reply:
    if args.button != "left":
        raise unsupported(session.engine, f"click with the {args.button} button",
                          "a touch screen has one kind of tap")
    if args.modifiers:
        raise unsupported(session.engine, "click with modifier keys", "a touch screen has no held modifier keys")
    if args.coords:
        located = None
        point = (float(args.coords["x"]), float(args.coords["y"]))
    else:
        located = await locate(session, args)
        _check_enabled(located, "click")
        point = point_of(located)
    count = args.click_count
    if count == 1:
        await session.input.tap(*point)
    elif count == 2:
        await session.input.double_tap(*point)
    else:
        raise unsupported(session.engine, f"click with clickCount {count}", "there is a tap and a double tap, "
                          "no triple tap")
    return Reply.of(action="click", target=None if located is None else target_json(located),
                    point=_point_json(point), warnings=[])


async def fill(session: NativeSession, args: FillArgs) -> Reply:
    located = await locate(session, args)
    return await fill_located(session, located, args.value, submit=args.submit)


async def fill_located(session: NativeSession, located: Located, value: str, *, submit: bool = False) -> Reply:
    """``fill`` on a node already located in a fresh read (``ui.perform_action``'s
    ``setValue`` comes here too)."""
    _check_enabled(located, "fill")
    node = located.node
    if node.role not in ("textbox", "searchbox", "combobox"):
        raise ToolError("action-failed", f"fill: {located.ref} is a {node.role} ({node.tag}), not a text field",
                        ref=located.ref)
    reply = Reply(warnings=[])
    value = literal_text(session, value, reply)
    point = point_of(located)
    await session.input.fill(*point, node, value)
    if submit:
        await session.input.press_key("Enter")
    reply.fields.update(action="fill", target=target_json(located), point=_point_json(point),
                        typed=len(value), submitted=bool(submit))
    return reply


def literal_text(session: NativeSession, value: str, reply: Reply) -> str:
    """What to type for ``value``: the dispatch put registered secrets in for their
    aliases; on a native engine they do not materialise, so the aliases go back and are
    typed as they were written, with a warning on ``reply``."""
    own = session.own_secrets()
    value = mask_deep(value, own) if own else value
    aliases = sorted(set(_ALIAS.findall(value)))
    if aliases:
        reply.warn(f"registered secrets do not materialise on {session.engine}: {', '.join(aliases)} "
                   "typed literally, as written")
    return value


async def tap_located(session: NativeSession, located: Located) -> Reply:
    """One tap on a node already located in a fresh read, answered as ``click`` answers
    (``ui.perform_action``'s ``tap``, ``toggle`` and ``focus`` come here)."""
    _check_enabled(located, "click")
    point = point_of(located)
    await session.input.tap(*point)
    return Reply.of(action="click", target=target_json(located), point=_point_json(point), warnings=[])


async def press(session: NativeSession, args: PressArgs) -> Reply:
    located = None
    if args.ref is not None or args.selector is not None:
        located = await locate(session, args)
        await session.input.tap(*point_of(located))
    sent = await session.input.press_key(args.key)
    return Reply.of(action="press", key=args.key, sent=sent,
                    target=None if located is None else target_json(located), warnings=[])


# -- scrolling --------------------------------------------------------------------------


def _scroll_area(hierarchy: Hierarchy, located: Located | None) -> tuple[Rect, NativeNode | None]:
    """Where to swipe: the target's on-screen rectangle, or the largest scrollable view on
    screen, or the middle of the screen."""
    screen = hierarchy.root.bounds
    if located is not None:
        node = located.node
        if node.bounds is None or node.bounds.empty:
            raise ToolError("not-visible", f"{located.ref} has no size on screen to scroll in", ref=located.ref)
        return on_screen(node.bounds, screen), node
    areas = [(on_screen(n.bounds, screen), n) for n in hierarchy
             if n.scrollable and n.visible and n.bounds is not None and not n.bounds.empty]
    if areas:
        return max(areas, key=lambda pair: pair[0].width * pair[0].height)
    if screen is None:
        raise ToolError("not-visible", "the screen reports no size, so there is nowhere to swipe")
    return screen, None


def _swipes_by(area: Rect, dx: float, dy: float) -> list[tuple[float, float, float, float]]:
    """Finger strokes that scroll the content by (dx, dy): the finger moves the other way,
    within the area's middle, split into strokes that fit it."""
    cx, cy = area.center
    reach_x = area.width * (1 - 2 * SCROLL_MARGIN)
    reach_y = area.height * (1 - 2 * SCROLL_MARGIN)
    strokes = []
    while abs(dx) > 0.5 or abs(dy) > 0.5:
        sx = max(-reach_x, min(reach_x, dx)) if reach_x > 0 else 0.0
        sy = max(-reach_y, min(reach_y, dy)) if reach_y > 0 else 0.0
        if sx == 0 and sy == 0:
            break
        strokes.append((cx + sx / 2, cy + sy / 2, cx - sx / 2, cy - sy / 2))
        dx, dy = dx - sx, dy - sy
    return strokes


def _fling_to(area: Rect, to: str) -> tuple[float, float, float, float]:
    """One fast stroke across the area towards ``to`` (content moves to show that end)."""
    left, right = area.x + area.width * SCROLL_MARGIN, area.x + area.width * (1 - SCROLL_MARGIN)
    top, bottom = area.y + area.height * SCROLL_MARGIN, area.y + area.height * (1 - SCROLL_MARGIN)
    cx, cy = area.center
    return {
        "bottom": (cx, bottom, cx, top), "top": (cx, top, cx, bottom),
        "right": (right, cy, left, cy), "left": (left, cy, right, cy),
    }[to]


def _fingerprint(hierarchy: Hierarchy, area: Rect) -> tuple[object, ...]:
    """What the area shows: the texts, names and rectangles of the nodes inside it."""
    return tuple((n.text, n.name, n.bounds) for n in hierarchy
                 if n.visible and n.bounds is not None and not on_screen(n.bounds, area).empty)


async def scroll(session: NativeSession, args: ScrollArgs) -> Reply:
    targeted = args.ref is not None or args.selector is not None
    to, dx, dy = args.to, float(args.delta_x), float(args.delta_y)
    if targeted and to is None and dx == 0 and dy == 0:
        raise unsupported(session.engine, "scroll into view", "scroll-into-view is not a native primitive: "
                          "scroll its list with deltaY or to, then snapshot to see what came into view")
    hierarchy = await session.read()
    located = locate_in(hierarchy, session.refs, args) if targeted else None
    area, container = _scroll_area(hierarchy, located)
    reply = Reply(warnings=[])
    strokes: list[dict[str, float]] = []
    if to is None:
        for x1, y1, x2, y2 in _swipes_by(area, dx, dy):
            ms = int(min(2000, max(300, 2 * max(abs(x2 - x1), abs(y2 - y1)))))
            await session.input.swipe(x1, y1, x2, y2, ms)
            strokes.append({"fromX": round(x1, 1), "fromY": round(y1, 1), "toX": round(x2, 1), "toY": round(y2, 1)})
        reached = None
    else:
        before = _fingerprint(hierarchy, area)
        reached = False
        for _ in range(SCROLL_TO_SWIPES):
            x1, y1, x2, y2 = _fling_to(area, to)
            await session.input.swipe(x1, y1, x2, y2, 150)
            strokes.append({"fromX": round(x1, 1), "fromY": round(y1, 1), "toX": round(x2, 1), "toY": round(y2, 1)})
            after = _fingerprint(await session.read(), area)
            if after == before:
                reached = True
                break
            before = after
        if not reached:
            reply.warn(f"the {to} was not reached after {SCROLL_TO_SWIPES} swipes; scroll again to go further")
    reply.fields.update(
        action="scroll",
        target=None if located is None else target_json(located),
        area={"x": area.x, "y": area.y, "width": area.width, "height": area.height},
        container=None if container is None or located is not None else
        {"role": container.role, "testId": container.test_id, "name": hierarchy.name_of(container)},
        swipes=strokes, **({"reachedEnd": reached} if to is not None else {}),
    )
    return reply


# -- navigation -------------------------------------------------------------------------


async def navigate(session: NativeSession, args: NavigateArgs) -> Reply:
    if "://" not in args.url:
        raise ToolError("bad-arg", f"{args.url!r} is not a deep link: a native screen has no address bar, pass a "
                        "full URL with the app's scheme (myapp://checkout/42)", field="url")
    said = await session.input.open_url(args.url)
    return Reply.of(action="navigate", url=args.url, **said, warnings=[])


async def go_back(session: NativeSession, args: SessionArgs) -> Reply:
    await session.input.back()
    return Reply.of(action="go_back", warnings=[])
