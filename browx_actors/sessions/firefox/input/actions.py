"""Action tools of the firefox engine: click, double_click, hover, fill, press, select, scroll.

One path for every action, as on chromium: the page agent's ``aim`` marks the page,
finds the target and checks it the way Playwright's actionability checks do (visible,
enabled, not animating, in view and on top at its point; editable for typing, which it
then focuses and selects). A ready target gets trusted input through
``input.performActions`` (:mod:`browx_actors.bidi.input`). A target not ready for a
reason known in one look (hidden, no area, covered, no pointer events) is refused after
the same short grace as chromium's (:mod:`...chromium.input.reach`), with its
``reason``; one that may still become ready (disabled, animating) is looked at again
until the action's timeout, which then says what it waited for. Then :func:`settle`
waits for what the input set off and the result says it in chromium's one shape
(:func:`...chromium.input.brief.brief`).
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

import trio

from ....bidi import input as keys
from ....bidi.protocol import BidiFailure
from ....errors import ToolError
from ....jsonsafe import JsonObject, JsonValue
from ....tools import Reply
from ....tools.actions import ClickArgs, FillArgs, HoverArgs, PressArgs, ScrollArgs, SelectArgs
from ....tools.pointer import DoubleClickArgs
from ....tools.targets import Element, Target, coords_of
from ...chromium.agent.calls import agent_call
from ...chromium.input.brief import brief
from ...chromium.input.paste import check_filled
from ...chromium.input.reach import LOOK_EVERY_S, known_now, refusal, within_grace
from ...chromium.input.target import check_found
from ..reading.handlers import css
from .settle import Mark, settle

if TYPE_CHECKING:
    from ..session import FirefoxSession

__all__ = ["ACTION_TIMEOUT_S", "aim_at", "choose", "click", "clicked", "double_click", "element_at", "fill", "hover",
           "perform_input", "press", "ready_point", "scroll", "select", "step", "text_into", "typed"]

#: How long an action waits for a target that may still become ready.
ACTION_TIMEOUT_S = 10.0

#: Builds the input from aim's answer.
Input = Callable[[JsonObject], "list[JsonObject]"]

_SELECT = """(agent, a) => {
  const el = a.ref ? agent.resolve(a.ref) : document.querySelector(a.selector);
  if (!el) return {missing: true};
  if (el.localName !== 'select') return {notSelect: el.localName};
  const chosen = [];
  const wanted = a.values;
  // Every wanted value must name an option, as on chromium: a partial choice is not what was asked.
  const known = (w) => Array.from(el.options).some(o => o.value === w || o.label === w || o.text.trim() === w);
  const missing = wanted.filter(w => !known(w));
  if (missing.length) return {none: Array.from(el.options, o => o.label).slice(0, 20), missing};
  for (const option of el.options) {
    const hit = wanted.includes(option.value) || wanted.includes(option.label) || wanted.includes(option.text.trim());
    if (hit && (el.multiple || chosen.length === 0)) { option.selected = true; chosen.push(option.value); }
    else if (el.multiple || hit) option.selected = false;
  }
  if (!chosen.length) return {none: Array.from(el.options, o => o.label).slice(0, 20)};
  if (!el.multiple) el.value = chosen[0];
  el.dispatchEvent(new Event('input', {bubbles: true}));
  el.dispatchEvent(new Event('change', {bubbles: true}));
  return {selected: chosen};
}"""

_SCROLL_TO = """(agent, a) => {
  const el = a.ref ? agent.resolve(a.ref) : a.selector ? document.querySelector(a.selector) : document.scrollingElement;
  if (!el) return null;
  const left = {left: 0, right: el.scrollWidth}[a.to], top = {top: 0, bottom: el.scrollHeight}[a.to];
  el.scrollTo({left: left === undefined ? el.scrollLeft : left, top: top === undefined ? el.scrollTop : top});
  return {x: el.scrollLeft, y: el.scrollTop};
}"""

_FOCUS = """(agent, a) => {
  const el = a.ref ? agent.resolve(a.ref) : document.querySelector(a.selector);
  if (!el) return false;
  el.focus();
  return true;
}"""


def _label(target: Element) -> str:
    return f"ref {target.ref}" if target.ref is not None else f"selector {target.selector!r}"


async def _aim(session: FirefoxSession, target: Element, mode: str | None, mark: bool) -> JsonObject:
    coords = coords_of(target)
    spec: JsonObject = {"ref": target.ref, "selector": target.selector, "mode": mode, "acting": True,
                        "point": [coords["x"], coords["y"]] if coords else None}
    if not mark:
        spec["mark"] = False
    found = await agent_call(session, "aim", spec)
    assert isinstance(found, dict)
    if found.get("notCss"):
        # The agent takes CSS; the browser's parser has the last word on what is not.
        await css(session, "(agent, s) => document.querySelector(s) && null", target.selector, target.selector)
        raise ToolError("bad-arg", f"selector {target.selector!r} is not a CSS selector: firefox sessions take CSS "
                        "(Playwright's text=, role= and >> engines are chromium's)", field="selector")
    return found


async def _ready(session: FirefoxSession, action: str, target: Element, mode: str | None,
                 reply: Reply, *, mark: bool = True) -> JsonObject:
    """aim's answer once the target is ready for ``mode`` (see the module notes)."""
    found = await _aim(session, target, mode, mark)
    if coords_of(target) is not None:
        return found
    check_found(target, found, reply)

    async def look() -> JsonObject:
        return await _aim(session, target, mode, False)

    found = await within_grace(found, look)
    if known_now(found):
        raise refusal(action, _label(target), found)
    deadline = trio.current_time() + min(ACTION_TIMEOUT_S, session.left())
    while mode is not None and not found.get("ready"):
        if trio.current_time() >= deadline:
            raise ToolError("timeout", f"{action} {_label(target)}: waited {ACTION_TIMEOUT_S:g} s for it to be "
                            f"ready: {found.get('wait') or found.get('why') or 'not ready'}",
                            reason=found.get("why"))
        await trio.sleep(LOOK_EVERY_S)
        found = await look()
        check_found(target, found, reply)
        if known_now(found):
            raise refusal(action, _label(target), found)
    return found


