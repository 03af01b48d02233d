"""Frames go to the operator socket and nowhere else: the real server over real stdio MCP.

The server runs as a subprocess (``browx-actors serve --log-level DEBUG``) with
operator-channel, live-view and diagnostics on; the reference daemon listens in the
test, receives a stream of an animating page and keeps every frame line. Meanwhile the
agent calls tools, a screenshot among them. Then every output is searched for pieces of
those frames: every tool result the MCP client received (text, structured content,
images), the server's stderr, and every file in its workspace (the diagnostics store
included). None may hold one.
"""

from __future__ import annotations

import base64
from pathlib import Path
from typing import Any

import pytest
import trio
from mcp.client import Client

from e2e_support import Recording, Transcript, call, ok, recording_server
from browx_actors.daemon import Daemon

TOKEN = "e2e-live-9d41"
WAIT = 30


def needles(frame_lines: list[dict[str, Any]]) -> tuple[list[str], list[bytes]]:
    """Pieces of the frames: base64 runs from their parts, and raw JPEG runs from their middles."""
    texts, raws = [], []
    for line in frame_lines[:: max(1, len(frame_lines) // 8)]:
        data = line["data"]
        texts.append(data[len(data) // 2:len(data) // 2 + 48])
        chunk = base64.b64decode(data)
        raws.append(chunk[len(chunk) // 2:len(chunk) // 2 + 32])
    return texts, raws


async def test_frames_appear_in_no_tool_result_log_record_or_file(tmp_path: Path, pages_url: str,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    socket_path = tmp_path / "op.sock"
    workspace = tmp_path / "ws"
    monkeypatch.setenv("BROWX_OPERATOR_SOCKET", str(socket_path))
    monkeypatch.setenv("BROWX_OPERATOR_TOKEN", TOKEN)
    frame_lines: list[dict[str, Any]] = []
    others: list[dict[str, Any]] = []
    daemon = Daemon(str(socket_path), TOKEN, out=lambda text: None, frames_dir=tmp_path / "daemon-frames",
                    on_line=lambda m: (frame_lines if m["type"] == "frame" else others).append(m))
    record = Recording()
    async with trio.open_nursery() as nursery:
        await nursery.start(daemon.run)
        async with Client(recording_server(workspace, "operator-channel,live-view,diagnostics,eval", record,
                                           "--log-level", "DEBUG")) as client:
            client.transcript = Transcript()  # type: ignore[attr-defined]
            names = {tool.name for tool in (await client.list_tools()).tools}
            assert not {name for name in names if any(w in name for w in ("live", "stream", "frame", "screencast"))}
            await ok(client, "navigate", {"url": f"{pages_url}/live_anim.html"})
            with trio.fail_after(WAIT):
                while daemon.links == 0:
                    await trio.sleep(0.05)
            await daemon.start_view("default", maxWidth=1280, quality=80)
            with trio.fail_after(WAIT):
                while len({m["seq"] for m in frame_lines}) < 8:
                    await trio.sleep(0.05)
            for tool, args in [("snapshot", {}), ("screenshot", {}), ("screenshot", {"format": "jpeg"}),
                               ("runtime_status", {}), ("list_sessions", {}), ("eval_js", {"expr": "1 + 1"}),
                               ("diagnostics_report", {"format": "summary"}),
                               ("diagnostics_search", {"query": "frame"})]:
                await call(client, tool, args)
            await daemon.stop_view("default")
            with trio.fail_after(WAIT):
                while not any(m["type"] == "view.stopped" for m in others):
                    await trio.sleep(0.05)
            transcript: Transcript = client.transcript  # type: ignore[attr-defined]
        nursery.cancel_scope.cancel()

    texts, raws = needles(frame_lines)
    assert len(texts) >= 8 and all(len(t) == 48 for t in texts) and all(len(r) == 32 for r in raws)
    seen_by_agent = transcript.everything()
    assert transcript.images, "the screenshots reached the agent as images"
    files = [path for path in workspace.rglob("*") if path.is_file()]
    assert any("diagnostics" in path.parts for path in files), "the calls were recorded"
    stderr = record.stderr
    assert b"live view of 'default'" in stderr  # the stream did log, at DEBUG level and up
    for text in texts:
        assert text not in seen_by_agent
        assert text.encode() not in stderr
    for raw in raws:
        assert all(raw not in image for image in transcript.images)
        assert raw not in stderr
    for path in files:
        content = path.read_bytes()
        assert not any(text.encode() in content for text in texts), path
        assert not any(raw in content for raw in raws), path
