"""A tab's raw CDP sessions, wired once: one for commands, one for events.

Every page the session comes to own (its first tab, a popup, a tab ``new_tab`` opened)
gets two flat sessions of ours, each shared by everything that needs it:

* the **command session**, on the pool's browser socket, with no domain enabled: aim,
  input, screenshots, titles. Nothing but replies comes back on it, so an action's
  round trips never queue behind a page's events;
* the **event session**, on the session's own websocket (:func:`hold_event_socket`; on
  an attached browser, the attach's one socket),
  with ``Runtime``, ``Network`` and ``Log`` on and the recorder's tap installed: the
  console and network records, the human bridge's world and binding, routes, the live
  view's screencast frames (:mod:`.tabs.screencast`). A page
  that floods the console (every flat session with ``Runtime`` on receives each message)
  floods this socket alone, and no other session's.

:meth:`TargetWiring.attach` is single-flight per target, and it installs the tap
*before* it turns ``Runtime`` on: ``Runtime.enable`` replays the console messages the
document logged before we came, and they must not slip past. Out-of-process frames of
the page are attached by the browser (``Target.setAutoAttach``) on the event session
and get their own tap, feeding the same tab's records; so are its dedicated workers,
each held at its start until the console sampler is in it (:mod:`.tabs.workers`).

Tab setups (:data:`Setup`) are what other features need on every event session: the
emulation in force, the routes' ``Fetch`` patterns. :meth:`TargetWiring.add_setup`
applies one to the sessions already wired and to every later one.
"""

from __future__ import annotations

import contextlib
import functools
import logging
from collections.abc import Awaitable, Callable

import trio

from ....cdp import CdpConnection, CdpFailure, CdpSubscription, TargetLink, open_cdp_connection
from ....jsonsafe import JsonObject
from ..console.sampler import install_sampler, sample_new_documents
from .events import PageEvents
from .workers import WORKER_FILTER, gate_worker

__all__ = ["NETWORK_BUFFERS", "Setup", "TargetWiring", "hold_event_socket"]

log = logging.getLogger("browx_actors.chromium.wiring")

#: What the browser keeps of response bodies for ``network_body``, per flat session.
NETWORK_BUFFERS = {"maxTotalBufferSize": 32 * 1024 * 1024, "maxResourceBufferSize": 8 * 1024 * 1024,
                   "maxPostDataSize": 64 * 1024}

#: ``setup(cdp, kind)`` for every wired session; ``kind`` is ``page`` or ``frame``.
Setup = Callable[[TargetLink, str], Awaitable[None]]

_CHILD_EVENTS = ("Target.attachedToTarget", "Target.detachedFromTarget")


