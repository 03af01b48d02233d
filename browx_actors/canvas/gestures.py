"""``gesture_chain``: a multi-step pointer program through Playwright's mouse pipeline.

Validation is pure (:func:`plan_steps`) and runs before any session is touched, so a
malformed program is refused whole (``bad-arg`` naming ``steps[i].field``) instead of
failing halfway with the button held down. The rules are the spec's:

- ``down`` / ``up`` / ``move`` need numeric ``x`` and ``y`` (viewport CSS pixels);
  ``move`` takes an optional ``ms`` pacing delay after the move, floored at 5 ms with
  a warning (tighter pacing rarely changes app behaviour and starves the renderer);
- ``wait`` sleeps ``ms``, clamped at 5000 ms with a warning;
- ``wheel`` needs a non-zero ``deltaX`` or ``deltaY`` and may move to ``x, y`` first;
- at most 200 steps (``too-many-steps``);
- ``pointerId`` is accepted and routed through the single mouse; several distinct
  ids in one program get a warning naming the touch tools (``touch_start`` /
  ``touch_move`` / ``touch_end``, ``gesture_pinch``, ``gesture_swipe``), which send
  real touch points, one per finger.

Execution (:func:`run_chain`) is one coroutine on the Playwright thread, so a program
costs one bridge hop and its timing is not stretched by hops between steps. Afterwards
the tab's input state (``sessions/chromium/input_state.py``) is told where the chain
left the mouse, so ``mouse_up`` after a chain that ended with the button down, or
``mouse_move`` without coordinates, act where the chain stopped.
"""

from __future__ import annotations

import asyncio
import math
import time
from typing import Any

import attrs

from ..errors import ToolError
from ..tools import Args, Check, Param, Reply, session_tool
from ..tools.contract import SESSION_CALL_TIMEOUT
from ..tools.params import COORDINATE, MAX_COORDINATE, MAX_ID

__all__ = ["MAX_STEPS", "MAX_WAIT_MS", "MIN_MOVE_MS", "MULTI_TOUCH", "MULTI_TOUCH_TOOLS", "Plan", "Step",
           "gesture_chain", "plan_steps", "run_chain", "track_chain"]

MAX_STEPS = 200
MIN_MOVE_MS = 5
#: Where a program that wants several pointers goes instead: real touch points.
MULTI_TOUCH_TOOLS = ("touch_start", "touch_move", "touch_end", "gesture_pinch", "gesture_swipe")
MULTI_TOUCH = ("several pointers at once use touch_start / touch_move / touch_end (one finger per point), "
               "gesture_pinch (two fingers) or gesture_swipe")
MAX_WAIT_MS = 5000
KINDS = ("down", "up", "move", "wait", "wheel")
#: What the dispatch checks of every step before the plan's own rules run: each number
#: finite and in range (a move to x=1e308 hung the browser's input pipeline).
STEP_PROPERTIES = {
    "kind": {"type": "string", "enum": list(KINDS)},
    "x": COORDINATE,
    "y": COORDINATE,
    "deltaX": {"type": "number", "minimum": -10 * MAX_COORDINATE, "maximum": 10 * MAX_COORDINATE},
    "deltaY": {"type": "number", "minimum": -10 * MAX_COORDINATE, "maximum": 10 * MAX_COORDINATE},
    "ms": {"type": "number", "minimum": 0, "maximum": MAX_ID},
    "pointerId": {"type": "number", "minimum": -MAX_ID, "maximum": MAX_ID},
}
_KEYS = frozenset(STEP_PROPERTIES)


@attrs.frozen
class Step:
    kind: str
    x: float | None = None
    y: float | None = None
    delta_x: float = 0.0
    delta_y: float = 0.0
    #: Delay after the step in milliseconds (a move's pacing or a wait), already clamped.
    ms: float = 0.0


@attrs.frozen
class Plan:
    steps: tuple[Step, ...]
    warnings: tuple[str, ...]

    @property
    def planned_ms(self) -> float:
        return sum(s.ms for s in self.steps)


def _bad(message: str, field: str) -> ToolError:
    return ToolError("bad-arg", message, field=field)


def _number(step: dict[str, Any], key: str, where: str, *, required: bool) -> float | None:
    value = step.get(key)
    if value is None:
        if required:
            raise _bad(f"{where}.{key} is required for {step['kind']} steps", f"{where}.{key}")
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise _bad(f"{where}.{key} must be a number, got {type(value).__name__}", f"{where}.{key}")
    try:
        number = float(value)
    except OverflowError:
        number = math.inf
    if not math.isfinite(number):
        raise _bad(f"{where}.{key} must be a finite number", f"{where}.{key}")
    return number


def plan_steps(steps: Any) -> Plan:
    """Checked, clamped steps and the warnings clamping produced; raises on any bad step."""
    if not isinstance(steps, list):
        raise _bad("steps must be an array of step objects", "steps")
    if len(steps) > MAX_STEPS:
        raise ToolError("too-many-steps", f"{len(steps)} steps is more than the {MAX_STEPS} a chain may "
                        "hold; split the program across several gesture_chain calls",
                        stepCount=len(steps), maxSteps=MAX_STEPS)
    if not steps:
        raise _bad("steps is empty: give at least one step", "steps")
    planned: list[Step] = []
    warnings: list[str] = []
    pointer_ids: set[Any] = set()
    for index, step in enumerate(steps):
        where = f"steps[{index}]"
        if not isinstance(step, dict):
            raise _bad(f"{where} must be an object like {{kind, x, y}}", where)
        unknown = sorted(set(step) - _KEYS)
        if unknown:
            raise _bad(f"unknown key {unknown[0]!r} in {where} (known: {', '.join(sorted(_KEYS))})",
                       f"{where}.{unknown[0]}")
        kind = step.get("kind")
        if kind not in KINDS:
            raise _bad(f"{where}.kind must be one of {', '.join(KINDS)}, got {kind!r}", f"{where}.kind")
        pointer = step.get("pointerId")
        if pointer is not None:
            if isinstance(pointer, bool) or not isinstance(pointer, (int, float)):
                raise _bad(f"{where}.pointerId must be a number", f"{where}.pointerId")
            pointer_ids.add(pointer)
        planned.append(_plan_one(step, kind, where, warnings))
    if len(pointer_ids) > 1:
        warnings.append(f"{len(pointer_ids)} pointerIds were given, but every step routes through the "
                        f"single mouse pointer; for {MULTI_TOUCH}")
    return Plan(tuple(planned), tuple(warnings))


