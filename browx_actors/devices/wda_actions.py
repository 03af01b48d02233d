"""A two-finger pinch about any point, as W3C pointer actions WebDriverAgent performs.

WDA's own pinch (``/wda/pinch``, XCUIElement's ``pinchWithScale:velocity:``) works about
the centre of the element it is sent to: the app, so the screen's centre. A pinch about
another point is two ``touch`` pointers in one ``POST /session/{id}/actions``, which WDA
synthesises as one multi-touch gesture (XCTest's event synthesis): both fingers go down
either side of the point, move apart (``scale`` above 1) or together (below 1) over the
same duration, and lift.

The fingers lie on the axis with more room about the point: a finger off the screen is
no touch, so a pinch that cannot fit is refused, saying how much room it needs and has.
Pure: no I/O; points are WDA's (the screen's points, not pixels).
"""

from __future__ import annotations

import attrs

from ..errors import ToolError
from ..jsonsafe import JsonObject

__all__ = ["MIN_SPREAD", "PinchPlan", "pinch_actions"]

#: Half the distance between the fingers at the closer end of the pinch: nearer than
#: this, two touches read as one.
MIN_SPREAD = 20.0


@attrs.frozen
class PinchPlan:
    """Where the two fingers start and end, and the W3C actions that move them."""

    start: tuple[tuple[float, float], tuple[float, float]]
    end: tuple[tuple[float, float], tuple[float, float]]
    actions: list[JsonObject]


def pinch_actions(x: float, y: float, scale: float, duration_ms: int,
                  screen: tuple[float, float, float, float]) -> PinchPlan:
    """The plan for a pinch by ``scale`` about (x, y) on ``screen`` (x, y, width, height)."""
    left, top, width, height = screen
    near, far = (MIN_SPREAD, MIN_SPREAD * scale) if scale >= 1 else (MIN_SPREAD / scale, MIN_SPREAD)
    room_x = min(x - left, left + width - x) - 1
    room_y = min(y - top, top + height - y) - 1
    room = max(room_x, room_y)
    if max(near, far) > room:
        raise ToolError("bad-arg", f"a pinch by {scale:g} about ({x:g}, {y:g}) needs {2 * max(near, far):g} points "
                        f"between the fingers, and the screen has {max(2 * room, 0):g} there (centre it further "
                        "from the edge, or pinch by less)", field="scale")
    dx, dy = (1.0, 0.0) if room_x >= room_y else (0.0, 1.0)

    def fingers(spread: float) -> tuple[tuple[float, float], tuple[float, float]]:
        return (x - dx * spread, y - dy * spread), (x + dx * spread, y + dy * spread)

    start, end = fingers(near), fingers(far)
    actions: list[JsonObject] = [
        {"type": "pointer", "id": f"finger{n + 1}", "parameters": {"pointerType": "touch"}, "actions": [
            {"type": "pointerMove", "duration": 0, "x": start[n][0], "y": start[n][1]},
            {"type": "pointerDown", "button": 0},
            {"type": "pointerMove", "duration": duration_ms, "x": end[n][0], "y": end[n][1]},
            {"type": "pointerUp", "button": 0},
        ]}
        for n in (0, 1)
    ]
    return PinchPlan(start, end, actions)