class TargetWiring:
    """The session's flat sessions by target id, and what each gets when it is wired.

    ``commands`` is the pool's browser socket; ``socket`` the session's own, for events.
    """

    def __init__(self, commands: CdpConnection, socket: CdpConnection, events: PageEvents,
                 nursery: trio.Nursery) -> None:
        self.commands = commands
        self.socket = socket
        self.events = events
        self._nursery = nursery
        self._sessions: dict[str, TargetLink] = {}
        self._attaching: dict[str, trio.Event] = {}
        #: Out-of-process frames by their target id: (their session, the page's target id).
        self.frames: dict[str, tuple[TargetLink, str]] = {}
        self._setups: list[Setup] = []
        #: Event sessions whose later documents start with the console sampler (they flooded).
        self._sampled_from_start: set[str] = set()

    def session_of(self, target_id: str) -> TargetLink | None:
        found = self._sessions.get(target_id)
        return found if found is not None and found.lost is None else None

    def keys_of(self, target_id: str) -> list[str]:
        """The session ids that fed the target's records (its own and its frames')."""
        keys = [s.session_id for t, s in self._sessions.items() if t == target_id]
        keys += [s.session_id for s, page in self.frames.values() if page == target_id]
        return keys

    def forget(self, target_id: str) -> None:
        self._sampled_from_start.difference_update(self.keys_of(target_id))
        self._sessions.pop(target_id, None)
        for frame_id in [f for f, (_, page) in self.frames.items() if page == target_id]:
            del self.frames[frame_id]

    async def command_session(self, target_id: str) -> TargetLink:
        """A flat session for commands to the target, on the browser socket (no events)."""
        return await self.commands.attach(target_id)

    async def attach(self, target_id: str) -> TargetLink:
        """The target's one event session, attached and wired on first use."""
        while True:
            found = self.session_of(target_id)
            if found is not None:
                return found
            pending = self._attaching.get(target_id)
            if pending is None:
                break
            await pending.wait()
            if self.session_of(target_id) is None:
                raise CdpFailure(f"target {target_id} could not be attached")
        done = self._attaching[target_id] = trio.Event()
        try:
            cdp = await self.socket.attach(target_id)
            self.events_tap(cdp, target_id, main_frame=target_id)
            # Subscribed before auto-attach is on, so no frame's announcement slips past.
            children = cdp.subscribe(methods=_CHILD_EVENTS, buffer=512)
            self._nursery.start_soon(self._watch_frames, cdp, target_id, children)
            await self._enable(cdp, "page")
            # Known only once enabled and set up: a second caller waits until then, so a
            # tab is never used (a new tab's first navigation) before the emulation and
            # the routes in force are on it. A setup added meanwhile is run by _enable.
            self._sessions[target_id] = cdp
            return cdp
        finally:
            del self._attaching[target_id]
            done.set()

    def events_tap(self, cdp: TargetLink, target_id: str, *, main_frame: str | None, worker: bool = False) -> None:
        tap = self.events.tap(target_id, cdp, main_frame=main_frame, worker=worker)
        tap.on_flood = functools.partial(self._sample_in_page, cdp, worker)
        cdp.tap(tap)

    def _sample_in_page(self, cdp: TargetLink, worker: bool, context_id: int) -> None:
        """From the CDP reader: sample a flooding context in the page (:mod:`.console.sampler`),
        in the background; the reader never waits."""
        with contextlib.suppress(RuntimeError):  # the session is closing
            self._nursery.start_soon(self._sample, cdp, worker, context_id)

    async def _sample(self, cdp: TargetLink, worker: bool, context_id: int) -> None:
        nonce = self.events.sampling_nonce
        await install_sampler(cdp, context_id, nonce)  # the flood of now first
        if worker:
            return  # a worker has no later documents; a new one starts gated
        if cdp.session_id not in self._sampled_from_start:
            self._sampled_from_start.add(cdp.session_id)
            await sample_new_documents(cdp, nonce)

    async def add_setup(self, setup: Setup) -> None:
        """Apply ``setup`` to every wired session now, and to each one wired later."""
        self._setups.append(setup)
        for cdp, kind in self._live():
            try:
                await setup(cdp, kind)
            except CdpFailure as exc:  # that tab or frame is going away
                log.debug("setup %r skipped on %s: %s", setup, cdp, exc)

    async def reapply(self, setup: Setup) -> None:
        """Run an already added ``setup`` again on every wired session (its state changed)."""
        for cdp, kind in self._live():
            try:
                await setup(cdp, kind)
            except CdpFailure as exc:
                log.debug("setup %r skipped on %s: %s", setup, cdp, exc)

    def _live(self) -> list[tuple[TargetLink, str]]:
        pages = [(s, "page") for s in self._sessions.values() if s.lost is None]
        frames = [(s, "frame") for s, _ in self.frames.values() if s.lost is None]
        return pages + frames

    async def _enable(self, cdp: TargetLink, kind: str) -> None:
        commands: list[tuple[str, JsonObject | None]] = [
            ("Runtime.enable", None),
            ("Network.enable", dict(NETWORK_BUFFERS)),
            ("Log.enable", None),
            ("Page.enable", None),
        ]
        # Out-of-process frames, nested ones included (a frame of a third site inside one),
        # and dedicated workers, which must wait for their gate; a frame is let go at once.
        commands.append(("Target.setAutoAttach", {"autoAttach": True, "waitForDebuggerOnStart": True,
                                                  "flatten": True,
                                                  "filter": [{"type": "iframe"}, WORKER_FILTER]}))
        await cdp.send_sequence(commands)
        for setup in list(self._setups):
            await setup(cdp, kind)

    async def _watch_frames(self, cdp: TargetLink, target_id: str, events: CdpSubscription) -> None:
        """Tap and wire each out-of-process frame the browser attaches under the page
        (``target_id``) or under one of its frames (``cdp`` is then that frame's), and
        gate each dedicated worker."""
        try:
            async with events:
                async for event in events:
                    if event.method == "Target.detachedFromTarget":
                        gone = event.params.get("targetId")
                        if isinstance(gone, str):
                            self.frames.pop(gone, None)
                        continue
                    info = event.params.get("targetInfo") or {}
                    session_id, frame_id = event.params.get("sessionId"), info.get("targetId")
                    if not isinstance(session_id, str) or not isinstance(frame_id, str):
                        continue
                    child = self.socket.adopt(session_id, frame_id)
                    if info.get("type") == "worker":
                        self.events_tap(child, target_id, main_frame=None, worker=True)
                        # Its own workers are announced on its session, and gated too.
                        grandchildren = child.subscribe(methods=_CHILD_EVENTS, buffer=512)
                        self._nursery.start_soon(self._watch_frames, child, target_id, grandchildren)
                        self._nursery.start_soon(gate_worker, child, self.events.sampling_nonce)
                        continue
                    if event.params.get("waitingForDebugger"):
                        self._nursery.start_soon(_release, child)
                    if info.get("type") != "iframe":
                        continue
                    self.events_tap(child, target_id, main_frame=None)
                    self.frames[frame_id] = (child, target_id)
                    self._nursery.start_soon(self._enable_frame, child, frame_id, target_id)
        except CdpFailure as exc:
            log.debug("frame watch of %s ended: %s", target_id, exc)

    async def _enable_frame(self, child: TargetLink, frame_id: str, page: str) -> None:
        children = child.subscribe(methods=_CHILD_EVENTS, buffer=512)
        self._nursery.start_soon(self._watch_frames, child, page, children)
        try:
            await self._enable(child, "frame")
        except CdpFailure as exc:
            log.debug("frame %s went before it was wired: %s", frame_id, exc)
            self.frames.pop(frame_id, None)


async def _release(child: TargetLink) -> None:
    """Let a frame the auto-attach paused run: only workers wait for a gate of ours."""
    with contextlib.suppress(CdpFailure):
        await child.send("Runtime.runIfWaitingForDebugger")


async def hold_event_socket(ws_url: str, *, task_status: trio.TaskStatus[CdpConnection]) -> None:
    """The session's own websocket to its browser, for event sessions: open for as long
    as the session's nursery runs (a browser we launched; an attached one's events share
    its one socket)."""
    async with open_cdp_connection(ws_url) as socket:
        task_status.started(socket)
        await trio.sleep_forever()
