"""Gestures and raw touches on a native screen: gesture_swipe, touch_start / touch_move /
touch_end, gesture_pinch; and screenshot_region.

The tools are declared in ``tools/pointer.py`` (their schemas are engine neutral: points
are ``{ref}``, ``{selector}`` or ``{x, y}`` in the engine's input space); these are the
native handlers, shared by both native engines where both have the primitive:

* ``gesture_swipe``: one finger from a point to a point, re-resolved from a fresh read
  when either is an element: ``input swipe`` on Android, ``/wda/dragfromtoforduration``
  on iOS.
* ``touch_*``: one raw finger through ``input motionevent`` (Android 11+; probed from
  ``input``'s usage text). The session keeps where its finger is, as the web engine keeps
  its touch points; ``input motionevent`` drives a single pointer, so a second finger is
  refused rather than faked. XCUITest has no raw touch pipeline: ios-app has no handler
  and refuses, naming that.
* ``gesture_pinch``: Android refuses with ``native-pinch-needs-multitouch-driver``. On
  iOS a pinch about the app's centre is WebDriverAgent's own (``/wda/pinch``); one about
  any other point is two touch pointers in one W3C actions request
  (:mod:`~browx_actors.devices.wda_actions`), refused naming the room it needs when the
  fingers would leave the screen.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...errors import ToolError
from ...jsonsafe import JsonObject
from ...tools import Reply
from ...tools.page import ScreenshotArgs, ScreenshotRegionArgs
from ...tools.pointer import GesturePinchArgs, GestureSwipeArgs, TouchEndArgs, TouchMoveArgs, TouchStartArgs
from ...tools.shapes import PointTarget, TouchPoint
from ...tools.targets import Target
from .capture import screenshot as capture_screenshot
from .platform import unsupported
from .target import locate_in, point_of, target_json

if TYPE_CHECKING:
    from .session import NativeSession

__all__ = [
    "gesture_pinch", "gesture_swipe", "screenshot_region", "touch_end", "touch_move", "touch_start",
]

#: Most ``input motionevent MOVE`` commands one touch_move sends (each is a JVM start on
#: the device, a few hundred ms apart at best: a dense path cannot be paced anyway).
MAX_MOVES = 10
#: How far from the screen's centre (a share of its size) a pinch is WDA's own, about the app.
PINCH_CENTRE_SLACK = 0.05


async def _points(session: NativeSession, *targets: PointTarget) -> tuple[list[tuple[float, float]],
                                                                          JsonObject | None]:
    """Each point target's point; elements resolved in one fresh read. The first
    element's target description rides along."""
    hierarchy = None
    points = []
    first = None
    for value in targets:
        if "x" in value:
            points.append((float(value["x"]), float(value["y"])))
            continue
        if hierarchy is None:
            hierarchy = await session.read()
        located = locate_in(hierarchy, session.refs, Target.of(value))
        points.append(point_of(located))
        first = first or target_json(located)
    return points, first


def _xy(point: tuple[float, float]) -> dict[str, float]:
    return {"x": round(point[0], 2), "y": round(point[1], 2)}


async def gesture_swipe(session: NativeSession, args: GestureSwipeArgs) -> Reply:
    (start, end), target = await _points(session, args.from_, args.to)
    duration = max(int(args.duration_ms), 1)
    await session.input.swipe(*start, *end, duration)
    return Reply.of(action="gesture_swipe", target=target,
                    swipe={"from": _xy(start), "to": _xy(end), "durationMs": duration}, warnings=[])


# -- raw touches ---------------------------------------------------------------------


def _one_finger(session: NativeSession, points: list[TouchPoint]) -> None:
    if len(points) > 1:
        raise unsupported(session.engine, "more than one finger", "`input motionevent` drives a single pointer; "
                          "real multi-touch needs a device-side UiAutomator2 instrumentation server, which is not "
                          "shipped")


def _id_of(point: TouchPoint) -> int:
    return int(point.get("id", 0))


