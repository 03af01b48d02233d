"""``gesture_chain`` on firefox: a checked pointer program played as trusted BiDi input.

The program is the one ``tools/canvas.py`` checks whole before anything is touched
(:func:`~browx_actors.tools.canvas.plan_steps`), so a malformed one is refused before the
button goes down. Each step is one ``input.performActions`` of the session's mouse (or
wheel) source: a move paced over its ``ms`` is one ``pointerMove`` with BiDi's own
``duration``, which the browser interpolates frame by frame; a wait is a sleep here. BiDi
keeps the mouse's state between calls, so the tab's pointer (:class:`~..tabs.Tab`) is
told where the chain left it and which button it holds, for the ``mouse_*`` tools after
it. A chain that ends with a wheel answers two frames later, once the page has had the
wheel and the scroll it causes.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

import trio

from ....bidi import BidiError
from ....bidi import input as keys
from ....errors import ToolError
from ....jsonsafe import JsonObject
from ....tools import Reply
from ....tools.canvas import GestureChainArgs, Step, plan_steps
from .actions import perform_input

if TYPE_CHECKING:
    from ..session import FirefoxSession

__all__ = ["gesture_chain"]

#: Two animation frames in the page: a wheel's listeners and the scroll it caused have run.
_TWO_FRAMES = "(agent) => new Promise(done => requestAnimationFrame(() => requestAnimationFrame(() => done(true))))"


def _mouse(actions: list[JsonObject]) -> list[JsonObject]:
    return [{"type": "pointer", "id": "mouse", "parameters": {"pointerType": "mouse"}, "actions": actions}]


def _sources(step: Step, at: tuple[float, float] | None) -> list[JsonObject]:
    """The input of one step (not a wait); ``at`` is where the pointer is before it."""
    if step.kind == "wheel":
        x, y = (step.x, step.y) if step.x is not None and step.y is not None else (at or (0.0, 0.0))
        return keys.wheel(x, y, step.delta_x, step.delta_y)
    assert step.x is not None and step.y is not None, "plan_steps requires them of down, up, move"
    move: JsonObject = {"type": "pointerMove", "x": round(step.x), "y": round(step.y), "origin": "viewport"}
    if step.kind == "move" and step.ms:
        move["duration"] = round(step.ms)
    if step.kind == "down":
        return _mouse([move, {"type": "pointerDown", "button": 0}])
    if step.kind == "up":
        return _mouse([move, {"type": "pointerUp", "button": 0}])
    return _mouse([move])


async def gesture_chain(session: FirefoxSession, args: GestureChainArgs) -> Reply:
    plan = plan_steps(args.steps)
    tab = session.tab
    warnings = list(plan.warnings)
    started = time.perf_counter()
    executed = 0
    for index, step in enumerate(plan.steps):
        if step.kind == "wait":
            await trio.sleep(step.ms / 1000)
        else:
            try:
                await perform_input(session, _sources(step, tab.pointer))
            except BidiError as err:
                raise ToolError("action-failed", f"steps[{index}] ({step.kind}) failed: {err.message or err.error}",
                                stepsExecuted=executed) from err
            if step.x is not None and step.y is not None:
                tab.pointer = (step.x, step.y)
            if step.kind == "down":
                tab.buttons.add("left")
            elif step.kind == "up":
                tab.buttons.discard("left")
        executed += 1
    if plan.steps[-1].kind == "wheel":
        await session.in_sandbox(_TWO_FRAMES)
    if "left" in tab.buttons:
        warnings.append("the chain ended with the mouse button down; an up step (here or in the next call) "
                        "releases it")
    return Reply.of(stepsExecuted=executed, totalDurationMs=round((time.perf_counter() - started) * 1000, 1),
                    warnings=warnings)