async def aim_at(session: FirefoxSession, target: Element) -> JsonObject:
    """aim's answer for a target an action will use without pointing at it (no mode: no readiness)."""
    return await _aim(session, target, None, True)


async def element_at(session: FirefoxSession, point: tuple[float, float], *, mark: bool = True) -> JsonObject | None:
    """The element under a viewport point, described (marking the page for the action's report)."""
    found = await _aim(session, Target(coords={"x": point[0], "y": point[1]}), None, mark)
    described = found.get("target")
    return described if isinstance(described, dict) else None


async def perform_input(session: FirefoxSession, sources: list[JsonObject]) -> None:
    """Send ``sources`` (bidi.input's) to the current tab as they are: no target, no settle."""
    await _perform(session, sources)


async def ready_point(session: FirefoxSession, action: str, target: Element, reply: Reply, *,
                      mark: bool = True) -> tuple[tuple[float, float], JsonObject | None]:
    """The point a pointer tool acts at on ``target`` (ready as a click's target) and its description."""
    found = await _ready(session, action, target, "click", reply) if mark else await _aim(session, target,
                                                                                            "click", False)
    described = found.get("target")
    return _point(found), described if isinstance(described, dict) else None


async def _perform(session: FirefoxSession, sources: list[JsonObject]) -> None:
    # Every source releases what it pressed (bidi.input), so nothing stays down for the next action.
    await session.bidi.send("input.performActions", {"context": session.tab.context, "actions": sources},
                            timeout=session.left())


async def step(session: FirefoxSession, action: str, target: Element, mode: str | None, make: Input,
               reply: Reply, *, mark: bool = True) -> JsonObject:
    """One input of an action, no settle: the target readied for ``mode``, then ``make``'s
    input sent; aim's answer. ``mark=False`` keeps the mark an earlier step of the same
    call set (a form fills several fields and reports every change once)."""
    found = await _ready(session, action, target, mode, reply, mark=mark)
    coords = coords_of(target)
    if coords is not None:
        found = {**found, "ready": [coords["x"], coords["y"]]}
    await _perform(session, make(found))
    return found


def typed(value: str, *, submit: bool = False) -> Input:
    """What ``fill`` types over the selected content: the value (a Delete for none), then Enter on ``submit``."""
    def make(found: JsonObject) -> list[JsonObject]:
        sources = keys.typing(value) if value else keys.chord([keys.KEYS["Delete"]])
        return sources + keys.chord([keys.KEYS["Enter"]]) if submit else sources
    return make


