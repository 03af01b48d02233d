"""Opening a :class:`~.connection.CdpConnection`: its socket, its reader, their one lifetime.

:func:`open_cdp_connection` opens the websocket (:mod:`.transport`) and runs one
reader task in a nursery it owns. Leaving the ``async with`` cancels that nursery
and closes the socket: the reader's lifetime *is* the context, there is no
"running" flag. The reader hands each event to the connection's
:class:`~.routing.EventRouter` in one call; :mod:`.routing` says who gets it.

Kept apart from :mod:`.connection`, which is what the connection does once open.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import trio

from .connection import CdpConnection
from .groups import raise_unwrapped
from .transport import DEFAULT_MAX_MESSAGE_SIZE, open_cdp_websocket

__all__ = ["open_cdp_connection"]


@asynccontextmanager
async def open_cdp_connection(
    ws_url: str,
    *,
    max_message_size: int = DEFAULT_MAX_MESSAGE_SIZE,
    connect_timeout: float = 10.0,
    disconnect_timeout: float = 2.0,
    headers: tuple[tuple[str, str], ...] = (),
) -> AsyncIterator[CdpConnection]:
    """Connect to a browser websocket endpoint (``ws://host:port/devtools/browser/...``).

    Failing to connect raises :class:`CdpConnectionLost` naming the URL. On exit
    anything still waiting on the connection fails with :class:`CdpConnectionLost`
    ("closed by its owner"), the reader is cancelled, and the socket is closed
    (politely for up to ``disconnect_timeout`` seconds, then abruptly).
    """
    async with open_cdp_websocket(
        ws_url,
        max_message_size=max_message_size,
        connect_timeout=connect_timeout,
        disconnect_timeout=disconnect_timeout,
        headers=headers,
    ) as websocket:
        connection = CdpConnection(websocket, ws_url)
        try:
            async with trio.open_nursery() as nursery:
                nursery.start_soon(connection._read)
                try:
                    yield connection
                finally:
                    connection._lose(f"CDP connection to {connection.url} closed by its owner")
                    nursery.cancel_scope.cancel()
        except BaseExceptionGroup as group:
            raise_unwrapped(group)
