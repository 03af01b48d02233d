"""WebDriver input sources for ``input.performActions``: pure builders, no I/O.

BiDi sends trusted input as *sources* (a keyboard, a mouse, a wheel), each a list of
ticks; the browser runs the sources' ticks in step. A click is one mouse source
(move, down, up); typing is one key source (down and up per character); a chord holds
its modifiers down around the key. Keys that are not characters travel as the
WebDriver specification's code points in the Private Use Area (:data:`KEYS`), and a
character the agent types is sent as itself, so any text (accents, CJK, emoji)
types as the user would see it.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..jsonsafe import JsonObject

__all__ = ["BUTTONS", "KEYS", "MODIFIERS", "chord", "click", "key_code", "move", "typing", "wheel"]

#: The WebDriver key code of each named key (WebDriver's "keyboard actions" table).
KEYS: dict[str, str] = {
    "Cancel": "\ue001", "Help": "\ue002", "Backspace": "\ue003", "Tab": "\ue004", "Clear": "\ue005",
    "Enter": "\ue007", "Shift": "\ue008", "Control": "\ue009", "Alt": "\ue00a", "Pause": "\ue00b",
    "Escape": "\ue00c", "Space": " ", " ": " ", "PageUp": "\ue00e", "PageDown": "\ue00f", "End": "\ue010",
    "Home": "\ue011", "ArrowLeft": "\ue012", "ArrowUp": "\ue013", "ArrowRight": "\ue014", "ArrowDown": "\ue015",
    "Insert": "\ue016", "Delete": "\ue017", "Meta": "\ue03d",
    **{f"F{n}": chr(0xE031 + n - 1) for n in range(1, 13)},
}
#: Names agents use for the same keys.
_ALIASES = {"Esc": "Escape", "Return": "Enter", "Del": "Delete", "Up": "ArrowUp", "Down": "ArrowDown",
            "Left": "ArrowLeft", "Right": "ArrowRight", "Ctrl": "Control", "Cmd": "Meta", "Command": "Meta",
            "Option": "Alt", "ControlOrMeta": "Control"}
MODIFIERS = ("Alt", "Control", "Meta", "Shift")
BUTTONS = {"left": 0, "middle": 1, "right": 2}
#: Characters typed as keys: a newline is Enter, a tab is Tab.
_TYPED_AS = {"\n": KEYS["Enter"], "\r": KEYS["Enter"], "\t": KEYS["Tab"]}


def key_code(name: str) -> str | None:
    """The value BiDi takes for the key ``name`` (``Enter``, ``a``, ``F5``), or None for no key."""
    name = _ALIASES.get(name, name)
    if name in KEYS:
        return KEYS[name]
    return name if len(name) == 1 else None


def _keys(values: Sequence[str]) -> JsonObject:
    actions = []
    for value in values:
        actions += [{"type": "keyDown", "value": value}, {"type": "keyUp", "value": value}]
    return {"type": "key", "id": "keyboard", "actions": actions}


def _held(modifiers: Sequence[str]) -> tuple[list[JsonObject], list[JsonObject]]:
    codes = [KEYS[_ALIASES.get(m, m)] for m in modifiers]
    return ([{"type": "keyDown", "value": c} for c in codes], [{"type": "keyUp", "value": c} for c in reversed(codes)])


def typing(text: str) -> list[JsonObject]:
    """The sources that type ``text`` into the focused element, character by character."""
    return [_keys([_TYPED_AS.get(char, char) for char in text])]


def chord(keys: Sequence[str]) -> list[JsonObject]:
    """The sources that press ``keys`` (``["Control", "a"]``): every key but the last held
    down, the last pressed, then all released; each already a BiDi key value."""
    *held, last = keys
    downs = [{"type": "keyDown", "value": k} for k in held]
    ups = [{"type": "keyUp", "value": k} for k in reversed(held)]
    return [{"type": "key", "id": "keyboard",
             "actions": [*downs, {"type": "keyDown", "value": last}, {"type": "keyUp", "value": last}, *ups]}]


def _mouse(actions: list[JsonObject]) -> JsonObject:
    return {"type": "pointer", "id": "mouse", "parameters": {"pointerType": "mouse"}, "actions": actions}


def move(x: float, y: float) -> list[JsonObject]:
    """The pointer moved to the viewport point ``(x, y)``."""
    return [_mouse([{"type": "pointerMove", "x": round(x), "y": round(y), "origin": "viewport"}])]


def click(x: float, y: float, *, button: str = "left", count: int = 1,
          modifiers: Sequence[str] = ()) -> list[JsonObject]:
    """Move to ``(x, y)`` and press and release ``button`` ``count`` times (a double click
    is two pairs in a row), holding ``modifiers`` throughout. The modifier key source
    pauses while the pointer acts, so the keys stay down around every press."""
    pressed = BUTTONS[button]
    pointer: list[JsonObject] = [{"type": "pointerMove", "x": round(x), "y": round(y), "origin": "viewport"}]
    for _ in range(count):
        pointer += [{"type": "pointerDown", "button": pressed}, {"type": "pointerUp", "button": pressed}]
    if not modifiers:
        return [_mouse(pointer)]
    downs, ups = _held(modifiers)
    pauses = [{"type": "pause"} for _ in pointer]
    return [{"type": "key", "id": "keyboard", "actions": [*downs, *pauses, *ups]},
            _mouse([*({"type": "pause"} for _ in downs), *pointer])]


def wheel(x: float, y: float, delta_x: float, delta_y: float) -> list[JsonObject]:
    """A wheel turned by ``(delta_x, delta_y)`` pixels over the viewport point ``(x, y)``."""
    return [{"type": "wheel", "id": "wheel", "actions": [
        {"type": "scroll", "x": round(x), "y": round(y), "deltaX": round(delta_x), "deltaY": round(delta_y),
         "origin": "viewport"}]}]