def clicked(found: JsonObject) -> list[JsonObject]:
    """A left click at the point aim readied."""
    return keys.click(*_point(found))


async def _act(session: FirefoxSession, action: str, target: Element, mode: str | None, make: Input,
               extra: dict[str, JsonValue] | None = None) -> Reply:
    started = time.perf_counter()
    reply = Reply(warnings=[])
    mark = Mark.now(session)
    found = await step(session, action, target, mode, make, reply)
    fields = await settle(session, mark, found.get("target"), started)
    reply.fields.update(brief({**fields, **(extra or {})}))
    return reply


def _point(found: JsonObject) -> tuple[float, float]:
    ready = found.get("ready")
    if not isinstance(ready, list):
        raise ToolError("action-failed", "the target has no point to act on")
    return float(ready[0]), float(ready[1])


async def click(session: FirefoxSession, args: ClickArgs) -> Reply:
    def make(found: JsonObject) -> list[JsonObject]:
        return keys.click(*_point(found), button=args.button, count=args.click_count, modifiers=args.modifiers or ())
    return await _act(session, "click", args, "click", make)


async def double_click(session: FirefoxSession, args: DoubleClickArgs) -> Reply:
    def make(found: JsonObject) -> list[JsonObject]:
        return keys.click(*_point(found), button=args.button, count=2, modifiers=args.modifiers or ())
    return await _act(session, "double_click", args, "click", make)


async def hover(session: FirefoxSession, args: HoverArgs) -> Reply:
    return await _act(session, "hover", args, "hover", lambda found: keys.move(*_point(found)))


async def fill(session: FirefoxSession, args: FillArgs) -> Reply:
    """Focus and select the field's content (aim, ``fill`` mode), then type the value
    over it: an empty value deletes the selection.

    An editor's field (aim answers ``editor``: a code editor's hidden input, a rich-text
    region) gets the value as one paste over its whole text instead, as on chromium
    (:mod:`...chromium.input.paste`): typed, a code editor indents each line again and
    doubles the brackets it closed itself. Then fill answers ok only for text the editor
    shows."""
    started = time.perf_counter()
    reply = Reply(warnings=[])
    mark = Mark.now(session)
    found, pasted = await text_into(session, "fill", args, args.value, reply, submit=args.submit)
    fields = await settle(session, mark, found.get("target"), started)
    if pasted and isinstance(fields.get("settled"), dict):
        fields["settled"]["input"] = "paste"
    reply.fields.update(brief(fields))
    target = found.get("target")
    if found.get("editor") and isinstance(target, dict):
        await check_filled(session, target, args.value)
    return reply


async def text_into(session: FirefoxSession, action: str, target: Element, value: str, reply: Reply, *,
                    submit: bool = False, mark: bool = True) -> tuple[JsonObject, bool]:
    """The field readied for ``fill`` (focused, its content selected), then ``value``
    typed over it, or pasted into an editor's; aim's answer, and whether it was pasted."""
    found = await _ready(session, action, target, "fill", reply, mark=mark)
    pasted = bool(found.get("editor")) and found.get("ready") is True and bool(value) and await _paste(session, value)
    if not pasted:
        await _perform(session, typed(value, submit=submit)(found))
    elif submit:
        await _perform(session, keys.chord([keys.KEYS["Enter"]]))
    return found, pasted


async def _paste(session: FirefoxSession, text: str) -> bool:
    """Select the editor's whole text with its own select-all (Control+A), then paste
    ``text`` as a person does: into the browser's clipboard, Control+V, and the clipboard
    emptied again, one session of the browser at a time. Firefox gives a paste event a
    script sends no clipboard data, so only a real paste carries the text. False when
    the page may not write the clipboard (not a secure context): the text is typed."""
    await _perform(session, keys.chord([keys.KEYS["Control"], "a"]))
    assert session.browser is not None, "the session has not started"
    async with session.browser.clipboard:
        if not await _write_clipboard(session, text):
            return False
        try:
            await _perform(session, keys.chord([keys.KEYS["Control"], "v"]))
        finally:
            # Emptied whatever ends the paste; a browser gone meanwhile takes its clipboard along.
            with trio.CancelScope(shield=True), contextlib.suppress(BidiFailure):
                await _write_clipboard(session, "")
    return True


