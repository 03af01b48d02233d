"""The raw CDP input of direct actions, as commands (pure: no browser)."""

from __future__ import annotations

import pytest

from browx_actors.sessions.chromium.input.commands import (
    MODIFIERS,
    insert_text,
    key_press,
    modifier_keys,
    mouse_click,
    mouse_move,
)


def _kinds(commands: list) -> list[str]:
    return [params.get("type", method) for method, params in commands]


def test_a_click_moves_then_presses_and_releases_at_the_point() -> None:
    commands = mouse_click(10.5, 20.0)
    assert _kinds(commands) == ["mouseMoved", "mousePressed", "mouseReleased"]
    assert all(method == "Input.dispatchMouseEvent" for method, _ in commands)
    assert all((p["x"], p["y"], p["modifiers"]) == (10.5, 20.0, 0) for _, p in commands)
    _, pressed = commands[1]
    _, released = commands[2]
    assert (pressed["button"], pressed["buttons"], pressed["clickCount"]) == ("left", 1, 1)
    assert (released["button"], released["buttons"], released["clickCount"]) == ("left", 0, 1)


def test_a_double_right_click_is_two_pairs_with_rising_click_count() -> None:
    commands = mouse_click(1, 2, button="right", click_count=2)
    assert _kinds(commands) == ["mouseMoved", "mousePressed", "mouseReleased", "mousePressed", "mouseReleased"]
    assert [p.get("clickCount") for _, p in commands] == [None, 1, 1, 2, 2]
    assert {p["buttons"] for _, p in commands[1::2]} == {2}


def test_modifiers_are_held_around_the_click_and_set_on_every_event() -> None:
    commands = mouse_click(5, 5, modifiers=["Shift", "ControlOrMeta", "Shift"])
    assert _kinds(commands) == ["rawKeyDown", "rawKeyDown", "mouseMoved", "mousePressed", "mouseReleased",
                                "keyUp", "keyUp"]
    keys = [(p["type"], p["key"], p["code"], p["modifiers"]) for _, p in commands if "key" in p]
    # Each key event carries the modifiers held at that moment, as a keyboard reports them.
    assert keys == [("rawKeyDown", "Shift", "ShiftLeft", 8), ("rawKeyDown", "Control", "ControlLeft", 10),
                    ("keyUp", "Control", "ControlLeft", 8), ("keyUp", "Shift", "ShiftLeft", 0)]
    assert {p["modifiers"] for _, p in commands[2:5]} == {10}


def test_unknown_modifiers_buttons_and_counts_are_refused() -> None:
    with pytest.raises(ValueError, match="unknown modifier 'Hyper'"):
        modifier_keys(["Shift", "Hyper"])
    assert modifier_keys(sorted(MODIFIERS)) == ["Alt", "Control", "Meta", "Shift"]
    with pytest.raises(ValueError, match="unknown button"):
        mouse_click(0, 0, button="back")
    with pytest.raises(ValueError, match="click_count"):
        mouse_click(0, 0, click_count=0)


def test_hover_is_one_move() -> None:
    assert mouse_move(3, 4) == [("Input.dispatchMouseEvent", {"type": "mouseMoved", "x": 3, "y": 4, "modifiers": 0})]


def test_typing_inserts_text_and_an_empty_value_deletes_the_selection() -> None:
    assert insert_text("héllo\n") == [("Input.insertText", {"text": "héllo\n"})]
    assert _kinds(insert_text("")) == ["rawKeyDown", "keyUp"]
    assert insert_text("")[0][1]["key"] == "Delete" and "text" not in insert_text("")[0][1]


def test_enter_goes_down_with_its_text_so_it_submits() -> None:
    down, up = key_press("Enter")
    assert down == ("Input.dispatchKeyEvent", {"type": "keyDown", "key": "Enter", "code": "Enter",
                                               "windowsVirtualKeyCode": 13, "modifiers": 0,
                                               "text": "\r", "unmodifiedText": "\r"})
    assert up[1]["type"] == "keyUp" and "text" not in up[1]
