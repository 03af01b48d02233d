"""The mouse as primitives on firefox: mouse_down, mouse_move, mouse_up, mouse_wheel and drag.

As on chromium, an agent gets the mouse the way a hand has it: press here, move there,
release, turn the wheel, each call trusted input of its own. BiDi keeps each input
source's state between ``input.performActions`` calls of a context (where the pointer
is, which buttons are down), so ``mouse_down`` here and ``mouse_up`` in a later call
are one press; the tab's :class:`~..tabs.Tab` keeps the same facts for the result
(``pointer: {x, y, buttons}``) and for a call that names no point. A paced move is
one ``pointerMove`` with BiDi's own ``duration``: the browser interpolates it frame
by frame. ``drag`` is press, paced move, release: what sliders, canvas apps and
pointer-event sortables read. Firefox does not start an HTML5 drag and drop from
WebDriver input, so a drag whose source is ``draggable="true"`` is played as the
page's drag events instead (``dragstart`` on the source, ``dragenter`` / ``dragover``
/ ``drop`` where it lands, ``dragend``), with one ``DataTransfer`` carrying what the
page's ``dragstart`` put in it; those events are untrusted (``isTrusted`` false), and
the result says which way it went (``drag.mode``: ``mouse`` or ``html5``).

Where: ``coords`` (viewport CSS pixels), a ``ref`` / ``selector`` (its point, once ready
as a click's target would be), or nothing for where the pointer is.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from ....bidi import input as keys
from ....errors import ToolError
from ....jsonsafe import JsonObject
from ....tools import Reply
from ....tools.pointer import DragArgs, MouseButtonArgs, MouseMoveArgs, MouseWheelArgs
from ....tools.shapes import PointTarget
from ....tools.targets import Aim, Target
from ...chromium.input.brief import brief
from ..tabs import Tab
from .actions import element_at, perform_input, ready_point
from .settle import Mark, settle

if TYPE_CHECKING:
    from ..session import FirefoxSession

__all__ = ["drag", "mouse_down", "mouse_move", "mouse_up", "mouse_wheel"]

_BITS = {"left": 1, "right": 2, "middle": 4}

#: ``(agent, {from: [x, y], to: [x, y]})``: the page's own drag and drop, when the source is draggable.
_HTML5 = """(agent, a) => {
  const start = document.elementFromPoint(a.from[0], a.from[1]);
  const source = start && start.closest('[draggable="true"]');
  if (!source) return {mode: 'mouse'};
  const data = new DataTransfer();
  const fire = (el, type, [x, y]) => el.dispatchEvent(new DragEvent(type, {
    bubbles: true, cancelable: true, composed: true, dataTransfer: data, clientX: x, clientY: y}));
  if (!fire(source, 'dragstart', a.from)) return {mode: 'html5', dropped: false, why: 'the page cancelled dragstart'};
  const target = document.elementFromPoint(a.to[0], a.to[1]);
  let dropped = false;
  if (target) {
    fire(target, 'dragenter', a.to);
    if (!fire(target, 'dragover', a.to)) { fire(target, 'drop', a.to); dropped = true; }
  }
  fire(source, 'dragend', a.to);
  return dropped ? {mode: 'html5', dropped} : {mode: 'html5', dropped, why: 'nothing under the end takes the drop'};
}"""


def _pointer(tab: Tab) -> JsonObject:
    x, y = tab.pointer if tab.pointer is not None else (None, None)
    return {"x": x, "y": y, "buttons": sum(_BITS[b] for b in tab.buttons)}


async def _where(session: FirefoxSession, target: Aim, action: str, reply: Reply,
                 mark: bool = True) -> tuple[tuple[float, float], JsonObject | None]:
    if target.coords is not None:
        point = (float(target.coords["x"]), float(target.coords["y"]))
        return point, await element_at(session, point, mark=mark)
    if target.ref is not None or target.selector is not None:
        return await ready_point(session, action, target, reply, mark=mark)
    known = session.tab.pointer
    if known is None:
        raise ToolError("bad-arg", "this tab's pointer position is not known (no mouse input has placed it): give "
                        "coords, ref or selector", field="coords")
    return known, await element_at(session, known, mark=mark)


#: Builds a pointer tool's input from the tab and the point, updating the tab's pointer state.
Build = Callable[[Tab, tuple[float, float], Reply], list[JsonObject]]


async def _run(session: FirefoxSession, action: str, target: Aim, build: Build) -> Reply:
    started = time.perf_counter()
    reply = Reply(warnings=[])
    mark = Mark.now(session)
    point, described = await _where(session, target, action, reply)
    tab = session.tab
    sources = build(tab, point, reply)
    await perform_input(session, sources)
    fields = await settle(session, mark, described, started)
    reply.fields.update(brief(fields))
    reply["pointer"] = _pointer(tab)
    return reply


def _mouse(actions: list[JsonObject]) -> list[JsonObject]:
    return [{"type": "pointer", "id": "mouse", "parameters": {"pointerType": "mouse"}, "actions": actions}]


def _move(point: tuple[float, float], duration_ms: int = 0) -> JsonObject:
    move: JsonObject = {"type": "pointerMove", "x": round(point[0]), "y": round(point[1]), "origin": "viewport"}
    if duration_ms:
        move["duration"] = duration_ms
    return move


async def mouse_down(session: FirefoxSession, args: MouseButtonArgs) -> Reply:
    def build(tab: Tab, point: tuple[float, float], reply: Reply) -> list[JsonObject]:
        if args.button in tab.buttons:
            raise ToolError("bad-arg", f"the {args.button} button is already down on this tab; mouse_up releases it",
                            field="button")
        tab.pointer = point
        tab.buttons.add(args.button)
        return _mouse([_move(point), {"type": "pointerDown", "button": keys.BUTTONS[args.button]}])
    return await _run(session, "mouse_down", args, build)


async def mouse_up(session: FirefoxSession, args: MouseButtonArgs) -> Reply:
    def build(tab: Tab, point: tuple[float, float], reply: Reply) -> list[JsonObject]:
        if args.button not in tab.buttons:
            reply.warn(f"the {args.button} button was not down on this tab; released it anyway")
        tab.pointer = point
        tab.buttons.discard(args.button)
        return _mouse([_move(point), {"type": "pointerUp", "button": keys.BUTTONS[args.button]}])
    return await _run(session, "mouse_up", args, build)


async def mouse_move(session: FirefoxSession, args: MouseMoveArgs) -> Reply:
    def build(tab: Tab, point: tuple[float, float], reply: Reply) -> list[JsonObject]:
        tab.pointer = point
        reply["moves"] = args.steps or 1
        return _mouse([_move(point, args.duration_ms)])
    return await _run(session, "mouse_move", args, build)


async def mouse_wheel(session: FirefoxSession, args: MouseWheelArgs) -> Reply:
    def build(tab: Tab, point: tuple[float, float], reply: Reply) -> list[JsonObject]:
        tab.pointer = point
        return keys.wheel(point[0], point[1], args.delta_x, args.delta_y)
    return await _run(session, "mouse_wheel", args, build)


def _aim_of(end: PointTarget) -> Aim:
    if "x" in end and "y" in end:
        return Target(coords={"x": end["x"], "y": end["y"]})
    return Target(ref=end.get("ref"), selector=end.get("selector"))


async def drag(session: FirefoxSession, args: DragArgs) -> Reply:
    started = time.perf_counter()
    reply = Reply(warnings=[])
    mark = Mark.now(session)
    source, described = await _where(session, _aim_of(args.from_), "drag", reply)
    end, _ = await _where(session, _aim_of(args.to), "drag", reply, mark=False)
    tab = session.tab
    html5 = await session.in_sandbox(_HTML5, {"from": list(source), "to": list(end)})
    mode = html5 if isinstance(html5, dict) else {"mode": "mouse"}
    if mode.get("mode") == "mouse":
        await perform_input(session, _mouse([
            _move(source), {"type": "pointerDown", "button": 0},
            _move(((source[0] + end[0]) / 2, (source[1] + end[1]) / 2), args.duration_ms // 2),
            _move(end, args.duration_ms - args.duration_ms // 2), {"type": "pointerUp", "button": 0}]))
    elif not mode.get("dropped"):
        reply.warn(f"the drag did not drop: {mode.get('why')}")
    tab.pointer = end
    tab.buttons.discard("left")
    fields = await settle(session, mark, described, started)
    reply.fields.update(brief(fields))
    reply["drag"] = {"mode": mode.get("mode"), "from": {"x": source[0], "y": source[1]},
                     "to": {"x": end[0], "y": end[1]}, "durationMs": args.duration_ms}
    reply["pointer"] = _pointer(tab)
    return reply
