"""The mouse as primitives: mouse_down, mouse_move, mouse_up, mouse_wheel, double_click.

For canvas apps, editors and anything that reads the pointer itself, an agent needs the
mouse the way a hand has it: press here, move there (with the button held, or paced
over time), release, turn the wheel. Each tool sends the session's own trusted input
over raw CDP (:mod:`.commands`), whatever ``--action-input`` says: there is no element to
wait for, and Playwright's mouse would keep a second idea of where the pointer is.

Where: ``coords`` (viewport CSS pixels), or a ``ref`` / ``selector`` (the centre of the
element's part in view, once it is ready as a click's target would be), or nothing, for
where the pointer is now. The tab's :class:`~.state.InputState` keeps that
position and the buttons held, so ``mouse_up`` after ``mouse_down`` needs no
coordinates and a move with a button held reports it, as a drag does. When the
position is not known (no mouse input has placed it yet on this tab, or Playwright
moved the mouse last) a tool that needs it asks for a target instead of guessing.

Every tool answers in the action shape (:mod:`.input.actions`), with ``pointer: {x, y,
buttons}`` after it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ....errors import ToolError
from ....jsonsafe import JsonObject
from ....tools import Reply
from ....tools.pointer import DoubleClickArgs, MouseButtonArgs, MouseMoveArgs, MouseWheelArgs
from ....tools.targets import Aim, Target
from .actions import Report, click_as, run_steps
from .commands import BUTTONS, Command, mouse_move, mouse_press, mouse_release, mouse_wheel
from .motion import Point, Step, glide, step_count
from .playback import play
from .send import send_input
from .state import InputState
from .target import aim, aimed_at, point_at

if TYPE_CHECKING:
    from ..session import ChromiumSession

__all__ = ["WHEEL_LIMIT", "double_click", "mouse_down", "mouse_move_tool", "mouse_up", "mouse_wheel_tool",
           "pointer_report", "state_of", "where"]

#: The largest wheel delta one call turns, either way, in CSS pixels.
WHEEL_LIMIT = 10_000


def state_of(session: ChromiumSession) -> InputState:
    """The current tab's input state."""
    tab = session.tabs.current
    assert tab is not None  # attach_current ran before the handler
    return tab.input


async def where(session: ChromiumSession, target: Aim, reply: Reply, *,
                mark: bool = True) -> tuple[Point, JsonObject | None]:
    """The point a pointer tool acts at and the element there: ``coords``, the element
    ``ref`` / ``selector`` names, or where the pointer is."""
    coords = target.coords
    if coords is None and (target.ref is not None or target.selector is not None):
        point, described = await point_at(session, target, reply, mark=mark)
        return point, aimed_at(reply, described)
    if coords is not None:
        point = (float(coords["x"]), float(coords["y"]))
    else:
        known = state_of(session).position()
        if known is None:
            raise ToolError("bad-arg", "this tab's pointer position is not known (no mouse input has placed it, or "
                            "Playwright moved the mouse last): give coords, ref or selector", field="coords")
        point = known
    found = await aim(session, Target(coords={"x": point[0], "y": point[1]}), mark=mark)
    return point, aimed_at(reply, found["target"])


def pointer_report(session: ChromiumSession) -> Report:
    """``pointer: {x, y, buttons}`` after the call, whether it ran to its end or a dialog
    cut it short (then the input it sent is down all the same: see ``send_input``)."""

    def report(reply: Reply, interrupted: bool) -> None:
        reply["pointer"] = state_of(session).describe()

    return report


def _move_there(state: InputState, point: Point) -> list[Command]:
    """A move to ``point`` first when the pointer is elsewhere (or not known)."""
    return [] if state.position() == point else mouse_move(*point, buttons=state.buttons)


async def mouse_down(session: ChromiumSession, args: MouseButtonArgs) -> Reply:
    button = args.button

    async def steps(reply: Reply) -> tuple[JsonObject | None, str]:
        state = state_of(session)
        if state.buttons & BUTTONS[button]:
            raise ToolError("bad-arg", f"the {button} button is already down on this tab; mouse_up releases it",
                            field="button")
        point, target = await where(session, args, reply)
        commands = _move_there(state, point) + mouse_press(*point, button=button, buttons=state.buttons,
                                                            click_count=args.click_count)
        await send_input(session, "mouse_down", commands, target=args)
        return target, "cdp"

    return await run_steps(session, "mouse_down", steps, report=pointer_report(session))


async def mouse_up(session: ChromiumSession, args: MouseButtonArgs) -> Reply:
    button = args.button

    async def steps(reply: Reply) -> tuple[JsonObject | None, str]:
        state = state_of(session)
        if not state.buttons & BUTTONS[button]:
            reply.warn(f"the {button} button was not down on this tab; released it anyway")
        point, target = await where(session, args, reply)
        commands = _move_there(state, point) + mouse_release(*point, button=button, buttons=state.buttons,
                                                              click_count=args.click_count)
        await send_input(session, "mouse_up", commands, target=args)
        return target, "cdp"

    return await run_steps(session, "mouse_up", steps, report=pointer_report(session))


async def mouse_move_tool(session: ChromiumSession, args: MouseMoveArgs) -> Reply:
    async def steps(reply: Reply) -> tuple[JsonObject | None, str]:
        state = state_of(session)
        end, target = await where(session, args, reply)
        start = state.position()
        if start is None or start == end:
            plan = glide(end, end, 1, 0)
        else:
            plan = glide(start, end, step_count(args.duration_ms, args.steps), args.duration_ms)

        async def move(step: Step) -> None:
            await send_input(session, "mouse_move", mouse_move(*step.points[0], buttons=state.buttons), target=args)

        elapsed = await play(plan, move)
        reply["moves"] = len(plan)
        reply["movedMs"] = round(elapsed, 1)
        return target, "cdp"

    return await run_steps(session, "mouse_move", steps, report=pointer_report(session), frame=True)


async def mouse_wheel_tool(session: ChromiumSession, args: MouseWheelArgs) -> Reply:
    async def steps(reply: Reply) -> tuple[JsonObject | None, str]:
        state = state_of(session)
        point, target = await where(session, args, reply)
        commands = _move_there(state, point) + mouse_wheel(*point, args.delta_x, args.delta_y)
        await send_input(session, "mouse_wheel", commands, target=args)
        return target, "cdp"

    return await run_steps(session, "mouse_wheel", steps, report=pointer_report(session), frame=True)


async def double_click(session: ChromiumSession, args: DoubleClickArgs) -> Reply:
    if args.ref is None and args.selector is None and args.coords is None:
        known = state_of(session).position()
        if known is None:
            raise ToolError("bad-arg", "this tab's pointer position is not known: give coords, ref or selector",
                            field="coords")
        args = args.replace(coords={"x": known[0], "y": known[1]})
    reply = await click_as(session, "double_click", args, 2, args.button, args.modifiers or [])
    reply["pointer"] = state_of(session).describe()
    return reply


