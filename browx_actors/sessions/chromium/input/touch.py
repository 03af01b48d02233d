"""Touch: touch_start, touch_move, touch_end, gesture_swipe, gesture_pinch.

Real touch points over ``Input.dispatchTouchEvent`` (:mod:`.touch_commands`): the page
sees ``touchstart`` / ``touchmove`` / ``touchend`` with each finger's identifier, and
pointer events of type ``touch``, one ``pointerId`` per finger. A tab gets touch
emulation on its first touch (``navigator.maxTouchPoints`` says 10 from then on;
documents loaded afterwards also have ``ontouchstart``), which the result reports.

``touch_start`` / ``touch_move`` / ``touch_end`` are the raw fingers, several at once:
points are ``{x, y, id?}`` (``id`` defaults to the point's place in the list), and the
tab's :class:`~.state.InputState` knows which are down, so a move names fingers
that are down and ``touch_end`` without ids lifts all of them. ``touch_move`` can be
paced (``durationMs``, ``steps``) like a hand's.

``gesture_swipe {from, to, durationMs}`` is one finger down, paced moves, up;
``gesture_pinch {center, scale, durationMs}`` two fingers either side of the centre
moving apart or together until their distance has changed by ``scale``
(:func:`~.motion.pinch`). A gesture interrupted half way cancels its touches
(``touchcancel``), so no finger stays down.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ....errors import ToolError
from ....jsonsafe import JsonObject
from ....tools import Reply
from ....tools.pointer import GesturePinchArgs, GestureSwipeArgs, TouchEndArgs, TouchMoveArgs, TouchStartArgs, touch_ids
from ....tools.shapes import TouchPoint as Finger
from ....tools.targets import Target
from .actions import Report, run_steps
from .motion import Point, Step, line, pinch, step_count, stroke, times
from .playback import letting_go, play
from .pointer import state_of
from .send import release_input, send_input
from .state import InputState
from .target import aim, aimed_at, point_for
from .touch_commands import (
    MAX_TOUCH_POINTS,
    TouchPoint,
    touch_cancel,
    touch_emulation,
    touch_end,
    touch_move,
    touch_start,
)

if TYPE_CHECKING:
    from ..session import ChromiumSession

__all__ = ["gesture_pinch", "gesture_swipe", "touch_end_tool", "touch_move_tool", "touch_start_tool"]

#: The narrowest and widest pinch, as the factor by which the fingers' distance changes.
SCALE_MIN, SCALE_MAX = 0.1, 10.0


def _touch_points(points: list[Finger]) -> list[TouchPoint]:
    return [TouchPoint(i, float(p["x"]), float(p["y"])) for i, p in zip(touch_ids(points), points, strict=True)]


async def _ensure_touch(session: ChromiumSession, reply: Reply) -> None:
    """Touch emulation for the tab, the first time it is touched."""
    state = state_of(session)
    if not state.touch_emulation:
        await send_input(session, "touch", touch_emulation(True))
        reply["touchEmulation"] = "enabled"
        reply.warn("touch emulation is now on for this tab (navigator.maxTouchPoints is 10); a page that "
                   "detects touch when it loads sees it after the next navigation")


async def _target_at(session: ChromiumSession, point: Point, reply: Reply) -> JsonObject | None:
    found = await aim(session, Target(coords={"x": point[0], "y": point[1]}))
    return aimed_at(reply, found["target"])


def _free_ids(state: InputState, count: int) -> list[int]:
    free = [i for i in range(MAX_TOUCH_POINTS) if i not in state.touches]
    if len(free) < count:
        raise ToolError("bad-arg", f"{len(state.touches)} fingers are down already; touch_end lifts them",
                        field="points")
    return free[:count]


def _touches_report(session: ChromiumSession) -> Report:
    """``touches`` (the fingers down) after the call, whether it ran to its end or a
    dialog cut it short (the touches it sent are down, or up, all the same)."""

    def report(reply: Reply, interrupted: bool) -> None:
        reply["touches"] = state_of(session).describe_touches()

    return report


# -- the raw fingers ------------------------------------------------------------------


async def touch_start_tool(session: ChromiumSession, args: TouchStartArgs) -> Reply:
    points = _touch_points(args.points)

    async def steps(reply: Reply) -> tuple[JsonObject | None, str]:
        state = state_of(session)
        down = [p.id for p in points if p.id in state.touches]
        if down:
            raise ToolError("bad-arg", f"touch point {down[0]} is already down; touch_move moves it",
                            field="points")
        if len(state.touches) + len(points) > MAX_TOUCH_POINTS:
            raise ToolError("bad-arg", f"at most {MAX_TOUCH_POINTS} fingers can be down at once", field="points")
        await _ensure_touch(session, reply)
        target = await _target_at(session, (points[0].x, points[0].y), reply)
        await send_input(session, "touch_start", touch_start(points))
        return target, "cdp"

    return await run_steps(session, "touch_start", steps, report=_touches_report(session))


async def touch_move_tool(session: ChromiumSession, args: TouchMoveArgs) -> Reply:
    points = _touch_points(args.points)

    async def steps(reply: Reply) -> tuple[JsonObject | None, str]:
        state = state_of(session)
        up = [p.id for p in points if p.id not in state.touches]
        if up:
            raise ToolError("bad-arg", f"touch point {up[0]} is not down; touch_start puts it down", field="points")
        target = await _target_at(session, (points[0].x, points[0].y), reply)  # marks the page before the move
        count = step_count(args.duration_ms, args.steps)
        ids = [p.id for p in points]
        paths = [line(state.touches[p.id], (p.x, p.y), count) for p in points]
        plan = [Step(at, "move", tuple(path[k] for path in paths))
                for k, at in enumerate(times(count, args.duration_ms))]
        await _play_touch(session, "touch_move", plan, ids)
        reply["moves"] = count
        return target, "cdp"

    return await run_steps(session, "touch_move", steps, report=_touches_report(session), frame=True)


async def touch_end_tool(session: ChromiumSession, args: TouchEndArgs) -> Reply:
    async def steps(reply: Reply) -> tuple[JsonObject | None, str]:
        state = state_of(session)
        ids = sorted(state.touches) if args.ids is None else [int(i) for i in args.ids]
        if not state.touches:
            raise ToolError("bad-arg", "no finger is down on this tab", field="ids")
        up = [i for i in ids if i not in state.touches]
        if up:
            raise ToolError("bad-arg", f"touch point {up[0]} is not down (down: {sorted(state.touches)})",
                            field="ids")
        lifted = [TouchPoint(i, *state.touches[i]) for i in ids]
        target = await _target_at(session, (lifted[0].x, lifted[0].y), reply)
        await send_input(session, "touch_end", touch_end(lifted if args.ids is not None else ()))
        return target, "cdp"

    return await run_steps(session, "touch_end", steps, report=_touches_report(session))


# -- gestures -------------------------------------------------------------------------


async def _play_touch(session: ChromiumSession, action: str, plan: list[Step], ids: list[int]) -> float:
    """A finger plan (one point per id at each step) as touch events, cancelled if interrupted."""

    def points(step: Step) -> list[TouchPoint]:
        return [TouchPoint(i, x, y) for i, (x, y) in zip(ids, step.points, strict=True)]

    async def send(step: Step) -> None:
        if step.kind == "down":
            commands = touch_start(points(step))
        elif step.kind == "move":
            commands = touch_move(points(step))
        else:
            commands = touch_end(points(step))
        await send_input(session, action, commands)

    async with letting_go(lambda: release_input(session, action, touch_cancel())):
        return await play(plan, send)


async def gesture_swipe(session: ChromiumSession, args: GestureSwipeArgs) -> Reply:
    async def steps(reply: Reply) -> tuple[JsonObject | None, str]:
        state = state_of(session)
        start, target = await point_for(session, args.from_, reply, mark=True)
        aimed_at(reply, target)
        end, _ = await point_for(session, args.to, reply, mark=False, scroll=False)
        ids = _free_ids(state, 1)
        await _ensure_touch(session, reply)
        plan = stroke(start, end, step_count(args.duration_ms, args.steps), args.duration_ms)
        elapsed = await _play_touch(session, "gesture_swipe", plan, ids)
        reply["swipe"] = {"from": {"x": start[0], "y": start[1]}, "to": {"x": end[0], "y": end[1]},
                          "moves": len(plan) - 2, "durationMs": round(elapsed, 1)}
        return target, "cdp"

    return await run_steps(session, "gesture_swipe", steps, report=_touches_report(session))


async def gesture_pinch(session: ChromiumSession, args: GesturePinchArgs) -> Reply:
    async def steps(reply: Reply) -> tuple[JsonObject | None, str]:
        state = state_of(session)
        center, target = await point_for(session, args.center, reply, mark=True)
        aimed_at(reply, target)
        ids = _free_ids(state, 2)
        await _ensure_touch(session, reply)
        plan = pinch(center, args.scale, step_count(args.duration_ms, args.steps), args.duration_ms,
                     span=args.distance)
        elapsed = await _play_touch(session, "gesture_pinch", plan, ids)
        (a0, b0), (a1, b1) = plan[0].points, plan[-1].points
        reply["pinch"] = {"center": {"x": center[0], "y": center[1]}, "scale": args.scale,
                          "startDistance": round(b0[0] - a0[0], 2), "endDistance": round(b1[0] - a1[0], 2),
                          "moves": len(plan) - 2, "durationMs": round(elapsed, 1)}
        return target, "cdp"

    return await run_steps(session, "gesture_pinch", steps, report=_touches_report(session))


