"""Trusted input as raw CDP commands: the mouse and key events of one action.

The direct action path (:mod:`.input.actions`) sends these over the session's raw CDP
session with :meth:`~browx_actors.cdp.link.TargetLink.send_sequence`, so the events of one
click reach the browser back to back and in order. The pointer tools (:mod:`.input.pointer`)
send the presses, releases, moves and wheel turns one at a time; touch and drag events
are built in :mod:`.touch_commands` and :mod:`.drag_commands`. ``Input.dispatch*`` events are
trusted (``isTrusted`` is true), exactly like the ones Playwright sends, and go through
the browser's hit testing, focus and default actions as a user's would.

Pure: every function returns a list of ``(method, params)`` commands.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from ....jsonsafe import JsonObject, JsonValue

__all__ = [
    "BUTTONS",
    "KEYS",
    "MODIFIERS",
    "Command",
    "button_held",
    "insert_text",
    "key_press",
    "modifier_keys",
    "mouse_click",
    "mouse_move",
    "mouse_press",
    "mouse_release",
    "mouse_wheel",
    "select_all",
]

#: ``(method, params)``: one CDP command.
Command = tuple[str, JsonObject]

#: Mouse buttons and their bit in the ``buttons`` field of a mouse event.
BUTTONS = {"left": 1, "right": 2, "middle": 4}

#: Modifier keys: DOM ``code``, Windows virtual key code, bit in ``modifiers``.
_MODIFIER_KEYS = {
    "Alt": ("AltLeft", 18, 1),
    "Control": ("ControlLeft", 17, 2),
    "Meta": ("MetaLeft", 91, 4),
    "Shift": ("ShiftLeft", 16, 8),
}

#: Modifier names a click accepts. ``ControlOrMeta`` is Control here: the browser runs
#: on Linux, where Meta would be the Super key.
MODIFIERS = frozenset(_MODIFIER_KEYS) | {"ControlOrMeta"}

#: Keys the direct path presses itself: ``key`` -> (``code``, key code, text).
KEYS = {
    "Enter": ("Enter", 13, "\r"),
    "Delete": ("Delete", 46, ""),
}


def modifier_keys(names: Iterable[str]) -> list[str]:
    """Modifier names as keys to hold, without repeats, in the order given.

    Raises ``ValueError`` naming the first unknown name.
    """
    keys: list[str] = []
    for name in names:
        if name not in MODIFIERS:
            raise ValueError(f"unknown modifier {name!r}; known: {', '.join(sorted(MODIFIERS))}")
        key = "Control" if name == "ControlOrMeta" else name
        if key not in keys:
            keys.append(key)
    return keys


def _key_event(kind: str, key: str, code: str, key_code: int, modifiers: int, text: str = "") -> Command:
    params: JsonObject = {"type": kind, "key": key, "code": code, "windowsVirtualKeyCode": key_code,
                              "modifiers": modifiers}
    if text:
        params["text"] = params["unmodifiedText"] = text
    return ("Input.dispatchKeyEvent", params)


def _hold(keys: Sequence[str]) -> tuple[list[Command], list[Command], int]:
    """Key downs and key ups (reversed) of held modifiers, and their bits together."""
    downs: list[Command] = []
    ups: list[Command] = []
    bits = 0
    for key in keys:
        code, key_code, bit = _MODIFIER_KEYS[key]
        bits |= bit
        downs.append(_key_event("rawKeyDown", key, code, key_code, bits))
    held = bits
    for key in reversed(keys):
        code, key_code, bit = _MODIFIER_KEYS[key]
        bits &= ~bit
        ups.append(_key_event("keyUp", key, code, key_code, bits))
    return downs, ups, held


def _mouse(kind: str, x: float, y: float, modifiers: int, **fields: JsonValue) -> Command:
    return ("Input.dispatchMouseEvent", {"type": kind, "x": x, "y": y, "modifiers": modifiers, **fields})


def button_held(buttons: int) -> str | None:
    """The button a move reports while ``buttons`` are held (the first of left, right,
    middle), as a browser does: the renderer starts a drag only on a move that names it."""
    return next((name for name, bit in BUTTONS.items() if buttons & bit), None)


def mouse_move(x: float, y: float, *, buttons: int = 0) -> list[Command]:
    """Move the pointer to a viewport point (CSS pixels): hover, or a drag while
    ``buttons`` (a mask of :data:`BUTTONS`) are held."""
    held = button_held(buttons)
    if held is None:
        return [_mouse("mouseMoved", x, y, 0)]
    return [_mouse("mouseMoved", x, y, 0, button=held, buttons=buttons)]


def _check_button(button: str) -> int:
    if button not in BUTTONS:
        raise ValueError(f"unknown button {button!r}")
    return BUTTONS[button]


def mouse_press(x: float, y: float, *, button: str = "left", buttons: int = 0, click_count: int = 1) -> list[Command]:
    """Press ``button`` at the point; ``buttons`` are those already held."""
    bit = _check_button(button)
    return [_mouse("mousePressed", x, y, 0, button=button, buttons=buttons | bit, clickCount=click_count)]


def mouse_release(x: float, y: float, *, button: str = "left", buttons: int | None = None,
                  click_count: int = 1) -> list[Command]:
    """Release ``button`` at the point; ``buttons`` are those held before (default: it)."""
    bit = _check_button(button)
    held = bit if buttons is None else buttons
    return [_mouse("mouseReleased", x, y, 0, button=button, buttons=held & ~bit, clickCount=click_count)]


def mouse_wheel(x: float, y: float, delta_x: float, delta_y: float) -> list[Command]:
    """Turn the wheel over the point: what scrolls is what is under it, as for a user."""
    return [_mouse("mouseWheel", x, y, 0, deltaX=delta_x, deltaY=delta_y)]


def mouse_click(
    x: float,
    y: float,
    *,
    button: str = "left",
    click_count: int = 1,
    modifiers: Sequence[str] = (),
) -> list[Command]:
    """Move to the point, then press and release ``click_count`` times, holding the
    modifier keys throughout, as a user's double click is two press/release pairs
    with rising ``clickCount``."""
    if button not in BUTTONS:
        raise ValueError(f"unknown button {button!r}")
    if click_count < 1:
        raise ValueError("click_count must be at least 1")
    downs, ups, held = _hold(modifier_keys(modifiers))
    commands = [*downs, _mouse("mouseMoved", x, y, held)]
    for count in range(1, click_count + 1):
        commands.append(_mouse("mousePressed", x, y, held, button=button, buttons=BUTTONS[button],
                               clickCount=count))
        commands.append(_mouse("mouseReleased", x, y, held, button=button, buttons=0, clickCount=count))
    return commands + ups


def key_press(key: str) -> list[Command]:
    """Press and release one of :data:`KEYS` (a key with text goes down as ``keyDown``,
    which also types it; one without as ``rawKeyDown``)."""
    code, key_code, text = KEYS[key]
    return [_key_event("keyDown" if text else "rawKeyDown", key, code, key_code, 0, text),
            _key_event("keyUp", key, code, key_code, 0)]


def insert_text(value: str) -> list[Command]:
    """Replace the focused field's selection with ``value``, as an input method commits
    text (``beforeinput`` / ``input`` with ``insertText``); an empty value deletes the
    selection with the Delete key instead."""
    if not value:
        return key_press("Delete")
    return [("Input.insertText", {"text": value})]


def select_all() -> list[Command]:
    """Control+A: an editor that binds it selects its whole text (a code editor's
    document, not only what its hidden input holds); a field or region without a
    binding selects its content, as the browser's own select-all."""
    downs, ups, held = _hold(["Control"])
    return [*downs, _key_event("rawKeyDown", "a", "KeyA", 65, held),
            _key_event("keyUp", "a", "KeyA", 65, held), *ups]
