"""One websocket to a WebDriver BiDi endpoint: commands with ids and deadlines, events in order.

Structure
    :func:`open_bidi_connection` opens the websocket and runs one reader task in a
    nursery it owns; leaving the ``async with`` cancels the reader and closes the
    socket, so the reader's life *is* the context. The reader hands each event to every
    listener (:meth:`BidiConnection.listen`) in one plain call, in arrival order:
    listeners only record (append, count, set an event) and never wait, so a slow
    consumer cannot stall the socket, and what a listener saw before a command's
    answer arrived is what the browser sent before it (BiDi, like CDP, writes events
    and answers on one ordered stream).

Commands
    :meth:`BidiConnection.send` takes the next id, parks a pending entry under it,
    writes the command and waits until the reader settles the entry or the deadline
    passes (:class:`~.protocol.BidiTimeout`). The entry goes in a ``finally``, so a
    timed-out or cancelled caller leaves nothing behind and a late answer is counted
    and dropped. The write is shielded from outside cancellation (a half-written frame
    would corrupt the socket for every session on it) and bounded by the deadline.

Loss
    When the socket closes, every pending command fails at once with
    :class:`~.protocol.BidiConnectionLost` naming the URL and the reason, later sends
    fail the same way at once, and :meth:`BidiConnection.wait_lost` returns.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import AsyncIterator, Callable
from contextlib import AsyncExitStack, asynccontextmanager

import outcome
import trio
from trio_websocket import ConnectionClosed, ConnectionRejected, HandshakeError, WebSocketConnection

from ..cdp.handshake import open_websocket
from ..credentials import redact_url
from ..jsonsafe import JsonObject
from .protocol import DEFAULT_TIMEOUT, BidiConnectionLost, BidiError, BidiTimeout

__all__ = ["BidiConnection", "Listener", "open_bidi_connection"]

#: Screenshots and PDFs arrive base64 in one message: many MiB.
MAX_MESSAGE_SIZE = 256 * 1024 * 1024
_CONNECT_TIMEOUT = 10.0
_DISCONNECT_TIMEOUT = 2.0

#: ``listener(method, params)``: called by the reader for every event; must not block.
Listener = Callable[[str, JsonObject], None]


class _Pending:
    __slots__ = ("done", "method", "result")

    def __init__(self, method: str) -> None:
        self.method = method
        self.done = trio.Event()
        self.result: outcome.Outcome[JsonObject] | None = None

    def settle(self, result: outcome.Outcome[JsonObject]) -> None:
        if self.result is None:
            self.result = result
            self.done.set()


class BidiConnection:
    """Commands and events over one BiDi websocket; see the module notes."""

    def __init__(self, websocket: WebSocketConnection, url: str) -> None:
        self._websocket = websocket
        self.url = redact_url(url)
        self._ids = itertools.count(1)
        self._pending: dict[int, _Pending] = {}
        self._listeners: list[Listener] = []
        self._lost: str | None = None
        self._lost_event = trio.Event()
        #: Answers for ids nobody waits for any more, and messages that were not JSON objects.
        self.late_answers = 0
        self.malformed = 0

    @property
    def lost(self) -> str | None:
        """Why the connection was lost, or None while it is open."""
        return self._lost

    async def wait_lost(self) -> str:
        await self._lost_event.wait()
        assert self._lost is not None
        return self._lost

    def listen(self, listener: Listener) -> Callable[[], None]:
        """Hand every event to ``listener`` from now on; returns what stops it."""
        self._listeners.append(listener)

        def stop() -> None:
            if listener in self._listeners:
                self._listeners.remove(listener)

        return stop

    async def send(self, method: str, params: JsonObject | None = None, *,
                   timeout: float = DEFAULT_TIMEOUT) -> JsonObject:
        """Send one command and return its ``result``; raise :class:`BidiError` with the
        browser's error code, :class:`BidiTimeout` or :class:`BidiConnectionLost`."""
        if self._lost is not None:
            raise BidiConnectionLost(self.url, self._lost)
        command_id = next(self._ids)
        pending = _Pending(method)
        self._pending[command_id] = pending
        try:
            frame = json.dumps({"id": command_id, "method": method, "params": params or {}})
            # Shielded from the caller's cancellation, bounded by its own deadline: a
            # half-written frame would corrupt the socket for every session on it.
            with trio.CancelScope(shield=True) as write_scope:
                write_scope.deadline = trio.current_time() + max(timeout, 1.0)
                try:
                    await self._websocket.send_message(frame)
                except ConnectionClosed as closed:
                    self._mark_lost(f"the socket closed ({closed.reason})")
            if write_scope.cancelled_caught:
                self._mark_lost(f"writing {method} stalled past {max(timeout, 1.0):g} s")
            with trio.move_on_after(timeout):
                await pending.done.wait()
            if pending.result is None:
                raise BidiTimeout(method, timeout)
            return pending.result.unwrap()
        finally:
            del self._pending[command_id]

    def _mark_lost(self, reason: str) -> None:
        if self._lost is not None:
            return
        self._lost = reason
        for pending in self._pending.values():
            pending.settle(outcome.Error(BidiConnectionLost(self.url, reason)))
        self._lost_event.set()

    def _dispatch(self, text: str | bytes) -> None:
        try:
            message = json.loads(text)
        except ValueError:
            self.malformed += 1
            return
        if not isinstance(message, dict):
            self.malformed += 1
            return
        command_id = message.get("id")
        if command_id is not None:
            pending = self._pending.get(command_id) if isinstance(command_id, int) else None
            if pending is None:
                self.late_answers += 1
            elif message.get("type") == "error":
                pending.settle(outcome.Error(BidiError(pending.method, str(message.get("error")),
                                                       str(message.get("message") or ""))))
            else:
                result = message.get("result")
                pending.settle(outcome.Value(result if isinstance(result, dict) else {}))
            return
        method, params = message.get("method"), message.get("params")
        if message.get("type") == "event" and isinstance(method, str) and isinstance(params, dict):
            for listener in tuple(self._listeners):
                listener(method, params)
        elif message.get("type") == "error":  # an error for no command: the browser could not parse ours
            self.malformed += 1

    async def _read(self) -> None:
        try:
            while True:
                self._dispatch(await self._websocket.get_message())
        except ConnectionClosed as closed:
            reason = closed.reason
            said = "" if reason is None else f" (code {reason.code}{', ' + reason.reason if reason.reason else ''})"
            self._mark_lost(f"the socket closed{said}")
        finally:
            self._mark_lost("the connection was closed")


@asynccontextmanager
async def open_bidi_connection(url: str, *, headers: tuple[tuple[str, str], ...] = ()
                               ) -> AsyncIterator[BidiConnection]:
    """A connection to the BiDi endpoint ``url`` (``ws://host:port/session``) for the
    block; failing to connect raises :class:`BidiConnectionLost` naming the URL."""
    async with AsyncExitStack() as stack:
        try:
            websocket = await stack.enter_async_context(open_websocket(
                url, headers=headers, max_message_size=MAX_MESSAGE_SIZE, connect_timeout=_CONNECT_TIMEOUT,
                disconnect_timeout=_DISCONNECT_TIMEOUT))
        except ConnectionRejected as exc:
            raise BidiConnectionLost(redact_url(url), f"the endpoint answered HTTP {exc.status_code}") from exc
        except (HandshakeError, ConnectionClosed, OSError, ValueError) as exc:
            raise BidiConnectionLost(redact_url(url), f"it could not be opened: {exc!r}") from exc
        connection = BidiConnection(websocket, url)  # closed in bounded time by open_websocket
        async with trio.open_nursery() as nursery:
            nursery.start_soon(connection._read)
            try:
                yield connection
            finally:
                nursery.cancel_scope.cancel()