async def touch_start(session: NativeSession, args: TouchStartArgs) -> Reply:
    _one_finger(session, args.points)
    (point,) = args.points
    touches = session.touches
    finger = _id_of(point)
    if touches:
        raise ToolError("bad-arg", f"touch point {next(iter(touches))} is already down; touch_move moves it, "
                        "touch_end lifts it", field="points")
    at = (float(point["x"]), float(point["y"]))
    await session.input.touch("DOWN", *at)
    touches[finger] = at
    return Reply.of(action="touch_start", touches=[{"id": finger, **_xy(at)}], warnings=[])


async def touch_move(session: NativeSession, args: TouchMoveArgs) -> Reply:
    _one_finger(session, args.points)
    (point,) = args.points
    touches = session.touches
    finger = _id_of(point)
    if finger not in touches:
        raise ToolError("bad-arg", f"touch point {finger} is not down; touch_start puts it down", field="points")
    reply = Reply(warnings=[])
    start, end = touches[finger], (float(point["x"]), float(point["y"]))
    steps = min(int(args.steps or 1), MAX_MOVES)
    if (args.steps or 1) > MAX_MOVES:
        reply.warn(f"{args.steps} steps asked, {MAX_MOVES} sent: each `input motionevent` is its own process "
                   "start on the device")
    for k in range(1, steps + 1):
        at = (start[0] + (end[0] - start[0]) * k / steps, start[1] + (end[1] - start[1]) * k / steps)
        await session.input.touch("MOVE", *at)
    touches[finger] = end
    if args.duration_ms:
        reply.warn("durationMs is not paced on android-app: each move is an `input motionevent` process start")
    reply.fields.update(action="touch_move", moves=steps, touches=[{"id": finger, **_xy(end)}])
    return reply


async def touch_end(session: NativeSession, args: TouchEndArgs) -> Reply:
    touches = session.touches
    if not touches:
        raise ToolError("bad-arg", "no finger is down on this screen", field="ids")
    wanted = sorted(touches) if args.ids is None else [int(i) for i in args.ids]
    missing = [i for i in wanted if i not in touches]
    if missing:
        raise ToolError("bad-arg", f"touch point {missing[0]} is not down (down: {sorted(touches)})", field="ids")
    lifted = []
    for finger in wanted:
        at = touches.pop(finger)
        await session.input.touch("UP", *at)
        lifted.append({"id": finger, **_xy(at)})
    return Reply.of(action="touch_end", lifted=lifted, warnings=[])


# -- pinch ---------------------------------------------------------------------------


async def gesture_pinch(session: NativeSession, args: GesturePinchArgs) -> Reply:
    """A pinch about ``center``: WebDriverAgent's own about the app's centre (``/wda/pinch
    {scale, velocity}``), two touch pointers about any other point."""
    (center,), target = await _points(session, args.center)
    hierarchy = await session.read()
    screen = hierarchy.root.bounds
    scale = float(args.scale)
    ms = max(int(args.duration_ms), 100)
    velocity = (scale - 1) / (ms / 1000)  # scale factor per second: negative pinching in
    pinch: JsonObject = {"center": _xy(center), "scale": scale, "velocity": round(velocity, 4)}
    if screen is not None and not screen.empty and not _near_centre(center, screen.center, screen.width,
                                                                    screen.height):
        pinch.update(await session.input.pinch_at(center[0], center[1], scale, ms, screen))
    else:
        await session.input.pinch(scale, velocity)
    return Reply.of(action="gesture_pinch", target=target, pinch=pinch, warnings=[])


def _near_centre(point: tuple[float, float], centre: tuple[float, float], width: float, height: float) -> bool:
    return abs(point[0] - centre[0]) <= width * PINCH_CENTRE_SLACK and \
        abs(point[1] - centre[1]) <= height * PINCH_CENTRE_SLACK


async def screenshot_region(session: NativeSession, args: ScreenshotRegionArgs, *, jpeg: bool) -> Reply:
    """``screenshot`` with its ``region``: the same checks, capture and answer."""
    shot = ScreenshotArgs(format=args.format, quality=args.quality, max_dimension=args.max_dimension, path=args.path,
                          region={"x": args.x, "y": args.y, "width": args.width, "height": args.height},
                          session=args.session)
    return await capture_screenshot(session, shot, jpeg=jpeg)
