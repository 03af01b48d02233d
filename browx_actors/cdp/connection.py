"""One websocket to a browser's CDP endpoint, shared by every flat session on it.

Playwright drives actions on its own socket; this client carries what Trio must own
(the isolated-world bridge, screencast frames and acks, canvas reads, target and crash
events), so it is small, allocation-light on the command path and never blocks on a
slow consumer.

Structure
    :func:`~.opening.open_cdp_connection` (:mod:`.opening`) opens the socket and runs
    the connection's one reader task for as long as its ``async with`` lasts.

Commands
    :meth:`CdpConnection.send` takes the next integer id, parks a pending entry under
    it (in :mod:`.pending`'s table), writes the command and waits; the reader
    resolves the entry when the reply with that id arrives. The entry is removed in
    a ``finally``, so a timeout (:class:`CdpTimeout`) or a cancelled caller leaves
    nothing behind, and a reply that arrives afterwards is counted as
    ``unknown_replies`` and dropped.
    :meth:`CdpConnection.send_sequence` writes several commands in order before
    waiting for any of their replies (one click's mouse events). The write
    itself is shielded from outside cancellation, because a half-written frame would
    corrupt the socket for every session on it; it is bounded by the command's
    timeout (at least one second), and a write that stalls past that bound declares
    the whole connection lost.

Loss
    When the socket closes (browser exited, crashed or was killed) every pending
    command fails at once with :class:`CdpConnectionLost` naming the URL and the close
    reason, later sends fail the same way immediately, and every subscription ends:
    its iterator first yields what is still buffered, then *raises* the same
    :class:`CdpConnectionLost` (a stream that silently stopped would hide the crash).
    A subscription closed by its owner just stops iterating. Replies for unknown ids and
    malformed messages are counted in :meth:`CdpConnection.stats` and otherwise ignored.
    One flat session ends the same way, with :class:`TargetLinkLost`, on the events
    :mod:`.routing` lists.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

import trio
from trio_websocket import ConnectionClosed, WebSocketConnection

from ..credentials import redact_url
from ..jsonsafe import JsonObject
from .link import TargetLink
from .pending import PendingCommand, PendingCommands, command_result
from .protocol import (
    DEFAULT_BUFFER,
    DEFAULT_TIMEOUT,
    CdpConnectionLost,
    CdpEvent,
    CdpStats,
    EventTap,
    Reply,
    decode_message,
    encode_command,
    peek_event,
)
from .routing import EventRouter
from .subscription import CdpSubscription
from .transport import DEFAULT_MAX_MESSAGE_SIZE, MESSAGE_QUEUE_SIZE, closed_message

__all__ = [
    "DEFAULT_BUFFER",
    "DEFAULT_MAX_MESSAGE_SIZE",
    "DEFAULT_TIMEOUT",
    "CdpConnection",
    "CdpSubscription",
    "Diverter",
    "TargetLink",
]

#: ``diverter(raw, peeked)``: True when it took the message (:meth:`CdpConnection.divert`).
Diverter = Callable[[str | bytes, tuple[str, str] | None], bool]

# A write gets at least this long before the socket is declared stalled, so a tiny
# command timeout can only ever time the command out, never condemn the socket.
_WRITE_GRACE = 1.0


class CdpConnection:
    """The browser-level CDP client. Built by :func:`~.opening.open_cdp_connection`."""

    def __init__(self, websocket: WebSocketConnection, url: str) -> None:
        #: The endpoint as messages and stats name it: its credentials redacted.
        self.url = redact_url(url)
        #: The endpoint itself, credentials included, to open more connections to the
        #: same browser; never for a message or a log.
        self.endpoint = url
        self._ws = websocket
        self._pending = PendingCommands()
        self._router = EventRouter(self._pending.fail_session)
        self._lost: str | None = None
        self._lost_event = trio.Event()
        self._reader_scope = trio.CancelScope()
        #: Offered every message before anything else reads it (:meth:`divert`).
        self._diverter: Diverter | None = None
        self._commands_sent = 0
        self._malformed = 0

    @property
    def lost(self) -> str | None:
        """Why the connection ended, or ``None`` while it is usable."""
        return self._lost

    async def wait_lost(self) -> str:
        """Wait until the connection ends; returns why (an attached browser's owner
        has no process to watch, only this)."""
        await self._lost_event.wait()
        assert self._lost is not None
        return self._lost

    # -- commands ---------------------------------------------------------------

    async def send(
        self,
        method: str,
        params: JsonObject | None = None,
        *,
        session_id: str | None = None,
        timeout: float = DEFAULT_TIMEOUT,
    ) -> JsonObject:
        """Send one command and return its ``result``.

        Raises :class:`CdpError` for an error reply, :class:`CdpTimeout` after
        ``timeout`` seconds (``math.inf`` waits forever), :class:`CdpConnectionLost`
        or :class:`TargetLinkLost` if the socket or the session goes away.
        """
        (pending,) = await self._exchange(((method, params),), session_id, timeout)
        return command_result(pending, timeout, session_id)

    async def send_sequence(
        self,
        commands: Sequence[tuple[str, JsonObject | None]],
        *,
        session_id: str | None = None,
        timeout: float = DEFAULT_TIMEOUT,
    ) -> list[JsonObject]:
        """Write every command, in order, before waiting for any reply; return the
        results in order once all are in.

        For steps the browser must take in order and back to back, such as the mouse
        events of one click. Awaited one by one, a pointer move alone waits for the
        next rendering frame (about 13 ms here); written together, the press behind it
        flushes it. A failed command raises its error (the first in command order)
        after the others have answered; ``timeout`` bounds the whole sequence.
        """
        pendings = await self._exchange(commands, session_id, timeout)
        return [command_result(pending, timeout, session_id) for pending in pendings]

    async def _exchange(
        self,
        commands: Sequence[tuple[str, JsonObject | None]],
        session_id: str | None,
        timeout: float,
    ) -> list[PendingCommand]:
        """Write ``commands`` in order, then wait until each is answered, failed or out of
        time; the entries, settled or not (an unsettled one timed out)."""
        await trio.lowlevel.checkpoint_if_cancelled()
        if self._lost is not None:
            raise CdpConnectionLost(self._lost)
        first_id, pendings = self._pending.park(commands, session_id)
        written = False
        start = trio.current_time()
        write_budget = max(timeout, _WRITE_GRACE)
        try:
            # One scope for the whole call (scopes are not free on this path). It is
            # shielded while writing, because a frame cut in half by a cancellation
            # would corrupt the socket for every session on it; the write still has a
            # deadline of its own. Then the shield drops and the command's timeout
            # governs the wait for the replies.
            with trio.CancelScope(deadline=start + write_budget, shield=True) as scope:
                try:
                    for command_id, (method, params) in enumerate(commands, first_id):
                        await self._ws.send_message(encode_command(command_id, method, params, session_id))
                        self._commands_sent += 1
                except ConnectionClosed as exc:
                    self._lose(closed_message(self.url, exc.reason))
                written = True
                if write_budget != timeout:
                    scope.deadline = start + timeout
                scope.shield = False
                for pending in pendings:
                    await pending.done.wait()
        finally:
            self._pending.remove(first_id, len(commands))
        if not written:
            self._abandon(
                f"CDP connection to {self.url} abandoned: writing {commands[0][0]} stalled for "
                f"{write_budget:g} s and may have left a partial frame on the socket"
            )
            raise CdpConnectionLost(self._lost or "")
        return pendings

    # -- another client's traffic (the Playwright relay) --------------------------------

    def claim_id(self) -> int:
        """A command id of this socket's counter, for a message written by :meth:`write`
        (another client's command, renamed so that it collides with none of ours)."""
        return self._pending.claim_id()

    async def write(self, text: str, *, timeout: float = DEFAULT_TIMEOUT) -> None:
        """Write one message that is already encoded, as :meth:`send` writes: shielded, so
        that no frame is cut in half, and a write stalled past ``timeout`` (at least a
        second) abandons the socket. Its reply goes to the :meth:`divert` callback."""
        await trio.lowlevel.checkpoint_if_cancelled()
        if self._lost is not None:
            raise CdpConnectionLost(self._lost)
        budget = max(timeout, _WRITE_GRACE)
        with trio.CancelScope(deadline=trio.current_time() + budget, shield=True):
            try:
                await self._ws.send_message(text)
                self._commands_sent += 1
                return
            except ConnectionClosed as exc:
                self._lose(closed_message(self.url, exc.reason))
                raise CdpConnectionLost(self._lost or "") from None
        self._abandon(f"CDP connection to {self.url} abandoned: a relayed write stalled for {budget:g} s "
                      "and may have left a partial frame on the socket")
        raise CdpConnectionLost(self._lost or "")

    def divert(self, diverter: Diverter) -> Callable[[], None]:
        """Offer every message from the browser to ``diverter`` first, from the reader
        itself, with :func:`~.protocol.peek_event` of it; a message it takes (it returns
        True) goes nowhere else. One at a time; returns the function that removes it.
        Like a tap, it must be cheap and never wait."""
        if self._diverter is not None:
            raise RuntimeError("this CDP connection already diverts its messages")
        self._diverter = diverter

        def remove() -> None:
            if self._diverter is diverter:
                self._diverter = None

        return remove

    def _abandon(self, message: str) -> None:
        """Give up on a socket we can no longer trust: fail everyone, stop reading."""
        self._lose(message)
        self._reader_scope.cancel()

    # -- sessions and subscriptions --------------------------------------------------

    async def attach(self, target_id: str, *, timeout: float = DEFAULT_TIMEOUT) -> TargetLink:
        """Open a flat session to ``target_id`` (``Target.attachToTarget``, flatten)."""
        result = await self.send(
            "Target.attachToTarget", {"targetId": target_id, "flatten": True}, timeout=timeout
        )
        session = TargetLink(self, result["sessionId"], target_id)
        self._router.sessions[session.session_id] = session
        return session

    def adopt(self, session_id: str, target_id: str) -> TargetLink:
        """The flat session the browser attached by itself (``Target.setAutoAttach``
        announces it with ``Target.attachedToTarget``), registered so that it ends like
        one we attached; the same object for the same id."""
        session = self._router.sessions.get(session_id)
        if session is None:
            session = TargetLink(self, session_id, target_id)
            if self._lost is not None:
                session._lost = self._lost
            else:
                self._router.sessions[session_id] = session
        return session

    def subscribe(
        self,
        session_id: str | None,
        *,
        methods: Iterable[str] | None = None,
        buffer: int = DEFAULT_BUFFER,
    ) -> CdpSubscription:
        """Subscribe to events of one flat session, or browser-level events for ``None``."""
        subscription = CdpSubscription(self._router.unsubscribe, session_id, methods, buffer)
        if self._lost is not None:
            subscription._finish(self._connection_lost_error)
        else:
            self._router.add(subscription)
        return subscription

    def tap(self, session_id: str, tap: EventTap) -> Callable[[], None]:
        """Feed ``tap`` the events of flat session ``session_id`` from the reader itself
        (see :class:`~browx_actors.cdp.protocol.EventTap`); returns the function that
        removes it. The tap goes with its session when the session ends."""
        return self._router.tap(session_id, tap)

    def _unsubscribe(self, subscription: CdpSubscription) -> None:
        self._router.unsubscribe(subscription)

    def stats(self) -> CdpStats:
        router = self._router
        return CdpStats(
            url=self.url,
            commands_sent=self._commands_sent,
            replies=self._pending.replies,
            events=router.events,
            events_unrouted=router.events_unrouted,
            events_dropped=router.events_dropped,
            unknown_replies=self._pending.unknown_replies,
            malformed=self._malformed,
            pending=len(self._pending),
            subscriptions=router.subscription_count(),
            sessions=len(router.sessions),
            lost=self._lost,
            events_skipped=router.events_skipped,
            tap_errors=router.tap_errors,
        )

    # -- the reader ----------------------------------------------------------------

    async def _read(self) -> None:
        with self._reader_scope:
            try:
                queued = getattr(self._ws, "_recv_channel", None)
                while True:
                    self._on_message(await self._ws.get_message())
                    if queued is not None:
                        self._drain(queued)
            except ConnectionClosed as exc:
                self._lose(closed_message(self.url, exc.reason))
            except Exception as exc:
                # A bug in dispatch: fail every caller loudly, then crash the nursery.
                self._lose(f"CDP connection to {self.url} reader crashed: {exc!r}")
                raise

    def _drain(self, queued: trio.MemoryReceiveChannel[str | bytes]) -> None:
        """Handle the messages trio-websocket has already parsed, without a checkpoint
        each: under a flood of events that is a task switch saved per message (a fifth
        of the reader's CPU per console message, measured). ``queued`` is
        trio-websocket's own message channel (``_recv_channel``, read as ``get_message``
        reads it); a trio-websocket without it just skips this."""
        for _ in range(MESSAGE_QUEUE_SIZE):
            try:
                raw = queued.receive_nowait()
            except (trio.WouldBlock, trio.EndOfChannel, trio.ClosedResourceError):
                return
            self._on_message(raw)

    def _on_message(self, raw: str | bytes) -> None:
        peeked = peek_event(raw)
        if self._diverter is not None and self._diverter(raw, peeked):
            return
        if peeked is not None and self._router.skippable(peeked[0], peeked[1], raw):  # type: ignore[arg-type]
            return
        message = decode_message(raw)
        if type(message) is Reply:
            self._pending.settle(message)
        elif type(message) is CdpEvent:
            self._router.route(message)
        else:
            self._malformed += 1

    # -- endings -------------------------------------------------------------------

    def _connection_lost_error(self) -> CdpConnectionLost:
        assert self._lost is not None
        return CdpConnectionLost(self._lost)

    def _lose(self, message: str) -> None:
        """Fail every pending command and end every subscription, once."""
        if self._lost is not None:
            return
        self._lost = message
        self._lost_event.set()
        self._pending.fail_all(message)
        self._router.lose(self._connection_lost_error)

    def _end_session(self, session_id: str, reason: str) -> None:
        """End one flat session (its owner detached it); see :meth:`EventRouter.end_session`."""
        self._router.end_session(session_id, reason)

    def __repr__(self) -> str:
        state = f" lost={self._lost!r}" if self._lost else ""
        return f"<CdpConnection {self.url} pending={len(self._pending)}{state}>"

