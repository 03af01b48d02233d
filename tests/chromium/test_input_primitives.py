"""The raw input primitives as pure parts: mouse, wheel, touch and drag commands, the
tab's input state, and the geometry and pacing of gestures (no browser, no clock)."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from browx_actors.sessions.chromium.input.commands import (
    button_held,
    mouse_move,
    mouse_press,
    mouse_release,
    mouse_wheel,
)
from browx_actors.sessions.chromium.input.drag_commands import drag_event, intercept_drags
from browx_actors.sessions.chromium.input.motion import (
    FRAME_MS,
    MAX_STEPS,
    PINCH_SPAN,
    glide,
    line,
    pinch,
    pinch_halves,
    step_count,
    stroke,
    times,
)
from browx_actors.sessions.chromium.input.state import InputState
from browx_actors.sessions.chromium.input.touch_commands import (
    TouchPoint,
    touch_cancel,
    touch_emulation,
    touch_end,
    touch_move,
    touch_start,
)


def _params(commands: list) -> list[dict]:
    return [params for _, params in commands]


# -- mouse and wheel --------------------------------------------------------------------


def test_a_press_adds_its_button_to_those_held_and_a_release_takes_it_away() -> None:
    [(method, pressed)] = mouse_press(5, 6, button="right", buttons=1, click_count=2)
    assert method == "Input.dispatchMouseEvent"
    assert pressed == {"type": "mousePressed", "x": 5, "y": 6, "modifiers": 0, "button": "right", "buttons": 3,
                       "clickCount": 2}
    [(_, released)] = mouse_release(5, 6, button="right", buttons=3)
    assert (released["type"], released["button"], released["buttons"]) == ("mouseReleased", "right", 1)
    # Without what was held, the release assumes just its own button.
    assert _params(mouse_release(1, 1))[0]["buttons"] == 0
    with pytest.raises(ValueError, match="unknown button"):
        mouse_press(0, 0, button="back")


def test_a_move_with_a_button_held_names_it_as_a_drag_does() -> None:
    assert _params(mouse_move(3, 4)) == [{"type": "mouseMoved", "x": 3, "y": 4, "modifiers": 0}]
    assert _params(mouse_move(3, 4, buttons=1)) == [{"type": "mouseMoved", "x": 3, "y": 4, "modifiers": 0,
                                                     "button": "left", "buttons": 1}]
    # The first of left, right, middle held is the one a move reports.
    assert [button_held(b) for b in (0, 1, 2, 4, 6, 7)] == [None, "left", "right", "middle", "right", "left"]


def test_the_wheel_turns_over_a_point() -> None:
    assert _params(mouse_wheel(10, 20, 0, -120)) == [{"type": "mouseWheel", "x": 10, "y": 20, "modifiers": 0,
                                                      "deltaX": 0, "deltaY": -120}]


# -- touch and drag -----------------------------------------------------------------------


def test_touch_events_list_only_the_points_they_concern() -> None:
    a, b = TouchPoint(0, 10, 20), TouchPoint(1, 30, 40)
    [(method, start)] = touch_start([a, b])
    assert method == "Input.dispatchTouchEvent"
    assert start == {"type": "touchStart", "modifiers": 0,
                     "touchPoints": [{"x": 10, "y": 20, "id": 0}, {"x": 30, "y": 40, "id": 1}]}
    assert _params(touch_move([b]))[0]["touchPoints"] == [{"x": 30, "y": 40, "id": 1}]
    assert _params(touch_end([a]))[0] == {"type": "touchEnd", "modifiers": 0, "touchPoints": [{"x": 10, "y": 20,
                                                                                                 "id": 0}]}
    assert _params(touch_end())[0]["touchPoints"] == []
    assert _params(touch_cancel()) == [{"type": "touchCancel", "touchPoints": [], "modifiers": 0}]
    assert touch_emulation() == [("Emulation.setTouchEmulationEnabled", {"enabled": True, "maxTouchPoints": 10})]


def test_an_intercepted_drag_carries_its_data_to_each_point() -> None:
    data = {"items": [{"mimeType": "text/plain", "data": "x"}], "dragOperationsMask": 1}
    assert intercept_drags(True) == [("Input.setInterceptDrags", {"enabled": True})]
    assert drag_event("drop", 7, 8, data) == [("Input.dispatchDragEvent", {"type": "drop", "x": 7, "y": 8,
                                                                          "data": data, "modifiers": 0})]
    with pytest.raises(ValueError, match="unknown drag event"):
        drag_event("dragLeave", 0, 0, data)


# -- the tab's input state ------------------------------------------------------------------


def test_the_state_follows_the_commands_sent() -> None:
    state = InputState()
    assert state.position() is None and state.held() == []
    state.track(mouse_move(5, 5) + mouse_press(5, 5, button="left"))
    assert state.describe() == {"x": 5.0, "y": 5.0, "buttons": ["left"]}
    state.track(mouse_press(5, 5, button="middle", buttons=state.buttons) + mouse_move(9, 9, buttons=5))
    assert (state.position(), state.held()) == ((9.0, 9.0), ["left", "middle"])
    state.track(mouse_release(9, 9, button="left", buttons=state.buttons))
    assert state.held() == ["middle"]
    state.track(mouse_wheel(1, 2, 0, 10))
    assert state.position() == (1.0, 2.0)
    state.forget_position()
    assert state.position() is None and state.held() == ["middle"]


def test_touches_are_kept_by_id_and_lifted_as_chromium_lifts_them() -> None:
    state = InputState()
    state.track(touch_emulation() + touch_start([TouchPoint(0, 1, 1), TouchPoint(3, 2, 2)]))
    assert state.touch_emulation and state.describe_touches() == [{"id": 0, "x": 1.0, "y": 1.0},
                                                                  {"id": 3, "x": 2.0, "y": 2.0}]
    state.track(touch_move([TouchPoint(3, 5, 6)]))
    assert state.touches == {0: (1.0, 1.0), 3: (5.0, 6.0)}
    state.track(touch_end([TouchPoint(0, 1, 1)]))
    assert list(state.touches) == [3]
    state.track(touch_start([TouchPoint(1, 0, 0)]) + touch_end())  # an empty end lifts every finger
    assert state.touches == {}
    state.track(touch_start([TouchPoint(1, 0, 0)]) + touch_cancel())
    assert state.touches == {}
    state.track(drag_event("dragOver", 40, 50, {}))
    assert state.position() == (40.0, 50.0)


# -- the shape of a gesture -------------------------------------------------------------------


def test_moves_are_spread_evenly_and_the_last_lands_at_the_end() -> None:
    assert times(4, 300) == [75.0, 150.0, 225.0, 300.0]
    assert times(1, 0) == [0.0]
    with pytest.raises(ValueError):
        times(0, 100)
    assert line((0, 0), (30, -9), 3) == [(10.0, -3.0), (20.0, -6.0), (30, -9)]
    assert line((1, 1), (5, 5), 1) == [(5, 5)]


def test_the_default_pacing_is_one_move_per_frame_within_bounds() -> None:
    assert step_count(300, None) == round(300 / FRAME_MS) == 18
    assert step_count(0, None) == 1 and step_count(5, None) == 1
    assert step_count(60_000, None) == MAX_STEPS
    assert step_count(300, 3) == 3
    with pytest.raises(ValueError):
        step_count(300, 0)
    with pytest.raises(ValueError):
        step_count(300, MAX_STEPS + 1)


def test_a_stroke_goes_down_moves_and_comes_up_in_time() -> None:
    plan = stroke((0, 0), (90, 30), 3, 300)
    assert [(s.at_ms, s.kind, s.points) for s in plan] == [
        (0.0, "down", ((0, 0),)), (100.0, "move", ((30.0, 10.0),)), (200.0, "move", ((60.0, 20.0),)),
        (300.0, "move", ((90, 30),)), (300, "up", ((90, 30),)),
    ]
    assert [s.kind for s in glide((0, 0), (1, 1), 2, 0)] == ["move", "move"]


@given(scale=st.floats(min_value=0.1, max_value=10).filter(lambda s: s != 1),
       count=st.integers(min_value=1, max_value=MAX_STEPS),
       cx=st.floats(min_value=-1000, max_value=1000), cy=st.floats(min_value=-1000, max_value=1000))
def test_a_pinch_changes_the_fingers_distance_by_exactly_its_scale(scale: float, count: int, cx: float,
                                                                   cy: float) -> None:
    plan = pinch((cx, cy), scale, count, 500)
    assert [s.kind for s in plan] == ["down", *["move"] * count, "up"]
    assert all(len(s.points) == 2 for s in plan)

    def distance(points: tuple) -> float:
        return math.dist(points[0], points[1])

    start, end = distance(plan[0].points), distance(plan[-1].points)
    assert math.isclose(end / start, scale, rel_tol=1e-9)
    assert math.isclose(max(start, end), PINCH_SPAN, rel_tol=1e-9)
    # The fingers stay either side of the centre, on one horizontal line, moving steadily.
    for step in plan:
        (ax, ay), (bx, by) = step.points
        assert ay == by == cy and math.isclose((ax + bx) / 2, cx, abs_tol=1e-6)
    distances = [distance(s.points) for s in plan[1:-1]]
    assert distances == sorted(distances, reverse=scale < 1)


def test_pinch_halves_refuse_a_scale_that_is_not_a_positive_number() -> None:
    assert pinch_halves(2.0) == (75.0, 150.0)
    assert pinch_halves(0.5, span=100) == (50.0, 25.0)
    for bad in (0.0, -1.0, math.inf, math.nan):
        with pytest.raises(ValueError):
            pinch_halves(bad)
