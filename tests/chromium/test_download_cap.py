"""The download cap: no download larger than BROWX_DOWNLOAD_MAX_BYTES is saved.

Before it, a download was saved whole whatever its size (a 1 GB one was). The e2e test
runs the real server with a 1 MiB cap against a local HTTP server of its own: a body
that announces its size, one that does not (chunked), and one small enough to arrive
whole between two of the browser's progress events. Each is cancelled or not copied;
its record is ``canceled`` and says it was over the cap; nothing of it is in the
workspace, and the paced ones were cut off before their last byte was sent. A small
download is saved as before. A second test takes the progress watch away, so the save's
own guard (a finished download over the cap is not copied) is shown alone. The cap's
rules are pure and tested first.
"""

from __future__ import annotations

import http.server
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from browx_actors import open_runtime
from browx_actors.config import DOWNLOAD_MAX_BYTES, RuntimeConfig, parse_download_max_bytes
from browx_actors.sessions.chromium.page.download_cap import DownloadCap
from browx_actors.sessions.chromium.page.downloads import Downloads, over_cap
from e2e_support import browx_server, ok
from polling import poll_until

CAP = 1024 * 1024
#: The paced bodies: 64 MiB in 64 KiB chunks, a pause every chunk (about 10 s whole).
BIG = 64 * 1024 * 1024
CHUNK = 64 * 1024
PAGE = b"""<!doctype html><title>downloads</title>
<a id="small" href="/small" download="small.bin">small</a>
<a id="sized" href="/sized" download="sized.bin">sized</a>
<a id="chunked" href="/chunked" download="chunked.bin">chunked</a>
<a id="burst" href="/burst" download="burst.bin">burst</a>"""


# -- the rules ------------------------------------------------------------------------


def test_over_cap_is_the_announced_size_else_what_arrived() -> None:
    assert over_cap(received=0, total=0, cap=10) is None
    assert over_cap(received=10, total=10, cap=10) is None
    assert over_cap(received=0, total=11, cap=10) == 11
    assert over_cap(received=11, total=0, cap=10) == 11
    assert over_cap(received=3, total=50, cap=10) == 50


def test_a_download_over_the_cap_is_cancelled_once_and_told_to_its_record(tmp_path: Path) -> None:
    downloads = Downloads(tmp_path / "downloads" / "s", max_bytes=100)
    downloads.started("g1", "http://x/big")
    downloads.started("g2", "http://x/small")
    assert downloads.progressed("g2", 50, 50, "inProgress") is False
    assert downloads.progressed("g2", 50, 50, "completed") is False
    assert downloads.progressed("g1", 10, 0, "inProgress") is False
    assert downloads.progressed("g1", 101, 0, "inProgress") is True
    assert downloads.progressed("g1", 200, 0, "inProgress") is False, "cancelled once"
    assert downloads.progressed("unknown", 500, 500, "inProgress") is False
    assert downloads.cancelled_for_size("http://x/small") is None
    assert downloads.cancelled_for_size("http://x/big") == 101
    assert downloads.cancelled_for_size("http://x/big") is None, "told to one record"
    assert downloads.over_cap_failure(101) == ("larger than the download cap (BROWX_DOWNLOAD_MAX_BYTES = 100 "
                                               "bytes): at least 101 bytes")


def test_the_cap_is_configured_in_bytes() -> None:
    assert parse_download_max_bytes(None) == parse_download_max_bytes(" ") == DOWNLOAD_MAX_BYTES == 256 * 1024 * 1024
    assert parse_download_max_bytes("1048576") == parse_download_max_bytes("1_048_576") == CAP
    for bad in ("0", "-5", "1.5", "1MB", "lots"):
        with pytest.raises(ValueError, match="BROWX_DOWNLOAD_MAX_BYTES"):
            parse_download_max_bytes(bad)
    assert RuntimeConfig.from_env({"BROWX_DOWNLOAD_MAX_BYTES": "4096"}).download_max_bytes == 4096
    assert RuntimeConfig.from_env({}).download_max_bytes == DOWNLOAD_MAX_BYTES


# -- end to end -----------------------------------------------------------------------


class _Served:
    """Bytes each path has sent so far, and whether it sent its last."""

    def __init__(self) -> None:
        self.sent: dict[str, int] = {}
        self.whole: dict[str, bool] = {}


