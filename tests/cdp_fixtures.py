"""Fixtures and helpers for the CDP tests: a real headless Chromium and a scripted peer.

pytest-trio runs every test in its own ``trio.run``, so each test that asks for
``chromium`` gets its own browser (about half a second to start). A missing browser
raises ``ChromiumNotFound`` from the fixture: the test errors, it is never skipped.

The scripted peer is a trio-websocket server on 127.0.0.1 that answers commands in
the ``Test.*`` domain, so the connection's routing, loss and overflow rules can be
driven message by message without a browser.
"""

from __future__ import annotations

import functools
import json
import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager, suppress
from typing import Any

import pytest
import trio
from trio_websocket import (
    ConnectionClosed,
    WebSocketConnection,
    WebSocketRequest,
    serve_websocket,
)

from browx_actors.cdp import (
    CdpConnection,
    ChromiumProcess,
    TargetLink,
    launch_chromium,
    open_cdp_connection,
)

__all__ = [
    "cdp",
    "chromium",
    "fake_peer",
    "is_alive",
    "live_processes",
    "new_page",
]


@pytest.fixture
async def chromium() -> AsyncIterator[ChromiumProcess]:
    async with launch_chromium() as browser:
        yield browser


@pytest.fixture
async def cdp(chromium: ChromiumProcess) -> AsyncIterator[CdpConnection]:
    async with open_cdp_connection(chromium.ws_url) as connection:
        yield connection


async def new_page(connection: CdpConnection, url: str = "about:blank") -> TargetLink:
    """A fresh page target and a flat session attached to it."""
    created = await connection.send("Target.createTarget", {"url": url})
    return await connection.attach(created["targetId"])


def live_processes(pgid: int, marker: str) -> list[int]:
    """Non-zombie processes in group ``pgid`` or whose command line contains ``marker``.

    Written independently of the launcher's own scan on purpose. Zombies are dead
    processes waiting for init to reap them; they run nothing and are not counted.
    """
    found = []
    needle = marker.encode()
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == os.getpid():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as f:
                after_name = f.read().rpartition(b")")[2].split()
            with open(f"/proc/{entry}/cmdline", "rb") as f:
                cmdline = f.read()
        except OSError:
            continue
        state, pgrp = after_name[0], int(after_name[2])
        if state == b"Z":
            continue
        if pgrp == pgid or needle in cmdline:
            found.append(int(entry))
    return found


def is_alive(pid: int) -> bool:
    """True while ``pid`` exists and is not a zombie."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            return f.read().rpartition(b")")[2].split()[0] != b"Z"
    except OSError:
        return False


# -- the scripted peer ---------------------------------------------------------------


class _PeerScript:
    """Answers ``Test.*`` commands; anything else gets a 'wasn't found' error like Chromium.

    * ``Test.echo`` replies with its params (sessionId echoed back in the reply).
    * ``Test.error`` replies ``{"error": {"code": -32000, "message": params.message}}``.
    * ``Test.silent`` never replies; ``Test.answerSilent`` then answers all of them
      (late replies for the client to count as unknown).
    * ``Test.hold`` replies are held until ``params.count`` are waiting, then sent in
      reverse order (routing by id, not by order).
    * ``Test.emit`` sends each of ``params.raw`` (strings, or ``{"bytes": hex}``) as a
      websocket message, then replies ``{}``.
    * ``Test.close`` closes the socket with ``params.code`` and ``params.reason``.
    * ``Test.stall`` stops reading for good (its handler never returns), so the
      client's writes back up until the kernel buffers are full.
    """

    def __init__(self) -> None:
        self.silent: list[int] = []
        self.held: list[int] = []
        self.received: list[dict[str, Any]] = []

    async def run(self, ws: WebSocketConnection) -> None:
        while True:
            command = json.loads(await ws.get_message())
            self.received.append(command)
            await self.handle(ws, command)

    async def handle(self, ws: WebSocketConnection, command: dict[str, Any]) -> None:
        command_id = command["id"]
        method = command["method"]
        params = command.get("params", {})
        reply: dict[str, Any] = {"id": command_id}
        if "sessionId" in command:
            reply["sessionId"] = command["sessionId"]
        if method == "Test.echo":
            await ws.send_message(json.dumps({**reply, "result": params}))
        elif method == "Test.error":
            error = {"code": -32000, "message": params["message"]}
            await ws.send_message(json.dumps({**reply, "error": error}))
        elif method == "Test.silent":
            self.silent.append(command_id)
        elif method == "Test.answerSilent":
            for silent_id in self.silent:
                await ws.send_message(json.dumps({"id": silent_id, "result": {"late": True}}))
            self.silent.clear()
            await ws.send_message(json.dumps({**reply, "result": {}}))
        elif method == "Test.hold":
            self.held.append(command_id)
            if len(self.held) >= params["count"]:
                for held_id in reversed(self.held):
                    await ws.send_message(json.dumps({"id": held_id, "result": {"id": held_id}}))
                self.held.clear()
        elif method == "Test.emit":
            for raw in params["raw"]:
                if isinstance(raw, dict):
                    await ws.send_message(bytes.fromhex(raw["bytes"]))
                else:
                    await ws.send_message(raw)
            await ws.send_message(json.dumps({**reply, "result": {}}))
        elif method == "Test.stall":
            await trio.sleep_forever()
        elif method == "Test.close":
            await ws.aclose(params["code"], params["reason"])
        elif method == "Target.attachToTarget":
            session_id = "S-" + params["targetId"]
            await ws.send_message(json.dumps({**reply, "result": {"sessionId": session_id}}))
        elif method == "Target.detachFromTarget":
            await ws.send_message(json.dumps({**reply, "result": {}}))
        else:
            error = {"code": -32601, "message": f"'{method}' wasn't found"}
            await ws.send_message(json.dumps({**reply, "error": error}))


@asynccontextmanager
async def fake_peer() -> AsyncIterator[tuple[str, _PeerScript]]:
    """A scripted CDP peer on loopback: yields ``(ws_url, script)``."""
    script = _PeerScript()

    async def handler(request: WebSocketRequest) -> None:
        ws = await request.accept()
        # The client went away, or a test closed the socket: the peer is done.
        with suppress(ConnectionClosed):
            await script.run(ws)

    async with trio.open_nursery() as nursery:
        server = await nursery.start(
            functools.partial(serve_websocket, max_message_size=256 * 1024 * 1024),
            handler,
            "127.0.0.1",
            0,
            None,
        )
        yield f"ws://127.0.0.1:{server.port}/devtools/browser/fake", script
        nursery.cancel_scope.cancel()
