"""A loopback websocket that carries Playwright's CDP over one of our connections.

Attached to a fleet's endpoint, every websocket opened to it reaches a browser of its
own (browserless and CDP-proxying grids start one per connection), so an attach keeps
exactly one socket upstream: its :class:`~.connection.CdpConnection`. Playwright, which
only connects to a URL, is given this relay's instead: a trio-websocket server on
``127.0.0.1``, port chosen by the system, at a path nobody can guess, that takes one
client, Playwright, and refuses any other. Its commands are written on our socket and
the browser's answers read from it; :mod:`.relaymap` says which messages are whose.

The relay lives in the nursery of the attach that opened it: leaving
:func:`open_playwright_relay` closes Playwright's socket, detaches Playwright's browser
session and stops the server. When our socket is lost, Playwright's socket closes with
it, so Playwright sees its browser disconnect as it would on a socket of its own.

Nothing on the way is logged: the upstream URL (a fleet's ``?token=``) never reaches
Playwright, which only knows the relay's loopback address.
"""

from __future__ import annotations

import functools
import json
import math
import secrets
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager, suppress

import trio
from trio_websocket import ConnectionClosed, WebSocketConnection, WebSocketRequest, serve_websocket

from .connection import CdpConnection
from .groups import raise_unwrapped
from .protocol import CdpFailure
from .relaymap import Forwarded, RelayMap
from .transport import DEFAULT_MAX_MESSAGE_SIZE

__all__ = ["open_playwright_relay"]

#: How long closing Playwright's socket, or detaching its browser session, may take.
_CLOSE_GRACE = 0.25


class _Relay:
    """The one Playwright connection a relay serves."""

    def __init__(self, cdp: CdpConnection, root_session: str, path: str) -> None:
        self.cdp = cdp
        self.map = RelayMap(root_session)
        self.path = path
        self.taken = False
        #: What Playwright gets, in the browser's order; the reader never waits on it.
        self.to_playwright, self._outbox = trio.open_memory_channel[str | bytes](math.inf)

    async def handle(self, request: WebSocketRequest) -> None:
        if request.path != self.path:
            await request.reject(404, body=b"nothing is served here")
            return
        if self.taken:
            await request.reject(409, body=b"this relay serves one client")
            return
        self.taken = True
        client = await request.accept()
        undivert = self.cdp.divert(self._from_browser)
        try:
            async with trio.open_nursery() as nursery:
                nursery.start_soon(self._to_client, client, nursery.cancel_scope)
                nursery.start_soon(self._watch_loss, nursery.cancel_scope)
                await self._from_client(client)
                nursery.cancel_scope.cancel()
        finally:
            undivert()
            # Playwright does not answer a close frame once it has let go of the browser
            # (measured: the full bound, every close_session): a short polite try, then
            # the socket goes anyway.
            with trio.move_on_after(_CLOSE_GRACE) as cleanup:
                cleanup.shield = True
                await client.aclose()

    def _from_browser(self, raw: str | bytes, peeked: tuple[str, str] | None) -> bool:
        text = self.map.from_browser(raw, peeked)
        if text is None:
            return False
        self.to_playwright.send_nowait(text)
        return True

    async def _from_client(self, client: WebSocketConnection) -> None:
        """Playwright's commands, written on our socket one after another, in its order."""
        try:
            while True:
                raw = await client.get_message()
                forwarded = self.map.command(raw, self.cdp.claim_id())
                if isinstance(forwarded, Forwarded):
                    await self.cdp.write(forwarded.text)
                elif forwarded.reply is not None:
                    self.to_playwright.send_nowait(forwarded.reply)
        except (ConnectionClosed, CdpFailure):
            return

    async def _to_client(self, client: WebSocketConnection, done: trio.CancelScope) -> None:
        try:
            async for text in self._outbox:
                await client.send_message(text)
        except ConnectionClosed:
            done.cancel()

    async def _watch_loss(self, done: trio.CancelScope) -> None:
        await self.cdp.wait_lost()
        done.cancel()


@asynccontextmanager
async def open_playwright_relay(cdp: CdpConnection, *, timeout: float = 10.0) -> AsyncIterator[str]:
    """Serve a relay for one Playwright client over ``cdp``; yields its loopback
    ``ws://`` URL, for ``connect_over_cdp``."""
    attached = await cdp.send("Target.attachToBrowserTarget", timeout=timeout)
    root_session = attached["sessionId"]
    if not isinstance(root_session, str):
        raise CdpFailure(f"Target.attachToBrowserTarget answered no session id: {attached!r}")
    relay = _Relay(cdp, root_session, f"/devtools/browser/relay-{secrets.token_hex(16)}")
    try:
        async with trio.open_nursery() as nursery:
            server = await nursery.start(functools.partial(
                serve_websocket, relay.handle, "127.0.0.1", 0, None, max_message_size=DEFAULT_MAX_MESSAGE_SIZE))
            try:
                yield f"ws://127.0.0.1:{server.port}{relay.path}"
            finally:
                nursery.cancel_scope.cancel()
    except BaseExceptionGroup as group:  # what the body raised, as itself
        raise_unwrapped(group)
    finally:
        # Written, not awaited: the browser's answer to this detach was seen not to come
        # while the attach was ending (a 2 s wait per close_session), and the socket
        # that closes next detaches the session anyway.
        with trio.CancelScope(shield=True), trio.move_on_after(_CLOSE_GRACE):
            if cdp.lost is None:
                with suppress(CdpFailure):
                    await cdp.write(json.dumps({"id": cdp.claim_id(), "method": "Target.detachFromTarget",
                                                "params": {"sessionId": root_session}}), timeout=_CLOSE_GRACE)