def _plan_one(step: dict[str, Any], kind: str, where: str, warnings: list[str]) -> Step:
    if kind in ("down", "up", "move"):
        x = _number(step, "x", where, required=True)
        y = _number(step, "y", where, required=True)
        for key in ("deltaX", "deltaY"):
            if step.get(key) is not None:
                raise _bad(f"{where}.{key} belongs to wheel steps, not {kind}", f"{where}.{key}")
        ms = _number(step, "ms", where, required=False) if kind == "move" else None
        if kind != "move" and step.get("ms") is not None:
            raise _bad(f"{where}.ms belongs to move and wait steps, not {kind}", f"{where}.ms")
        if ms is not None and ms < MIN_MOVE_MS:
            warnings.append(f"{where}: move pacing {ms:g} ms raised to the {MIN_MOVE_MS} ms floor")
            ms = MIN_MOVE_MS
        return Step(kind, x, y, ms=ms or 0.0)
    if kind == "wait":
        ms = _number(step, "ms", where, required=True)
        assert ms is not None
        if ms < 0:
            raise _bad(f"{where}.ms must be at least 0", f"{where}.ms")
        if ms > MAX_WAIT_MS:
            warnings.append(f"{where}: wait {ms:g} ms clamped to {MAX_WAIT_MS} ms; split longer waits "
                            "across calls")
            ms = MAX_WAIT_MS
        for key in ("x", "y", "deltaX", "deltaY"):
            if step.get(key) is not None:
                raise _bad(f"{where}.{key} does not apply to a wait step", f"{where}.{key}")
        return Step(kind, ms=ms)
    # wheel
    dx = _number(step, "deltaX", where, required=False) or 0.0
    dy = _number(step, "deltaY", where, required=False) or 0.0
    if dx == 0 and dy == 0:
        raise _bad(f"{where}: a wheel step needs a non-zero deltaX or deltaY", f"{where}.deltaY")
    x = _number(step, "x", where, required=False)
    y = _number(step, "y", where, required=False)
    if (x is None) != (y is None):
        missing = "y" if y is None else "x"
        raise _bad(f"{where}: give both x and y (to move first) or neither", f"{where}.{missing}")
    if step.get("ms") is not None:
        raise _bad(f"{where}.ms belongs to move and wait steps, not wheel", f"{where}.ms")
    return Step(kind, x, y, dx, dy)


async def run_chain(page: Any, plan: Plan) -> Reply:
    """Execute the plan on the Playwright thread; the spec's result shape.

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
                if step.x is not None:
                    await mouse.move(step.x, step.y)
                await mouse.wheel(step.delta_x, step.delta_y)
            else:
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


def _check(args: Args) -> None:
    plan_steps(args["steps"])


def _prepare(args: Args) -> Args:
    return {**args, "plan": plan_steps(args["steps"])}


def _call_timeout(args: Args) -> float:
    """The session call gets room for the waits the program asked for."""
    return SESSION_CALL_TIMEOUT + args["plan"].planned_ms / 1000


@session_tool(
    "gesture_chain", "canvas",
    "Multi-step pointer program through the mouse pipeline. steps: [{kind, x?, y?, deltaX?, deltaY?, ms?, "
    "pointerId?}]; down/up/move need x and y (viewport CSS pixels); move takes an optional ms pacing delay "
    "(floored at 5 ms with a warning); wait sleeps ms (clamped at 5000 ms with a warning); wheel needs a "
    "non-zero deltaX or deltaY and may move to x, y first. At most 200 steps (too-many-steps). pointerId is "
    "accepted; all steps use the single mouse (touch_start / touch_move / touch_end and gesture_pinch send real "
    "touch points). Returns {stepsExecuted, totalDurationMs, warnings}.",
    params=(Param("steps", "array", "The program, in order.", required=True, items="object",
                  properties=STEP_PROPERTIES),),
    rules=(Check(_check, "every step is checked (kinds, coordinates, pacing) before any runs"),),
    prepare=_prepare,
    call_timeout=_call_timeout,
)
async def gesture_chain(session: Any, args: Args) -> Reply:
    plan: Plan = args["plan"]
    tab = session.tabs.current
    try:
        reply: Reply = await session.pw(run_chain, session.page, plan)
    finally:
        if tab is not None:
            track_chain(tab.input, plan)
    return reply


def track_chain(state: Any, plan: Plan) -> None:
    """Where a chain leaves the mouse: its last point, and the left button if the last
    down had no up after it (Playwright's mouse presses the left button)."""
    held = False
    for step in plan.steps:
        if step.x is not None and step.y is not None:
            state.moved(step.x, step.y)
        if step.kind in ("down", "up"):
            held = step.kind == "down"
    state.buttons = 1 if held else 0
