"""Raw input: the mouse (mouse_*, double_click), touch (touch_*, gesture_swipe, gesture_pinch)
and drag.

Each takes its target as an element (ref or selector), a point, or where the pointer (or
finger) already is, and answers in the action shape with what its devices hold after it:
``pointer`` (where the mouse is, which buttons are down) and ``touches``.
"""

from __future__ import annotations

from ..errors import ToolError
from .arguments import arg, arguments, param
from .contract import ACTS, SessionArgs, session_tool
from .params import COORDINATE, Param
from .rules import Check, JsonArgs
from .shapes import Point, PointTarget, TouchPoint
from .targets import (
    BUTTON,
    COORDS,
    MODIFIERS,
    OPTIONAL_TARGET,
    REF,
    SELECTOR,
    STEPS,
    duration,
    one_point_target,
    point_target,
)

__all__ = ["MAX_TOUCH_POINTS", "touch_ids"]

#: Fingers down at once: ids 0 to 9.
MAX_TOUCH_POINTS = 10

_CLICK_COUNT = Param("clickCount", "integer", "2 for the second press of a double click.", default=1,
                     minimum=1, maximum=3)
_ID = {"type": "integer", "minimum": 0, "maximum": MAX_TOUCH_POINTS - 1}
_POINTS = Param("points", "array",
                f"Viewport CSS pixels; id 0-{MAX_TOUCH_POINTS - 1}, by default the point's index.",
                required=True, items="object", min_items=1, max_items=MAX_TOUCH_POINTS,
                properties={"x": COORDINATE, "y": COORDINATE, "id": _ID}, required_keys=("x", "y"))


def touch_ids(points: list[TouchPoint]) -> list[int]:
    """Each point's finger: its ``id``, else its place in the list."""
    return [int(p["id"]) if "id" in p else i for i, p in enumerate(points)]


def _distinct_ids(args: JsonArgs) -> None:
    ids = touch_ids(args["points"])
    if len(set(ids)) != len(ids):
        raise ToolError("bad-arg", f"two points share an id ({ids}); each finger has its own", field="points")


_DISTINCT = Check(_distinct_ids, "each point of `points` has its own `id`")


def _wheel_turns(args: JsonArgs) -> None:
    if args["deltaX"] == 0 and args["deltaY"] == 0:
        raise ToolError("bad-arg", "give a non-zero deltaX or deltaY", field="deltaY")


def _scale_changes(args: JsonArgs) -> None:
    if args["scale"] == 1:
        raise ToolError("bad-arg", "scale 1 moves nothing: above 1 spreads the fingers (zoom in), below 1 brings "
                        "them together", field="scale")


@arguments
class MouseButtonArgs(SessionArgs):
    """mouse_down's arguments."""

    ref: str | None = arg(REF)
    selector: str | None = arg(SELECTOR)
    coords: Point | None = arg(COORDS)
    button: str = arg(BUTTON)
    click_count: int = arg(_CLICK_COUNT)


MOUSE_DOWN = session_tool(
    "mouse_down", MouseButtonArgs,
    title="Mouse down", capability="action", hints=ACTS,
    summary="Press a mouse button and hold it until mouse_up (custom drags, long presses).",
    description="Press a mouse button at coords, an element (ref or selector), or where the pointer is; it stays down"
        " until mouse_up. Moves there first.",
    rules=(OPTIONAL_TARGET,),
)


@arguments
class MouseMoveArgs(SessionArgs):
    """mouse_move's arguments."""

    ref: str | None = arg(REF)
    selector: str | None = arg(SELECTOR)
    coords: Point | None = arg(COORDS)
    steps: int | None = arg(STEPS)
    duration_ms: int = arg(duration(0))


MOUSE_MOVE = session_tool(
    "mouse_move", MouseMoveArgs,
    title="Mouse move", capability="action", hints=ACTS,
    summary="Move the mouse, with any held buttons (a drag), to an element or a point.",
    description="Move the mouse to coords or an element (ref or selector), with any held buttons (a drag); durationMs"
        " paces the move from where the pointer is in steps (one per frame by default; with durationMs 0 the "
        "steps go back to back and a page may see them coalesced). Without a target, moves in place. steps "
        "defaults to one per 60 Hz frame of durationMs, at least 1.",
    rules=(OPTIONAL_TARGET,),
)


MOUSE_UP = session_tool(
    "mouse_up", MouseButtonArgs,
    title="Mouse up", capability="action", hints=ACTS,
    summary="Release a mouse button held since mouse_down, at a target or where the pointer is.",
    description="Release a mouse button at coords, an element (ref or selector), or where the pointer is (moving "
        "there first, with the button still held).",
    rules=(OPTIONAL_TARGET,),
)


@arguments
class MouseWheelArgs(SessionArgs):
    """mouse_wheel's arguments."""

    delta_x: float = param("deltaX", "number", "Horizontal pixels (positive: right).", default=0, minimum=-10000,
                           maximum=10000)
    delta_y: float = param("deltaY", "number", "Vertical pixels (positive: down).", default=0, minimum=-10000,
                           maximum=10000)
    ref: str | None = arg(REF)
    selector: str | None = arg(SELECTOR)
    coords: Point | None = arg(COORDS)


MOUSE_WHEEL = session_tool(
    "mouse_wheel", MouseWheelArgs,
    title="Mouse wheel", capability="action", hints=ACTS,
    summary="Turn the mouse wheel: scrolls whatever is under the pointer, as a user's wheel does.",
    description="Turn the mouse wheel by deltaX / deltaY CSS pixels over coords, an element (ref or selector), or "
        "where the pointer is: what scrolls is what is under the pointer, as for a user.",
    rules=(OPTIONAL_TARGET, Check(_wheel_turns, "a non-zero `deltaX` or `deltaY`"),),
)


