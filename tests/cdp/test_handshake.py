"""A refusal whose body has no stated length is heard at once: the pure rewrite of its
head, then over loopback against a peer that refuses as browserless does (a wrong token:
401 with a body and neither Content-Length nor chunking, the socket left open), on the
CDP and BiDi openings. A real browser's upgrade is covered by every other CDP test."""

from __future__ import annotations

import functools
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import pytest
import trio

from browx_actors.bidi.connection import open_bidi_connection
from browx_actors.bidi.protocol import BidiConnectionLost
from browx_actors.cdp import CdpConnectionLost, open_cdp_connection
from browx_actors.cdp.handshake import with_stated_length

REFUSAL = b"HTTP/1.1 401 Unauthorized\r\nContent-Type: text/plain\r\nConnection: keep-alive\r\n\r\nBad token"


def test_a_refusal_without_a_length_gets_content_length_zero_and_loses_its_body() -> None:
    head_end = REFUSAL.index(b"\r\n\r\n") + 4
    assert with_stated_length(REFUSAL, head_end) == REFUSAL[:head_end - 2] + b"Content-Length: 0\r\n\r\n"


@pytest.mark.parametrize("head", [
    b"HTTP/1.1 401 Unauthorized\r\nContent-Length: 9\r\n\r\nBad token",
    b"HTTP/1.1 429 Too Many Requests\r\ntransfer-encoding: chunked\r\n\r\n9\r\nBad token\r\n0\r\n\r\n",
    b"HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n\r\n\x81\x02hi",  # a frame right behind
    b"SSH-2.0-OpenSSH_9.6\r\n\r\n",
])
def test_everything_else_passes_unchanged(head: bytes) -> None:
    assert with_stated_length(head, head.index(b"\r\n\r\n") + 4) == head


@asynccontextmanager
async def refusing_peer(*, close: bool) -> AsyncIterator[int]:
    """A TCP peer that reads the upgrade request and answers :data:`REFUSAL`, then
    closes (``close``) or holds the socket open."""
    async def answer(stream: trio.SocketStream) -> None:
        request = b""
        while b"\r\n\r\n" not in request:
            request += await stream.receive_some(4096)
        await stream.send_all(REFUSAL)
        if close:
            await stream.aclose()
        else:
            await trio.sleep_forever()

    async with trio.open_nursery() as nursery:
        (listener,) = await nursery.start(functools.partial(trio.serve_tcp, answer, 0, host="127.0.0.1"))
        yield listener.socket.getsockname()[1]
        nursery.cancel_scope.cancel()


@pytest.mark.parametrize("close", [False, True], ids=["held-open", "closed"])
async def test_the_cdp_opening_names_the_refusal_at_once(close: bool) -> None:
    async with refusing_peer(close=close) as port:
        with trio.fail_after(5):  # the connect timeout is 30 s: a hang guard, not a timing assertion
            with pytest.raises(CdpConnectionLost, match="answered HTTP 401: it wants credentials"):
                async with open_cdp_connection(f"ws://127.0.0.1:{port}/devtools/browser/x?token=wrong",
                                               connect_timeout=30):
                    pass


async def test_the_bidi_opening_names_the_refusal_at_once() -> None:
    async with refusing_peer(close=False) as port:
        with trio.fail_after(5):
            with pytest.raises(BidiConnectionLost, match="answered HTTP 401"):
                async with open_bidi_connection(f"ws://127.0.0.1:{port}/session"):
                    pass
