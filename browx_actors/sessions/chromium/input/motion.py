"""The shape of a gesture in time: paths, pacing and the two fingers of a pinch.

A gesture is a list of :class:`Step` values, each *when* (milliseconds from its start),
*what* (``down``, ``move``, ``up``) and *where* (one point for a mouse or a finger, two
for a pinch). The tools turn steps into the engine's input (mouse, touch or drag
events) and :func:`~.playback.play` sends each at its time. Everything here is pure
arithmetic, so a swipe's timing and a pinch's geometry are tested without a browser or
a clock.

Pacing: ``steps`` moves spread evenly over ``duration_ms``, the last one landing at the
end, so a 300 ms swipe lifts its finger 300 ms after it went down. Without an explicit
``steps`` a gesture moves once per display frame (:data:`FRAME_MS`), which is what a
hand on a 60 Hz screen produces and what rAF-aligned pages expect; never more than
:data:`MAX_STEPS` moves.
"""

from __future__ import annotations

import math

import attrs

from ....tools.targets import GESTURE_MAX_MS, GESTURE_MAX_STEPS

__all__ = [
    "FRAME_MS",
    "MAX_DURATION_MS",
    "MAX_STEPS",
    "PINCH_SPAN",
    "Point",
    "Step",
    "glide",
    "line",
    "pinch",
    "pinch_halves",
    "step_count",
    "stroke",
    "times",
]

Point = tuple[float, float]

#: One display frame at 60 Hz, the default spacing of moves.
FRAME_MS = 1000 / 60
#: Most moves in one gesture, and its longest duration in milliseconds (as declared).
MAX_STEPS = GESTURE_MAX_STEPS
MAX_DURATION_MS = GESTURE_MAX_MS
#: Distance between a pinch's two fingers at its wider end, in CSS pixels.
PINCH_SPAN = 300.0


@attrs.frozen
class Step:
    """One moment of a gesture: ``kind`` at ``points``, ``at_ms`` after it began."""

    at_ms: float
    kind: str
    points: tuple[Point, ...]


def step_count(duration_ms: float, steps: int | None) -> int:
    """Moves in a gesture of ``duration_ms``: ``steps`` as given, else one per frame."""
    if steps is not None:
        if not 1 <= steps <= MAX_STEPS:
            raise ValueError(f"steps must be 1 to {MAX_STEPS}, got {steps}")
        return steps
    return max(1, min(MAX_STEPS, round(duration_ms / FRAME_MS)))


def times(count: int, duration_ms: float) -> list[float]:
    """When each of ``count`` evenly spaced moves happens; the last at ``duration_ms``."""
    if count < 1:
        raise ValueError("a gesture has at least one move")
    return [duration_ms * k / count for k in range(1, count + 1)]


def line(start: Point, end: Point, count: int) -> list[Point]:
    """``count`` points from ``start`` (excluded) to ``end`` (included, exactly)."""
    (x0, y0), (x1, y1) = start, end
    points = [(x0 + (x1 - x0) * k / count, y0 + (y1 - y0) * k / count) for k in range(1, count)]
    return [*points, end]


def glide(start: Point, end: Point, count: int, duration_ms: float) -> list[Step]:
    """Moves from ``start`` to ``end`` (a paced pointer move; nothing pressed)."""
    return [Step(at, "move", (p,)) for at, p in zip(times(count, duration_ms), line(start, end, count), strict=True)]


def stroke(start: Point, end: Point, count: int, duration_ms: float) -> list[Step]:
    """Down at ``start``, ``count`` moves to ``end``, up there: a swipe or a drag."""
    moves = glide(start, end, count, duration_ms)
    return [Step(0.0, "down", (start,)), *moves, Step(duration_ms, "up", (end,))]


def pinch_halves(scale: float, span: float = PINCH_SPAN) -> tuple[float, float]:
    """Half the fingers' distance at the start and at the end of a pinch by ``scale``.

    The wider end is ``span`` apart, so spreading by 4 goes from 75 to 300 px and
    pinching to 0.25 from 300 to 75 px: the distance changes by exactly ``scale``.
    """
    if not (math.isfinite(scale) and scale > 0):
        raise ValueError(f"scale must be a positive finite number, got {scale}")
    wide = span / 2
    return (wide / scale, wide) if scale >= 1 else (wide, wide * scale)


def pinch(center: Point, scale: float, count: int, duration_ms: float, span: float = PINCH_SPAN) -> list[Step]:
    """Two fingers either side of ``center`` on a horizontal line, moving apart
    (``scale`` > 1) or together (< 1) in ``count`` moves; both go down first and up last."""
    start, end = pinch_halves(scale, span)
    cx, cy = center

    def pair(half: float) -> tuple[Point, Point]:
        return (cx - half, cy), (cx + half, cy)

    halves = [start + (end - start) * k / count for k in range(1, count)] + [end]
    moves = [Step(at, "move", pair(h)) for at, h in zip(times(count, duration_ms), halves, strict=True)]
    return [Step(0.0, "down", pair(start)), *moves, Step(duration_ms, "up", pair(end))]
