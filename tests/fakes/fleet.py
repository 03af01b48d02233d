"""A browser fleet's CDP endpoint, behaving as browserless 2.x and CDP-proxying grids do.

``ws://127.0.0.1:PORT/?token=T`` starts a new Chromium for every websocket and relays
the socket to it; ``/devtools/browser/<id>?token=T`` relays to the browser with that id
that this fleet already runs (browserless' reconnect path), and answers 404 for any
other id. The token rides the query or an ``Authorization: Bearer`` header; a missing or
wrong one is refused with 401 before anything starts. The
browser lives while the socket that started it is open, then closes.

Each browser is started as a fleet starts it: headless, without the flags browx-actors
gives its own Chromium (no --disable-renderer-backgrounding and the like), so a tab
that is not in front is throttled as on a real fleet.

Any CDP client can use it: ``python -m tests.fakes.fleet --token T`` prints its URL.
"""

from __future__ import annotations

import argparse
import functools
import os
import shutil
import subprocess
import tempfile
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import attrs
import trio
from trio_websocket import ConnectionClosed, WebSocketConnection, WebSocketRequest, open_websocket_url, serve_websocket

from browx_actors.cdp.launcher import find_chromium, parse_devtools_active_port

#: CDP carries screenshots of many MiB.
MAX_MESSAGE = 256 * 1024 * 1024
#: What a fleet gives its browsers: enough to run in a container, nothing of ours.
FLEET_FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
               "--remote-debugging-port=0", "about:blank")


@asynccontextmanager
async def fleet_chromium() -> AsyncIterator[str]:
    """A Chromium as a fleet starts it; yields its browser websocket URL."""
    profile = tempfile.mkdtemp(prefix="fleet-chromium-")
    process = await trio.lowlevel.open_process(
        [find_chromium(), f"--user-data-dir={profile}", *FLEET_FLAGS],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        active = Path(profile) / "DevToolsActivePort"
        # Chromium writes the file when it listens; there is nothing to wait on but the file.
        with trio.fail_after(30):
            while (parsed := parse_devtools_active_port(active.read_text() if active.exists() else "")) is None:  # noqa: ASYNC110
                await trio.sleep(0.05)
        port, path = parsed
        yield f"ws://127.0.0.1:{port}{path}"
    finally:
        with trio.CancelScope(shield=True):
            process.terminate()
            with trio.move_on_after(5):
                await process.wait()
            if process.returncode is None:
                os.killpg(process.pid, 9)
                await process.wait()
            shutil.rmtree(profile, ignore_errors=True)


@attrs.define
class Fleet:
    token: str
    port: int = 0
    #: Browsers started, ever; and the ones running, by id, with their websocket URL.
    launched: int = 0
    running: dict[str, str] = attrs.field(factory=dict)
    #: Every path a socket asked for, token included (what reached the fleet).
    paths: list[str] = attrs.field(factory=list)

    @property
    def url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/?token={self.token}"

    async def handle(self, request: WebSocketRequest) -> None:
        self.paths.append(request.path)
        parts = urlsplit(request.path)
        headers = {name.decode().lower(): value.decode() for name, value in request.headers}
        by_header = headers.get("authorization") == f"Bearer {self.token}"
        if parse_qs(parts.query).get("token") != [self.token] and not by_header:
            await request.reject(401, body=b"token missing or wrong")
            return
        if parts.path.startswith("/devtools/browser/"):
            upstream = self.running.get(parts.path.rsplit("/", 1)[1])
            if upstream is None:
                await request.reject(404, body=b"no such browser")
                return
            await _relay(await request.accept(), upstream)
            return
        if parts.path not in ("", "/"):
            await request.reject(404, body=b"unknown path")
            return
        async with fleet_chromium() as upstream:
            self.launched += 1
            browser_id = urlsplit(upstream).path.rsplit("/", 1)[1]
            self.running[browser_id] = upstream
            try:
                await _relay(await request.accept(), upstream)
            finally:
                del self.running[browser_id]


async def _relay(downstream: WebSocketConnection, upstream_url: str) -> None:
    """Copy messages both ways until either side closes."""
    async with open_websocket_url(upstream_url, max_message_size=MAX_MESSAGE) as upstream:

        async def copy(source: WebSocketConnection, sink: WebSocketConnection, done: trio.CancelScope) -> None:
            try:
                while True:
                    await sink.send_message(await source.get_message())
            except ConnectionClosed:
                done.cancel()

        async with trio.open_nursery() as nursery:
            nursery.start_soon(copy, downstream, upstream, nursery.cancel_scope)
            nursery.start_soon(copy, upstream, downstream, nursery.cancel_scope)
    with trio.move_on_after(2):
        await downstream.aclose()


async def run_fleet(fleet: Fleet, *, task_status: trio.TaskStatus[Fleet] = trio.TASK_STATUS_IGNORED) -> None:
    """Serve ``fleet`` on a free loopback port until cancelled."""
    async with trio.open_nursery() as handlers:
        server = await handlers.start(functools.partial(
            serve_websocket, fleet.handle, "127.0.0.1", 0, None, max_message_size=MAX_MESSAGE))
        fleet.port = server.port
        task_status.started(fleet)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--token", required=True)
    token = parser.parse_args().token

    async def serve() -> None:
        async with trio.open_nursery() as nursery:
            fleet = await nursery.start(run_fleet, Fleet(token))
            print(fleet.url, flush=True)

    trio.run(serve)


if __name__ == "__main__":
    main()
