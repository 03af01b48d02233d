"""Opening a client websocket that hears an endpoint's refusal at once.

An endpoint that refuses the upgrade answers an ordinary HTTP response (401 for a wrong
token, 404 for a browser that is not there, 429 for a full fleet). When that response
has neither ``Content-Length`` nor ``Transfer-Encoding``, HTTP says its body runs to the
end of the connection, and trio-websocket (0.12) never tells wsproto that the connection
ended: the refusal is never complete, and the opening waits out its whole connect
timeout before it fails without a status (browserless answers a wrong token so).

:func:`open_websocket` opens the TCP (or TLS) stream itself and hands trio-websocket a
:class:`RefusalStream` over it, which gives such a response a ``Content-Length: 0``
(and drops its body, which nobody reads). wsproto then reports the refusal as complete,
trio-websocket raises :class:`~trio_websocket.ConnectionRejected` with the status, and
the caller names the status at once. A ``101`` answer, and every byte after the
handshake, pass through untouched.
"""

from __future__ import annotations

import ssl
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import cast
from urllib.parse import urlsplit

import trio
from trio_websocket import ConnectionTimeout, HandshakeError, WebSocketConnection, wrap_client_stream

from .groups import raise_unwrapped

__all__ = ["RefusalStream", "open_websocket"]

#: The most of a response head read before the stream stops looking (a refusal's head
#: is a few hundred bytes; past this it is passed on as it is).
HEAD_LIMIT = 64 * 1024


class RefusalStream(trio.abc.Stream):
    """A client stream that completes a refusal whose body has no stated length."""

    def __init__(self, stream: trio.abc.Stream) -> None:
        self.stream = stream
        self._head = b""
        #: Still reading the response head (nothing of it has been passed on yet).
        self._looking = True

    async def send_all(self, data: bytes | bytearray | memoryview) -> None:
        await self.stream.send_all(data)

    async def wait_send_all_might_not_block(self) -> None:
        await self.stream.wait_send_all_might_not_block()

    async def receive_some(self, max_bytes: int | None = None) -> bytes | bytearray:
        if not self._looking:
            return await self.stream.receive_some(max_bytes)
        while True:
            data = await self.stream.receive_some(max_bytes)
            if not data:  # the end: pass on what there is, and the end after it
                self._looking = False
                head, self._head = self._head, b""
                return head
            self._head += data
            end = self._head.find(b"\r\n\r\n")
            if end >= 0 or len(self._head) > HEAD_LIMIT:
                self._looking = False
                head, self._head = self._head, b""
                return with_stated_length(head, end + 4) if end >= 0 else head

    async def aclose(self) -> None:
        await self.stream.aclose()

    def __repr__(self) -> str:
        return f"<RefusalStream over {self.stream!r}>"


def with_stated_length(data: bytes, head_end: int) -> bytes:
    """``data`` (a response head ending at ``head_end``, then whatever followed it) as
    it should reach wsproto: a refusal without a stated body length gets
    ``Content-Length: 0`` in place of its body; anything else is unchanged."""
    head = data[:head_end]
    status_line, _, _ = head.partition(b"\r\n")
    parts = status_line.split(b" ", 2)
    if len(parts) < 2 or parts[1] == b"101" or not parts[0].startswith(b"HTTP/1."):
        return data
    names = {line.split(b":", 1)[0].strip().lower() for line in head.split(b"\r\n")[1:] if b":" in line}
    if b"content-length" in names or b"transfer-encoding" in names:
        return data
    return head[:-2] + b"Content-Length: 0\r\n\r\n"


@asynccontextmanager
async def open_websocket(
    url: str,
    *,
    headers: tuple[tuple[str, str], ...] = (),
    max_message_size: int,
    message_queue_size: int = 1,
    receive_buffer_size: int | None = None,
    connect_timeout: float,
    disconnect_timeout: float,
) -> AsyncIterator[WebSocketConnection]:
    """A client websocket to ``url`` (``ws://`` or ``wss://``) for the block.

    Raises what trio-websocket's own opening raises: :class:`ConnectionRejected` with
    the status for a refusal, :class:`ConnectionTimeout` past ``connect_timeout``,
    :class:`HandshakeError` for a stream that could not be opened. On exit the socket
    is closed politely for up to ``disconnect_timeout`` seconds, then abruptly.
    """
    parts = urlsplit(url)
    if parts.scheme not in ("ws", "wss") or not parts.hostname:
        raise ValueError(f"not a websocket URL: {parts.scheme}://{parts.hostname or ''}")
    secure = parts.scheme == "wss"
    port = parts.port or (443 if secure else 80)
    resource = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    host = parts.hostname
    host_header = parts.netloc.rpartition("@")[2]
    try:
        async with trio.open_nursery() as nursery:
            try:
                with trio.fail_after(connect_timeout):
                    stream: trio.abc.Stream
                    if secure:
                        stream = await trio.open_ssl_over_tcp_stream(
                            host, port, ssl_context=ssl.create_default_context(), https_compatible=True)
                    else:
                        stream = await trio.open_tcp_stream(host, port)
                    # Typed as a socket stream; any trio stream does (endpoints then show its repr).
                    wrapped = cast("trio.SocketStream", RefusalStream(stream))
                    connection = await wrap_client_stream(
                        nursery, wrapped, host_header, resource,
                        extra_headers=[(name.encode(), value.encode()) for name, value in headers] or None,
                        message_queue_size=message_queue_size, max_message_size=max_message_size,
                        receive_buffer_size=receive_buffer_size)
            except trio.TooSlowError:
                raise ConnectionTimeout from None
            except OSError as exc:
                raise HandshakeError from exc
            try:
                yield connection
            finally:
                with trio.move_on_after(disconnect_timeout):
                    await connection.aclose()
                nursery.cancel_scope.cancel()
    except BaseExceptionGroup as group:  # the refusal is raised by the reader task, in our nursery
        raise_unwrapped(group)
