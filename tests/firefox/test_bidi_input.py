"""The pure builders of ``input.performActions`` sources (browx_actors/bidi/input.py).

Firefox runs the sources' ticks in step, so where a modifier sits relative to the
pointer's press is decided by tick positions: these tests read the ticks the way the
browser will.
"""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from browx_actors.bidi.input import KEYS, chord, click, key_code, move, typing, wheel


def ticks(sources: list[dict], source_type: str) -> list[dict]:
    (source,) = [s for s in sources if s["type"] == source_type]
    return source["actions"]


def test_a_plain_click_is_one_mouse_source_move_down_up() -> None:
    sources = click(10.4, 20.6)
    assert [s["type"] for s in sources] == ["pointer"]
    assert sources[0]["parameters"] == {"pointerType": "mouse"}
    assert ticks(sources, "pointer") == [
        {"type": "pointerMove", "x": 10, "y": 21, "origin": "viewport"},
        {"type": "pointerDown", "button": 0}, {"type": "pointerUp", "button": 0}]


def test_a_double_right_click_presses_the_right_button_twice() -> None:
    pointer = ticks(click(1, 2, button="right", count=2), "pointer")
    assert [(t["type"], t.get("button")) for t in pointer[1:]] == [
        ("pointerDown", 2), ("pointerUp", 2), ("pointerDown", 2), ("pointerUp", 2)]


def test_a_click_with_modifiers_holds_them_down_around_every_press() -> None:
    sources = click(5, 5, modifiers=["Shift", "Ctrl"])
    keys, pointer = ticks(sources, "key"), ticks(sources, "pointer")
    # Tick i of one source runs with tick i of the other: pad both to one timeline.
    length = max(len(keys), len(pointer))
    keys += [{"type": "pause"}] * (length - len(keys))
    pointer += [{"type": "pause"}] * (length - len(pointer))
    held: set[str] = set()
    for key_tick, pointer_tick in zip(keys, pointer, strict=True):
        if key_tick["type"] == "keyDown":
            held.add(key_tick["value"])
        elif key_tick["type"] == "keyUp":
            held.discard(key_tick["value"])
        if pointer_tick["type"] in ("pointerDown", "pointerUp"):
            assert held == {KEYS["Shift"], KEYS["Control"]}, (key_tick, pointer_tick)
    assert held == set()
    # Released in the reverse order they were pressed.
    ups = [t["value"] for t in keys if t["type"] == "keyUp"]
    assert ups == [KEYS["Control"], KEYS["Shift"]]


@given(st.text(max_size=40))
def test_typing_any_text_is_one_key_down_up_pair_per_character(text: str) -> None:
    (source,) = typing(text)
    actions = source["actions"]
    assert len(actions) == 2 * len(text)
    for i, char in enumerate(text):
        down, up = actions[2 * i], actions[2 * i + 1]
        assert (down["type"], up["type"]) == ("keyDown", "keyUp")
        assert down["value"] == up["value"]
        if char not in "\n\r\t":
            assert down["value"] == char


def test_typing_maps_newlines_to_enter_and_tabs_to_tab() -> None:
    values = [t["value"] for t in typing("a\nb\r\tc")[0]["actions"] if t["type"] == "keyDown"]
    assert values == ["a", KEYS["Enter"], "b", KEYS["Enter"], KEYS["Tab"], "c"]


def test_a_chord_holds_every_key_but_the_last_and_releases_in_reverse() -> None:
    control, shift = KEYS["Control"], KEYS["Shift"]
    actions = chord([control, shift, "k"])[0]["actions"]
    assert [(t["type"], t["value"]) for t in actions] == [
        ("keyDown", control), ("keyDown", shift), ("keyDown", "k"), ("keyUp", "k"),
        ("keyUp", shift), ("keyUp", control)]


def test_a_chord_of_one_key_is_a_plain_press() -> None:
    assert [(t["type"], t["value"]) for t in chord(["x"])[0]["actions"]] == [("keyDown", "x"), ("keyUp", "x")]


def test_key_code_names_keys_by_webdriver_code_and_aliases() -> None:
    assert key_code("Enter") == "\ue007"
    assert key_code("Return") == key_code("Enter")
    assert key_code("Esc") == key_code("Escape") == "\ue00c"
    assert key_code("Ctrl") == key_code("Control")
    assert key_code("Cmd") == key_code("Meta")
    assert key_code("Up") == key_code("ArrowUp")
    assert key_code("F1") == "\ue031" and key_code("F12") == "\ue03c"
    assert key_code("Space") == " "


def test_key_code_passes_single_characters_and_refuses_unknown_names() -> None:
    assert key_code("a") == "a"
    assert key_code("é") == "é"
    assert key_code("Bogus") is None
    assert key_code("F13") is None
    assert key_code("") is None


def test_move_and_wheel_round_to_whole_viewport_pixels() -> None:
    assert ticks(move(1.6, 2.4), "pointer") == [{"type": "pointerMove", "x": 2, "y": 2, "origin": "viewport"}]
    assert ticks(wheel(3.2, 4.8, 0, -120.4), "wheel") == [
        {"type": "scroll", "x": 3, "y": 5, "deltaX": 0, "deltaY": -120, "origin": "viewport"}]