@arguments
class DoubleClickArgs(SessionArgs):
    """double_click's arguments."""

    ref: str | None = arg(REF)
    selector: str | None = arg(SELECTOR)
    coords: Point | None = arg(COORDS)
    button: str = arg(BUTTON)
    modifiers: list[str] | None = arg(MODIFIERS)


DOUBLE_CLICK = session_tool(
    "double_click", DoubleClickArgs,
    title="Double click", capability="action", hints=ACTS,
    summary="Double-click an element, a point, or where the pointer is; the page sees dblclick.",
    description="Double-click an element (ref or selector), coords, or where the pointer is: two presses with rising "
        "click counts, so the page sees dblclick.",
    rules=(OPTIONAL_TARGET,),
)


@arguments
class TouchStartArgs(SessionArgs):
    """touch_start's arguments."""

    points: list[TouchPoint] = arg(_POINTS)


TOUCH_START = session_tool(
    "touch_start", TouchStartArgs,
    title="Touch start", capability="action", hints=ACTS,
    summary="Put one or more fingers down at viewport points; they stay down until touch_end.",
    description="Put one or more fingers down at viewport points; they stay down until touch_end. The page gets "
        "touchstart and pointerdown (pointerType touch), one pointer per finger.",
    rules=(_DISTINCT,),
)


@arguments
class TouchMoveArgs(SessionArgs):
    """touch_move's arguments."""

    points: list[TouchPoint] = arg(_POINTS)
    steps: int | None = arg(STEPS)
    duration_ms: int = arg(duration(0))


TOUCH_MOVE = session_tool(
    "touch_move", TouchMoveArgs,
    title="Touch move", capability="action", hints=ACTS,
    summary="Move fingers that are down to new points; fingers not listed stay put.",
    description="Move fingers that are down to new viewport points (the others stay put); durationMs and steps pace "
        "the move (steps defaults to one per 60 Hz frame of durationMs, at least 1).",
    rules=(_DISTINCT,),
)


@arguments
class TouchEndArgs(SessionArgs):
    """touch_end's arguments."""

    ids: list[int] | None = param("ids", "array", "",
                                  items="integer", minimum=0, maximum=MAX_TOUCH_POINTS - 1, min_items=1,
                                  max_items=MAX_TOUCH_POINTS)


TOUCH_END = session_tool(
    "touch_end", TouchEndArgs,
    title="Touch end", capability="action", hints=ACTS,
    summary="Lift fingers where they are: those in ids, or every finger that is down.",
)


@arguments
class GestureSwipeArgs(SessionArgs):
    """gesture_swipe's arguments."""

    from_: PointTarget = arg(point_target("from", "Where the finger goes down"))
    to: PointTarget = arg(point_target("to", "Where it lifts"))
    duration_ms: int = arg(duration(300))
    steps: int | None = arg(STEPS)


GESTURE_SWIPE = session_tool(
    "gesture_swipe", GestureSwipeArgs,
    title="Swipe", capability="action", hints=ACTS,
    summary="Swipe one finger from one point to another over durationMs (down, paced moves, up).",
    description="Swipe one finger from one point to another over durationMs (down, paced moves, up). from and to are "
        "each {ref}, {selector} or {x, y} (viewport CSS pixels); steps defaults to one per 60 Hz frame of "
        "durationMs, at least 1.",
    rules=(one_point_target("from", "to"),),
)


@arguments
class GesturePinchArgs(SessionArgs):
    """gesture_pinch's arguments."""

    center: PointTarget = arg(point_target("center", "The point between the fingers"))
    scale: float = param("scale", "number", "Factor by which the fingers' distance changes.", required=True,
                         minimum=0.1, maximum=10.0)
    duration_ms: int = arg(duration(500))
    steps: int | None = arg(STEPS)
    distance: float = param("distance", "number", "The fingers' distance at the wider end, in CSS pixels.",
                            default=300, minimum=20, maximum=2000)


GESTURE_PINCH = session_tool(
    "gesture_pinch", GesturePinchArgs,
    title="Pinch", capability="action", hints=ACTS,
    summary="Pinch two touch points about center: scale above 1 zooms in, below 1 zooms out.",
    description="Pinch with two real touch points either side of center: scale above 1 spreads them (zoom in), below "
        "1 brings them together, until their distance has changed by scale. center is {ref}, {selector} or "
        "{x, y} (viewport CSS pixels); steps defaults to one per 60 Hz frame of durationMs, at least 1.",
    rules=(one_point_target("center"), Check(_scale_changes, "`scale` is not 1")),
)


@arguments
class DragArgs(SessionArgs):
    """drag's arguments."""

    from_: PointTarget = arg(point_target("from", "Where it starts (pressed)"))
    to: PointTarget = arg(point_target("to", "Where it drops (released)"))
    duration_ms: int = arg(duration(250))
    steps: int | None = arg(STEPS)


DRAG = session_tool(
    "drag", DragArgs,
    title="Drag", capability="action", hints=ACTS,
    summary="Drag with the mouse from one point to another; works for HTML5 drag and drop too.",
    description="Drag from one point to another with the mouse (press, paced moves with the button held, release); a "
        "page that uses HTML5 drag and drop gets dragstart, dragenter, dragover, drop and dragend. from and "
        "to are each {ref}, {selector} or {x, y} (viewport CSS pixels); steps defaults to one per 60 Hz frame "
        "of durationMs, at least 1.",
    rules=(one_point_target("from", "to"),),
)
