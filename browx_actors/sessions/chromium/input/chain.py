"""``gesture_chain``: a multi-step pointer program through Playwright's mouse pipeline.

The program is checked whole before any session is touched (``tools/canvas.py``:
:func:`~browx_actors.tools.canvas.plan_steps` and the rules it keeps), so a malformed one
is refused instead of failing halfway with the button held down.

Execution (:func:`run_chain`) is one coroutine on the Playwright thread, so a program
costs one bridge hop and its timing is not stretched by hops between steps. Afterwards
the tab's input state (:mod:`.state`) is told where the chain
left the mouse, so ``mouse_up`` after a chain that ended with the button down, or
``mouse_move`` without coordinates, act where the chain stopped.

A chain that ends with a wheel step answers once that wheel has landed. The browser
acks a wheel before the page has it: Chromium hands wheel events to the page's listeners
in the next animation frame (as ``mouse_wheel``'s settle knows), and the scroll they
cause reaches the page's ``scrollY`` / ``scrollTop`` a frame or more later. So a watcher
(:data:`WHEEL_WATCH_JS`) is set before the last wheel is sent and, after it, waits until
the page's top document saw a wheel and its scroll events have been quiet for
:data:`QUIET_FRAMES` frames (bounded; a wheel the top document never sees, over a
frame, ends the wait with a warning). What the agent reads next is the page after the
wheel, as for every other step.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from typing import TYPE_CHECKING, Any

from ....errors import ToolError
from ....tools import Reply
from ....tools.canvas import GestureChainArgs, Plan, plan_steps
from .settle import FRAME_WAIT_MS, QUIET_BUDGET_MS

if TYPE_CHECKING:
    from playwright.async_api import Page

    from ..session import ChromiumSession
    from .state import InputState

__all__ = ["QUIET_FRAMES", "WHEEL_WATCH_JS", "gesture_chain", "run_chain", "track_chain"]

#: Frames without a scroll event, after the wheel was seen, that mean its scroll is done.
QUIET_FRAMES = 2

#: Set before the last wheel step; its ``landed(budgetMs, frameWaitMs)`` resolves once
#: the top document saw a wheel and then ``QUIET_FRAMES`` frames passed without a scroll
#: (a scroll event fires in the frame after the offset changes, element scrolls caught
#: in the capture phase), or after ``budgetMs`` with ``seen`` false. A page not being
#: drawn runs no frames, so each frame wait also ends after ``frameWaitMs``. The
#: listeners are passive and removed when it resolves: the page's own handling is
#: untouched.
WHEEL_WATCH_JS = f"""() => {{
  let wheels = 0, scrolls = 0;
  const onWheel = () => {{ wheels++; }};
  const onScroll = () => {{ scrolls++; }};
  const options = {{capture: true, passive: true}};
  addEventListener('wheel', onWheel, options);
  document.addEventListener('scroll', onScroll, options);
  const landed = (budgetMs, frameWaitMs) => new Promise(resolve => {{
    const start = performance.now();
    let quiet = 0, counted = -1;
    const done = (seen) => {{
      removeEventListener('wheel', onWheel, options);
      document.removeEventListener('scroll', onScroll, options);
      resolve(seen);
    }};
    const frame = () => {{
      let fired = false;
      const go = () => {{ if (!fired) {{ fired = true; setTimeout(tick, 0); }} }};
      requestAnimationFrame(go);
      setTimeout(go, frameWaitMs);
    }};
    const tick = () => {{
      if (wheels > 0) {{
        if (scrolls === counted) quiet++; else {{ quiet = 0; counted = scrolls; }}
        if (quiet >= {QUIET_FRAMES}) return done(true);
      }}
      if (performance.now() - start > budgetMs) return done(false);
      frame();
    }};
    frame();
  }});
  return {{landed}};
}}"""


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
    last = len(plan.steps) - 1
    watch = None
    for index, step in enumerate(plan.steps):
        try:
            if index == last and step.kind == "wheel":
                watch = await _watch(page)
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
    if watch is not None:
        warnings += await _landed(watch)
    if held:
        warnings.append("the chain ended with the mouse button down; an up step (here or in the next "
                        "call) releases it")
    return Reply.of(stepsExecuted=executed, totalDurationMs=round((time.perf_counter() - started) * 1000, 1),
                    warnings=warnings)


# Any: Playwright's JSHandle, imported only on its thread.
async def _watch(page: Page) -> Any:
    """The watcher for the last wheel, or None where the page cannot hold one (it is
    navigating): the wheel is still sent, and the chain answers at its ack as before."""
    from playwright.async_api import Error as PlaywrightError

    try:
        return await page.evaluate_handle(WHEEL_WATCH_JS)
    except PlaywrightError:
        return None


# Any: Playwright's JSHandle, imported only on its thread.
async def _landed(watch: Any) -> list[str]:
    """Wait for the last wheel to land (see :data:`WHEEL_WATCH_JS`); a warning if the
    top document never saw it. A page that navigated or closed meanwhile has nothing
    more to wait for."""
    from playwright.async_api import Error as PlaywrightError

    try:
        seen = await watch.evaluate("(w, [budget, frame]) => w.landed(budget, frame)",
                                    [QUIET_BUDGET_MS, FRAME_WAIT_MS])
    except PlaywrightError:
        return []
    finally:
        with contextlib.suppress(PlaywrightError):
            await watch.dispose()
    if seen:
        return []
    return [f"the last wheel step did not reach the top document within {QUIET_BUDGET_MS} ms (over a frame, "
            "or the page is not drawing); it may land after this answer"]


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