@contextmanager
def _download_server() -> Iterator[tuple[str, _Served]]:
    served = _Served()

    class Handler(http.server.BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: object) -> None:
            pass

        def do_GET(self) -> None:
            if self.path == "/":
                self._head("text/html", len(PAGE))
                self.wfile.write(PAGE)
                return
            bodies = {"/small": (1000, True, False), "/sized": (BIG, True, True), "/chunked": (BIG, False, True),
                      "/burst": (2 * CAP, True, False)}
            if self.path not in bodies:  # the browser's /favicon.ico
                self.send_error(404)
                return
            size, announce, paced = bodies[self.path]
            self._head("application/octet-stream", size if announce else None)
            served.sent[self.path], served.whole[self.path] = 0, False
            try:
                for _ in range(size // CHUNK if size >= CHUNK else 1):
                    piece = b"x" * min(CHUNK, size)
                    self.wfile.write(piece)
                    served.sent[self.path] += len(piece)
                    if paced:
                        time.sleep(0.01)
                self.wfile.flush()
            except OSError:  # the browser hung up: the download was cancelled
                return
            served.whole[self.path] = True

        def _head(self, kind: str, length: int | None) -> None:
            self.send_response(200)
            self.send_header("Content-Type", kind)
            if length is not None:
                self.send_header("Content-Length", str(length))
            else:
                self.send_header("Connection", "close")
            self.end_headers()

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", served
    finally:
        server.shutdown()
        server.server_close()


async def _ended(client: Any, download_id: int) -> dict[str, Any]:
    async def look() -> dict[str, Any] | None:
        listed = await ok(client, "downloads_list", {"details": True})
        found = next(d for d in listed["downloads"] if d["id"] == download_id)
        return found if found["state"] != "in-progress" else None

    return await poll_until(look, interval=0.1, timeout=60)


@pytest.mark.chromium
async def test_a_download_over_the_cap_is_cancelled_and_its_record_says_why(tmp_path: Path) -> None:
    workspace = tmp_path / "ws"
    folder = workspace / "downloads" / "default"
    with _download_server() as (base, served):
        async with browx_server(workspace, env={"BROWX_DOWNLOAD_MAX_BYTES": str(CAP)}) as client:
            await ok(client, "navigate", {"url": f"{base}/"})
            small = (await ok(client, "click", {"selector": "#small"}))["downloads"][0]
            assert (small["state"], small["size"], small["path"]) == ("completed", 1000, "downloads/default/small.bin")
            assert (folder / "small.bin").read_bytes() == b"x" * 1000

            for number, name in enumerate(("sized", "chunked", "burst"), start=2):
                await ok(client, "click", {"selector": f"#{name}"})
                record = await _ended(client, number)
                assert record["state"] == "canceled", record
                assert record["failure"].startswith(
                    "larger than the download cap (BROWX_DOWNLOAD_MAX_BYTES = 1,048,576 bytes): at least "), record
                assert record["path"] is None and record["size"] is None, record
                assert not (folder / f"{name}.bin").exists(), name
                if name != "burst":  # cut off while it arrived: the rest was never sent
                    assert not served.whole[f"/{name}"] and served.sent[f"/{name}"] < BIG, (name, served.sent)
            listed = await ok(client, "downloads_list")
            assert listed["downloads"][1].startswith("d2 canceled (larger than the download cap"), listed
            everything = [p for p in workspace.rglob("*") if p.is_file()]
            assert all(p.stat().st_size <= CAP for p in everything), everything


@pytest.mark.chromium
async def test_a_download_that_ends_over_the_cap_before_it_is_caught_is_not_copied(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The save's own guard, alone: with the browser's progress unwatched (as when a
    download arrives whole between two progress events), the finished download is over
    the cap, so nothing of it is copied into the workspace and its record says why."""

    async def unwatched(self: DownloadCap, cdp: object, kind: str) -> None:
        return None

    monkeypatch.setattr(DownloadCap, "setup", unwatched)
    workspace = tmp_path / "ws"
    with _download_server() as (base, served):
        config = RuntimeConfig.from_env({}, workspace=workspace, download_max_bytes=CAP)
        async with open_runtime(config=config) as runtime:
            assert (await runtime.call_tool("navigate", {"url": f"{base}/"}))["ok"]
            clicked = await runtime.call_tool("click", {"selector": "#burst"})
            record = clicked["downloads"][0] if clicked.get("downloads") else None
            if record is None or record["state"] == "in-progress":
                listed = await poll_until(lambda: _settled(runtime), interval=0.1, timeout=60)
                record = listed[0]
            assert served.whole["/burst"], "the browser had all of it"
            assert (record["state"], record["path"]) == ("canceled", None), record
            assert record["failure"] == ("larger than the download cap (BROWX_DOWNLOAD_MAX_BYTES = 1,048,576 bytes): "
                                         "at least 2,097,152 bytes")
    assert [p for p in workspace.rglob("*") if p.is_file()] == []


async def _settled(runtime: Any) -> list[dict[str, Any]] | None:
    listed = (await runtime.call_tool("downloads_list", {"details": True}))["downloads"]
    return listed if listed and listed[0]["state"] != "in-progress" else None
