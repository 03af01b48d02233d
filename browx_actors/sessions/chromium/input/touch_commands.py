"""Touch input as raw CDP commands: ``Input.dispatchTouchEvent`` and touch emulation.

Chromium keeps the set of touch points that are down on the tab, and an event lists
only the points it concerns (checked on Chromium 156):

- ``touchStart`` presses each listed point that is not down (one ``pointerdown`` each,
  a distinct ``pointerId`` per finger; the first down is the primary pointer);
- ``touchMove`` moves the listed points, the others stay where they are;
- ``touchEnd`` lifts the listed points, or every point when the list is empty;
- ``touchCancel`` cancels every point (``pointercancel``, ``touchcancel``).

A point's ``id`` is the ``Touch.identifier`` the page sees; the ``pointerId`` of its
pointer events is the browser's own. Pure: functions return ``(method, params)``
commands.
"""

from __future__ import annotations

from collections.abc import Iterable

import attrs

from ....tools.pointer import MAX_TOUCH_POINTS
from .commands import Command

__all__ = [
    "MAX_TOUCH_POINTS",
    "TOUCH_KINDS",
    "TouchPoint",
    "touch_cancel",
    "touch_emulation",
    "touch_end",
    "touch_move",
    "touch_start",
]

TOUCH_KINDS = ("touchStart", "touchMove", "touchEnd", "touchCancel")


@attrs.frozen
class TouchPoint:
    id: int
    x: float
    y: float


def _event(kind: str, points: Iterable[TouchPoint]) -> Command:
    return ("Input.dispatchTouchEvent",
            {"type": kind, "touchPoints": [{"x": p.x, "y": p.y, "id": p.id} for p in points], "modifiers": 0})


def touch_start(points: Iterable[TouchPoint]) -> list[Command]:
    """Put the points down (points already down would move instead: list new ones)."""
    return [_event("touchStart", points)]


def touch_move(points: Iterable[TouchPoint]) -> list[Command]:
    """Move the listed points; points down but not listed stay where they are."""
    return [_event("touchMove", points)]


def touch_end(points: Iterable[TouchPoint] = ()) -> list[Command]:
    """Lift the listed points where they are given, or every point for an empty list."""
    return [_event("touchEnd", points)]


def touch_cancel() -> list[Command]:
    """Cancel every point down: what a gesture interrupted half way sends."""
    return [_event("touchCancel", ())]


def touch_emulation(enabled: bool = True) -> list[Command]:
    """Make the tab a touch device (``navigator.maxTouchPoints``, touch media features;
    documents loaded afterwards also get ``ontouchstart``). Touch events reach a page
    without it; pages that ask whether the device has touch need it."""
    return [("Emulation.setTouchEmulationEnabled", {"enabled": enabled, "maxTouchPoints": MAX_TOUCH_POINTS})]
