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

from browx_actors.daemon import Daemon
from e2e_support import Recording, Transcript, call, ok, recording_server
from polling import poll_until

TOKEN = "e2e-live-9d41"
WAIT = 30


def needles(frame_lines: list[dict[str, Any]]) -> tuple[list[str], list[bytes]]:
    """Pieces that belong to one frame only: base64 runs of its parts and raw runs of its JPEG.

    A run from a flat part of the page would not do: flat blocks encode to the same
    bytes in every JPEG made with the standard Huffman tables, a screenshot's included.
    So each needle is a run found in no other frame of the stream, which only the
    moving parts of the page give.
    """
    jpegs: dict[int, bytes] = {}
    texts_by_seq: dict[int, str] = {}
    for line in frame_lines:
        jpegs[line["seq"]] = jpegs.get(line["seq"], b"") + base64.b64decode(line["data"])
        texts_by_seq[line["seq"]] = texts_by_seq.get(line["seq"], "") + line["data"]
    seqs = sorted(jpegs)
    texts, raws = [], []
    for seq in seqs[:: max(1, len(seqs) // 8)]:
        others_raw = [jpegs[s] for s in seqs if s != seq]
        others_text = [texts_by_seq[s] for s in seqs if s != seq]
        raw = _unique_run(jpegs[seq], others_raw, 32)
        text = _unique_run(texts_by_seq[seq], others_text, 48)
        if raw is not None and text is not None:
            raws.append(raw)
            texts.append(text)
    return texts, raws


def _unique_run(data: Any, others: list[Any], size: int) -> Any:
    """A run of ``size`` from the middle outwards that is in none of ``others``."""
    middle = len(data) // 2
    for step in range(0, middle - size, 97):
        for at in (middle + step, middle - step):
            run = data[at:at + size]
            if len(run) == size and not any(run in other for other in others):
                return run
    return None


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
            # No tool starts, stops, reads or detects a view. (frames_list is the page's
            # iframes, a page tool: it is the one name with "frame" in it that may be there.)
            words = ("live", "stream", "frame", "screencast", "view.")
            assert {name for name in names if any(w in name for w in words)} <= {"frames_list"}
            assert names & {"navigate", "snapshot", "runtime_status"}, "the tool list is the real one"
            await ok(client, "navigate", {"url": f"{pages_url}/live_anim.html"})
            await poll_until(lambda: daemon.links != 0, interval=0.05, timeout=WAIT)
            # Sizes and a quality no screenshot uses: a frame's bytes cannot be one's by chance.
            await daemon.start_view("default", maxWidth=800, quality=55)
            await poll_until(lambda: len({m["seq"] for m in frame_lines}) >= 8, interval=0.05, timeout=WAIT)
            for tool, args in [("snapshot", {}), ("screenshot", {}), ("screenshot", {"format": "jpeg"}),
                               ("runtime_status", {}), ("list_sessions", {}), ("eval_js", {"expr": "1 + 1"}),
                               ("diagnostics_report", {"format": "summary"}),
                               ("diagnostics_search", {"query": "frame"})]:
                await call(client, tool, args)
            await daemon.stop_view("default")
            await poll_until(lambda: any(m["type"] == "view.stopped" for m in others), interval=0.05, timeout=WAIT)
            transcript: Transcript = client.transcript  # type: ignore[attr-defined]
        nursery.cancel_scope.cancel()

    texts, raws = needles(frame_lines)
    assert len(texts) >= 6 and all(len(t) == 48 for t in texts) and all(len(r) == 32 for r in raws)
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
