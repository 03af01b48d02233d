"""``drag {from, to}``: press, move and release, and HTML5 drag and drop where the page uses it.

Both ends are ``{ref}``, ``{selector}`` or ``{x, y}``. The source is brought into view
and checked as a click's target is; the destination is aimed at where it is once the
source is in view (a drop target out of view then fails, naming it, rather than
dropping somewhere else).

The drag goes down the mouse pipeline: a press at the source, paced moves with the
left button held (``durationMs``, ``steps``), a release at the destination. That is
what canvas apps, sliders and pointer-event sortables read. A page that uses HTML5 drag
and drop (a ``draggable`` element, a ``dragstart`` listener) starts a platform drag
on the first move instead, which no further mouse input reaches; so the drag runs with
``Input.setInterceptDrags`` on (:mod:`.drag_commands`), asks the page agent whether the
move started a drag (``agent/dragwatch.js``), and if it did takes the intercepted drag
over: ``dragenter`` / ``dragover`` at each following step, ``drop`` at the end, with the
data the page put in its ``dragstart``. The result says which it was
(``drag.mode``: ``mouse`` or ``html5``).
"""

from __future__ import annotations

import contextlib
import math
from typing import TYPE_CHECKING

import trio

from ....cdp import CdpFailure, CdpSubscription
from ....jsonsafe import JsonObject
from ....tools import Reply
from ....tools.pointer import DragArgs
from ..agent.calls import agent_await, agent_call
from .actions import run_steps
from .commands import Command, mouse_move, mouse_press, mouse_release
from .drag_commands import DRAG_INTERCEPTED, drag_event, intercept_drags
from .motion import Point, Step, step_count, stroke
from .playback import letting_go, play
from .pointer import pointer_report, state_of
from .send import release_input, send_input
from .target import aimed_at, point_for

if TYPE_CHECKING:
    from ..session import ChromiumSession

__all__ = ["DRAG_THRESHOLD_PX", "drag"]

#: How far the mouse must move from the press before a page can start an HTML5 drag
#: (Chromium's threshold is a few pixels; a move past this one decides).
DRAG_THRESHOLD_PX = 5.0
#: How long the page gets to show the move (and a dragstart) before it is asked again.
_DRAG_PROBE_MS = 500
#: How long Chromium gets to hand over a drag the page started.
_INTERCEPT_WAIT_S = 2.0
_LEFT = 1


class _Drag:
    """One drag's state while it plays: how far it got, and the page's drag data once
    the page started an HTML5 drag."""

    def __init__(self, session: ChromiumSession, start: Point, events: CdpSubscription, reply: Reply) -> None:
        self.session = session
        self.start = start
        self.events = events
        self.reply = reply
        #: None until decided; then the intercepted drag data, or False (a mouse drag).
        self.data: JsonObject | bool | None = None
        self.entered = False
        #: The drop went out (a dialog its handler opened may have cut the call short).
        self.dropped = False
        self.last: Point = start

    async def send(self, commands: list[Command]) -> None:
        await send_input(self.session, "drag", commands)

    async def step(self, step: Step) -> None:
        point = step.points[0]
        self.last = point
        if step.kind == "down":
            await self.send(mouse_move(*point) + mouse_press(*point, button="left"))
        elif step.kind == "move":
            if isinstance(self.data, dict):
                await self.send(drag_event("dragOver" if self.entered else "dragEnter", *point, self.data))
                self.entered = True
                return
            await self.send(mouse_move(*point, buttons=_LEFT))
            if self.data is None and math.dist(point, self.start) >= DRAG_THRESHOLD_PX:
                await self._decide(point)
        else:
            if isinstance(self.data, dict):
                if not self.entered:
                    await self.send(drag_event("dragEnter", *point, self.data))
                self.dropped = True
                await self.send(drag_event("drop", *point, self.data))
            await self.send(mouse_release(*point, button="left", buttons=_LEFT))

    async def _decide(self, point: Point) -> None:
        """After the first move past the threshold: did the page start an HTML5 drag?"""
        state = await agent_await(self.session, "dragState", _DRAG_PROBE_MS)
        data = self._intercepted()
        if data is None and state.get("started") and not state.get("prevented"):
            with trio.move_on_after(_INTERCEPT_WAIT_S):
                data = (await self.events.receive()).params.get("data")
            if data is None:
                self.reply.warn("the page started an HTML5 drag but the browser did not hand it over; the drag "
                                "went on as mouse moves")
        self.data = data if isinstance(data, dict) else False
        if isinstance(self.data, dict):
            # The move that started the drag is the drag's first position over the page.
            await self.send(drag_event("dragEnter", *point, self.data))
            self.entered = True

    def _intercepted(self) -> JsonObject | None:
        try:
            event = self.events.receive_nowait()
        except trio.WouldBlock:
            return None
        data = event.params.get("data")
        return data if isinstance(data, dict) else None

    async def release(self) -> None:
        """An interrupted drag: cancel the HTML5 drag unless it was dropped, let go of
        the button (at once, when a dialog blocks the page: :func:`~.send.release_input`)."""
        commands = []
        if isinstance(self.data, dict) and not self.dropped:
            commands += drag_event("dragCancel", *self.last, self.data)
        commands += mouse_release(*self.last, button="left", buttons=_LEFT)
        await release_input(self.session, "drag", commands)


async def drag(session: ChromiumSession, args: DragArgs) -> Reply:
    async def steps(reply: Reply) -> tuple[JsonObject | None, str]:
        state = state_of(session)
        if state.buttons:
            reply.warn(f"the {', '.join(state.held())} button was down before the drag; the drag releases left")
        start, source = await point_for(session, args.from_, reply, mark=True)
        aimed_at(reply, source)
        end, dest = await point_for(session, args.to, reply, mark=False, scroll=False)
        plan = stroke(start, end, step_count(args.duration_ms, args.steps), args.duration_ms)
        cdp = session.cdp
        async with cdp.subscribe(methods=[DRAG_INTERCEPTED], buffer=4) as events:
            await agent_call(session, "watchDrag")
            await send_input(session, "drag", intercept_drags(True))
            run = _Drag(session, start, events, reply)
            try:
                async with letting_go(run.release):
                    elapsed = await play(plan, run.step)
            finally:
                # A tab that went away took its interception with it.
                with trio.CancelScope(shield=True), trio.move_on_after(2), contextlib.suppress(CdpFailure):
                    await cdp.send(*intercept_drags(False)[0])
        html5 = isinstance(run.data, dict)
        reply["drag"] = {
            "mode": "html5" if html5 else "mouse",
            "from": {"x": start[0], "y": start[1]}, "to": {"x": end[0], "y": end[1]},
            "moves": len(plan) - 2, "durationMs": round(elapsed, 1),
            "dropTarget": dest,
        }
        if html5:
            assert isinstance(run.data, dict)
            reply["drag"]["types"] = [item.get("mimeType") for item in run.data.get("items", [])]
        return source, "cdp"

    return await run_steps(session, "drag", steps, report=pointer_report(session))