#: ``(text) => written``: the key press before it is the user activation the write needs.
_WRITE_CLIPBOARD = """async (text) => {
  if (!window.isSecureContext || !navigator.clipboard) return false;
  try { await navigator.clipboard.writeText(text); return true; } catch (e) { return false; }
}"""


async def _write_clipboard(session: FirefoxSession, text: str) -> bool:
    answer = await session.bidi.send("script.callFunction", {
        "functionDeclaration": _WRITE_CLIPBOARD, "arguments": [{"type": "string", "value": text}],
        "target": {"context": session.tab.context}, "awaitPromise": True, "resultOwnership": "none"},
        timeout=session.left())
    return answer.get("type") == "success" and (answer.get("result") or {}).get("value") is True


def _chord(key: str) -> list[str]:
    parts = key.split("+") if key != "+" and not key.endswith("++") else [*key[:-2].split("+"), "+"]
    codes = [keys.key_code(part) for part in parts if part]
    if not codes or any(code is None for code in codes):
        unknown = next((p for p, c in zip(parts, codes, strict=False) if c is None), key)
        raise ToolError("bad-arg", f"key {unknown!r} is not a key name (Enter, Tab, Escape, ArrowDown, F5...) or a "
                        "single character", field="key")
    return [code for code in codes if code is not None]


async def press(session: FirefoxSession, args: PressArgs) -> Reply:
    codes = _chord(args.key)
    started = time.perf_counter()
    reply = Reply(warnings=[])
    mark = Mark.now(session)
    described: JsonValue = None
    if args.ref is not None or args.selector is not None:
        found = await _aim(session, args, None, True)
        described = check_found(args, found, reply)
        await session.in_sandbox(_FOCUS, {"ref": args.ref, "selector": args.selector})
    await _perform(session, keys.chord(codes))
    fields = await settle(session, mark, described, started)
    reply.fields.update(brief(fields))
    return reply


async def choose(session: FirefoxSession, target: Element, values: list[str], field: str) -> list[str]:
    """Select ``values`` in the ``<select>`` ``target`` names (with its input and change
    events, as Playwright's selectOption); the values selected. ``field`` is the argument
    a missing option is blamed on."""
    answer = await session.in_sandbox(_SELECT, {"ref": target.ref, "selector": target.selector, "values": values})
    assert isinstance(answer, dict)
    if answer.get("notSelect"):
        raise ToolError("bad-arg", f"{_label(target)} is a <{answer['notSelect']}>, not a <select>: choose_option "
                        "picks from custom lists", field="ref" if target.ref else "selector")
    if "none" in answer:
        # An option that is not there is the caller's wrong argument, as on chromium: the target was found.
        missing = answer.get("missing") or values
        raise ToolError("bad-arg", f"no option of {_label(target)} has the value or label "
                        f"{', '.join(map(repr, missing))}; its options: {answer['none']}", field=field)
    selected: list[str] = answer["selected"]
    return selected


async def select(session: FirefoxSession, args: SelectArgs) -> Reply:
    started = time.perf_counter()
    reply = Reply(warnings=[])
    mark = Mark.now(session)
    found = await _aim(session, args, None, True)
    described = check_found(args, found, reply)
    await choose(session, args, args.values, "values")
    # The chosen option shows in ``element.value``, as on chromium; no key of firefox's own.
    reply.fields.update(brief(await settle(session, mark, described, started)))
    return reply


async def scroll(session: FirefoxSession, args: ScrollArgs) -> Reply:
    started = time.perf_counter()
    reply = Reply(warnings=[])
    mark = Mark.now(session)
    described: JsonValue = None
    x, y = session.viewport[0] / 2, session.viewport[1] / 2
    if args.ref is not None or args.selector is not None:
        found = await _aim(session, args, "hover", True)
        described = check_found(args, found, reply)
        if isinstance(found.get("ready"), list):
            x, y = _point(found)
    if args.to is not None:
        position = await session.in_sandbox(_SCROLL_TO, {"ref": args.ref, "selector": args.selector, "to": args.to})
    else:
        await _perform(session, keys.wheel(x, y, args.delta_x, args.delta_y))
        position = None
    fields = await settle(session, mark, described, started)
    reply.fields.update(brief(fields))
    if position is not None:
        reply["scroll"] = position
    return reply
