"""The websocket under a CDP connection: opened with sizes that fit CDP, closed in bounded time.

trio-websocket's defaults suit small chat messages; a browser endpoint sends
screenshots of many MiB and floods of small events, and it can hang or vanish without
a close handshake. This module owns those facts, so that
:mod:`~browx_actors.cdp.connection` only deals in commands, replies and events.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager

from trio_websocket import CloseReason, ConnectionClosed, ConnectionRejected, HandshakeError, WebSocketConnection

from ..credentials import redact_url
from .handshake import open_websocket
from .protocol import CdpConnectionLost

__all__ = [
    "DEFAULT_MAX_MESSAGE_SIZE",
    "MESSAGE_QUEUE_SIZE",
    "closed_message",
    "open_cdp_websocket",
    "rejected_message",
]

#: What an endpoint's refusal of the websocket means, by HTTP status.
_REFUSALS = {
    401: "it wants credentials (a token in the URL's query, or a header) and got none that it takes",
    403: "the credentials given are not allowed here",
    404: "nothing is served at that path: no browser with that id, or a wrong path",
    429: "too many browsers or connections at once: the fleet is full",
}

DEFAULT_MAX_MESSAGE_SIZE = 256 * 1024 * 1024
"""Screenshots and large evaluate results are many MiB; trio-websocket's 1 MiB default
would close the socket with 1009 on the first one."""


# Read in large chunks: a 5 MB reply in trio-websocket's 4 KiB default reads costs
# over a thousand parser round trips.
_RECEIVE_BUFFER_SIZE = 64 * 1024
MESSAGE_QUEUE_SIZE = 16
"""Messages trio-websocket parses ahead while the reader dispatches the current one
(and so the most the reader drains without a checkpoint)."""


@asynccontextmanager
async def open_cdp_websocket(
    ws_url: str,
    *,
    max_message_size: int,
    connect_timeout: float,
    disconnect_timeout: float,
    headers: tuple[tuple[str, str], ...] = (),
) -> AsyncIterator[WebSocketConnection]:
    """The websocket to ``ws_url``; failing to connect raises :class:`CdpConnectionLost`
    naming the URL. On exit it is closed politely for up to ``disconnect_timeout``
    seconds, then abruptly."""
    async with AsyncExitStack() as stack:
        try:
            websocket = await stack.enter_async_context(
                open_websocket(
                    ws_url,
                    headers=headers,
                    max_message_size=max_message_size,
                    message_queue_size=MESSAGE_QUEUE_SIZE,
                    receive_buffer_size=_RECEIVE_BUFFER_SIZE,
                    connect_timeout=connect_timeout,
                    disconnect_timeout=disconnect_timeout,
                )
            )
        except ConnectionRejected as exc:
            raise CdpConnectionLost(rejected_message(ws_url, exc.status_code)) from exc
        except (HandshakeError, ConnectionClosed, OSError, ValueError) as exc:
            raise CdpConnectionLost(
                f"CDP connection to {redact_url(ws_url)} could not be opened: {exc!r}"
            ) from exc
        yield websocket  # closed in bounded time by open_websocket


def rejected_message(url: str, status: int) -> str:
    """Why an endpoint refused the websocket, by its HTTP status: at once, with the URL's
    credentials redacted, rather than a connect timeout."""
    meaning = _REFUSALS.get(status, "the endpoint refused the websocket")
    return f"the CDP endpoint {redact_url(url)} answered HTTP {status}: {meaning}"


def closed_message(url: str, reason: CloseReason | None) -> str:
    """Why the socket to ``url`` closed, as a loss message: the close code's name and
    number, the peer's reason, and what an abnormal closure (1006) means here."""
    if reason is None:
        detail = "closed"
    else:
        detail = f"{reason.name} ({reason.code})"
        if reason.reason:
            detail += f": {reason.reason}"
        if reason.code == 1006:
            detail += " - the browser went away without closing the socket"
    return f"CDP connection to {url} closed: {detail}"
