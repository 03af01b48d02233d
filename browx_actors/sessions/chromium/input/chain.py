"""``gesture_chain``: a multi-step pointer program through Playwright's mouse pipeline.

The program is checked whole before any session is touched (``tools/canvas.py``:
:func:`~browx_actors.tools.canvas.plan_steps` and the rules it keeps), so a malformed one
is refused instead of failing halfway with the button held down.

Execution (:func:`run_chain`) is one coroutine on the Playwright thread, so a program
costs one bridge hop and its timing is not stretched by hops between steps. Afterwards
the tab's input state (:mod:`.state`) is told where the chain
left the mouse, so ``mouse_up`` after a chain that ended with the button down, or
``mouse_move`` without coordinates, act where the chain stopped.
"""

from __future__ import annotations

import asyncio
import time
from typing import TYPE_CHECKING

from ....errors import ToolError
from ....tools import Reply
from ....tools.canvas import GestureChainArgs, Plan, plan_steps

if TYPE_CHECKING:
    from playwright.async_api import Page

    from ..session import ChromiumSession
    from .state import InputState

__all__ = ["gesture_chain", "run_chain", "track_chain"]


async def run_chain(page: Page, plan: Plan) -> Reply:
    """Execute the plan on the Playwright thread: how many steps ran, how long they took,
    and the warnings.

    A step Playwright refuses ends the chain with ``action-failed`` naming the step
    and how many ran before it.
    """
    from playwright.async_api import Error as PlaywrightError

    mouse = page.mouse
    warnings = list(plan.warnings)
    executed = 0
    held = False
    started = time.perf_counter()
    for index, step in enumerate(plan.steps):
        try:
            if step.kind == "wait":
                await asyncio.sleep(step.ms / 1000)
            elif step.kind == "wheel":
                if step.x is not None and step.y is not None:  # both or neither (plan_steps)
                    await mouse.move(step.x, step.y)
                await mouse.wheel(step.delta_x, step.delta_y)
            else:
                assert step.x is not None and step.y is not None, "plan_steps requires them of down, up, move"
                await mouse.move(step.x, step.y)
                if step.kind == "down":
                    await mouse.down()
                    held = True
                elif step.kind == "up":
                    await mouse.up()
                    held = False
                elif step.ms:
                    await asyncio.sleep(step.ms / 1000)
        except PlaywrightError as err:
            message = str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__
            raise ToolError("action-failed", f"steps[{index}] ({step.kind}) failed: {message}",
                            stepsExecuted=executed) from err
        executed += 1
    if held:
        warnings.append("the chain ended with the mouse button down; an up step (here or in the next "
                        "call) releases it")
    return Reply.of(stepsExecuted=executed, totalDurationMs=round((time.perf_counter() - started) * 1000, 1),
                    warnings=warnings)


async def gesture_chain(session: ChromiumSession, args: GestureChainArgs) -> Reply:
    plan = plan_steps(args.steps)
    tab = session.tabs.current
    try:
        reply: Reply = await session.pw(run_chain, session.page, plan)
    finally:
        if tab is not None:
            track_chain(tab.input, plan)
    return reply


def track_chain(state: InputState, plan: Plan) -> None:
    """Where a chain leaves the mouse: its last point, and the left button if the last
    down had no up after it (Playwright's mouse presses the left button)."""
    held = False
    for step in plan.steps:
        if step.x is not None and step.y is not None:
            state.moved(step.x, step.y)
        if step.kind in ("down", "up"):
            held = step.kind == "down"
    state.buttons = 1 if held else 0
