"""A pinch about any point as W3C touch actions: where the fingers go, on which axis,
and the refusal when they would leave the screen (pure, no WDA)."""

from __future__ import annotations

import pytest

from browx_actors.devices.wda_actions import MIN_SPREAD, pinch_actions
from browx_actors.errors import ToolError

SCREEN = (0.0, 0.0, 402.0, 874.0)


def test_pinching_out_spreads_two_touch_fingers_from_the_closest_spread() -> None:
    plan = pinch_actions(200, 437, 3, 400, SCREEN)
    assert plan.start == ((200, 437 - MIN_SPREAD), (200, 437 + MIN_SPREAD))  # the taller axis has more room
    assert plan.end == ((200, 437 - 3 * MIN_SPREAD), (200, 437 + 3 * MIN_SPREAD))
    first, second = plan.actions
    assert first["id"] == "finger1" and second["id"] == "finger2"
    assert first["parameters"] == {"pointerType": "touch"}
    assert [step["type"] for step in first["actions"]] == ["pointerMove", "pointerDown", "pointerMove", "pointerUp"]
    assert first["actions"][2] == {"type": "pointerMove", "duration": 400, "x": 200, "y": 437 - 3 * MIN_SPREAD}


def test_pinching_in_ends_at_the_closest_spread_on_the_axis_with_room() -> None:
    plan = pinch_actions(201, 30, 0.5, 300, SCREEN)  # near the top: the fingers lie across
    assert plan.start == ((201 - 2 * MIN_SPREAD, 30), (201 + 2 * MIN_SPREAD, 30))
    assert plan.end == ((201 - MIN_SPREAD, 30), (201 + MIN_SPREAD, 30))


def test_a_pinch_that_would_leave_the_screen_is_refused_saying_what_it_needs() -> None:
    with pytest.raises(ToolError) as caught:
        pinch_actions(10, 10, 4, 300, SCREEN)
    assert caught.value.code == "bad-arg" and caught.value.details["field"] == "scale"
    assert "needs 160 points between the fingers, and the screen has 18 there" in caught.value.message
