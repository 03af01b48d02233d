"""A recorder killed with SIGKILL mid-run leaves no torn line.

The test runs this very file as a script: a real Recorder actor fed by a loop of call
records and notes of varied sizes (many lines straddle where a page boundary would
be). The parent kills it with SIGKILL at a varied moment, several times, and checks
that every file ends on a newline and every line in it parses.
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import trio

from browx_actors.recorder import Recorder, RecorderInbox, RecordNote
from browx_actors.server.dispatch import CallRecord

SESSIONS = ("s1", "s2", "s3")


async def _write_forever(workspace: Path) -> None:
    """The child: record in a loop until killed."""
    rng = random.Random(os.getpid())
    inbox = RecorderInbox.open()
    recorder = Recorder(inbox, workspace, recording=True, retention_days=0)
    async with trio.open_nursery() as nursery:
        await nursery.start(recorder.run)
        i = 0
        while True:
            i += 1
            args = {f"k{j}": "x" * rng.randrange(1, 250) for j in range(rng.randrange(0, 16))}
            inbox.submit(CallRecord("fill", SESSIONS[i % 3], args, {"ok": True, "n": i},
                                    rng.random() * 50, 0, time.time()))
            if i % 50 == 0:
                await recorder.ref.call(RecordNote(SESSIONS[i % 3], "n" * rng.randrange(1, 3500), "other", "info"))
            if i % 20 == 0:
                await trio.lowlevel.checkpoint()


def _check(workspace: Path) -> int:
    lines = 0
    files = list((workspace / "diagnostics").rglob("*.jsonl"))
    assert files
    for path in files:
        data = path.read_bytes()
        *complete, tail = data.split(b"\n")
        # A kill between the two pages of a padded write leaves only the spaces that
        # opened the record's line: nothing of a record is ever cut.
        assert not tail.strip(), f"{path} ends in a torn line: {data[-80:]!r}"
        for raw in complete:
            record = json.loads(raw)  # every line is one JSON value as it is
            assert record["kind"] in ("call", "note", "dropped")
            lines += 1
    return lines


def test_sigkill_mid_run_leaves_no_torn_line(tmp_path: Path) -> None:
    rng = random.Random(1234)
    for round_ in range(5):
        workspace = tmp_path / f"round{round_}"
        # PYTHONPATH: the child must run this checkout's store, not the venv's.
        child = subprocess.Popen([sys.executable, __file__, str(workspace)],
                                 env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])})
        try:
            target = rng.randrange(50_000, 1_000_000)
            deadline = time.monotonic() + 60
            while time.monotonic() < deadline:
                size = sum(p.stat().st_size for p in workspace.rglob("*.jsonl")) if workspace.exists() else 0
                if size >= target:
                    break
                assert child.poll() is None, "the writer exited on its own"
                time.sleep(0.005)
            time.sleep(rng.random() * 0.05)
            os.kill(child.pid, signal.SIGKILL)
        finally:
            child.wait(timeout=10)
        assert child.returncode == -signal.SIGKILL
        assert _check(workspace) > 50


if __name__ == "__main__":
    trio.run(_write_forever, Path(sys.argv[1]))
