"""The Recorder actor and the dispatch hook, without a browser: back-pressure, drops on
record, refusals, session close, retention on start, draining on stop, and the hook's
"off" path building nothing."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import pytest
import trio
import trio.testing

from browx_actors.config import DEFAULT_CAPABILITIES
from browx_actors.errors import ToolError
from browx_actors.recorder import Flush, Recorder, RecorderInbox, RecorderStats, RecordNote, SessionClosed, Sweep
from browx_actors.recorder.records import CallRecord
from browx_actors.recorder.store import read_records
from browx_actors.secret_book import SecretBook
from browx_actors.server import dispatch
from browx_actors.server.catalog import Catalog
from browx_actors.server.dispatch import Dispatcher
from browx_actors.tools import Gates, NoArgs, SessionArgs, Table, arguments, param, runs, runtime_tool
from browx_actors.tools.contract import READS

DAY = 86_400.0
T0 = 1_780_000_000.0


def _record(tool: str = "snapshot", session: str = "s1", duration: float = 1.0) -> CallRecord:
    return CallRecord(tool, session, {"session": session}, {"ok": True}, duration, 0, T0)


@asynccontextmanager
async def _running(workspace: Path, inbox: RecorderInbox | None = None, **kw: object) -> AsyncIterator[Recorder]:
    inbox = inbox or RecorderInbox.open(started_at=T0)
    kw.setdefault("recording", True)
    recorder = Recorder(inbox, workspace, **kw)  # type: ignore[arg-type]
    async with trio.open_nursery() as nursery:
        await nursery.start(recorder.run)
        yield recorder
        recorder.stop()


def _on_disk(workspace: Path, session: str | None = None) -> list[dict]:
    return read_records(workspace / "diagnostics", session)[0]


@arguments
class EchoArgs(SessionArgs):
    text: str = param("text", "string", "", required=True)


ECHO = runtime_tool("echo", EchoArgs, title="Echo", capability="read", hints=READS, summary="Echo text.")
OK = runtime_tool("ok", NoArgs, title="Ok", capability="read", hints=READS, summary="Answer ok.")


async def test_dispatch_hands_every_call_to_disk(tmp_path: Path) -> None:
    async def echo(context: object, args: EchoArgs) -> dict:
        await trio.sleep(0.01)
        return {"ok": True, "echo": args.text}

    catalog = Catalog.of([ECHO], Table.of("runtime", [runs(ECHO, echo)]), {})
    dispatcher = Dispatcher(catalog, context=None, gates=Gates(DEFAULT_CAPABILITIES, DEFAULT_CAPABILITIES),  # type: ignore[arg-type]
                            secrets=SecretBook())
    async with _running(tmp_path) as recorder:
        dispatcher.recorder = recorder.inbox.submit
        await dispatcher.dispatch("echo", {"text": "a", "session": "s1"})
        await dispatcher.dispatch("echo", {"session": "s2"})
        await dispatcher.dispatch("nope", {"session": "s2"})
        await recorder.ref.call(Flush())
        s1, s2 = _on_disk(tmp_path, "s1"), _on_disk(tmp_path, "s2")
    assert [(r["tool"], r["resultMeta"]["ok"]) for r in s1] == [("echo", True)]
    assert s1[0]["durationMs"] >= 10 and s1[0]["argsRedacted"] == {"text": "a", "session": "s1"}
    assert [(r["tool"], r["resultMeta"].get("failureKind")) for r in s2] == [("echo", "bad-arg"),
                                                                             ("nope", "bad-arg")]
    names = [p.name for p in (tmp_path / "diagnostics" / "s1").iterdir()]
    assert names == ["2026-05-28T20-26-40.000Z.jsonl"]


async def test_off_is_one_check_that_builds_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    async def ok(context: object, args: NoArgs) -> dict:
        return {"ok": True}

    def no_record(*args: object) -> None:
        raise AssertionError("a CallRecord was built with the recorder off")

    monkeypatch.setattr(dispatch, "CallRecord", no_record)
    catalog = Catalog.of([OK], Table.of("runtime", [runs(OK, ok)]), {})
    dispatcher = Dispatcher(catalog, context=None,  # type: ignore[arg-type]
                            gates=Gates(DEFAULT_CAPABILITIES, DEFAULT_CAPABILITIES), secrets=SecretBook())
    assert dispatcher.recorder is None
    assert (await dispatcher.dispatch("ok", {})).envelope == {"ok": True}
    dispatcher.recorder = lambda record: None
    with pytest.raises(AssertionError, match="recorder off"):
        await dispatcher.dispatch("ok", {})


async def test_a_full_inbox_drops_counts_and_puts_the_drop_on_record(tmp_path: Path) -> None:
    inbox = RecorderInbox.open(4, started_at=T0)
    async with _running(tmp_path, inbox) as recorder:
        # The writer is parked in receive(), so it takes the first record straight
        # from the sender: capacity is the 4 buffered plus that one.
        await trio.testing.wait_all_tasks_blocked()
        for i in range(10):  # no checkpoint in between: the writer cannot run
            inbox.submit(_record(session="s1" if i % 2 else "s2"))
        assert (inbox.accepted, inbox.dropped_total, dict(inbox.pending_drops)) == (5, 5, {"s1": 3, "s2": 2})
        await recorder.ref.call(Flush())
        stats = await recorder.ref.call(RecorderStats())
        records = _on_disk(tmp_path)
    assert stats == {"recording": True, "queued": 0, "dropped": 5, "refused": 0, "writeFailures": 0}
    calls = [r for r in records if r["kind"] == "call"]
    drops = {r["sessionId"]: r["count"] for r in records if r["kind"] == "dropped"}
    assert len(calls) == 5 and drops == {"s1": 3, "s2": 2}
    assert all(r["reason"] == "backpressure" for r in records if r["kind"] == "dropped")


async def test_records_queued_before_an_incarnation_starts_are_written(tmp_path: Path) -> None:
    inbox = RecorderInbox.open(started_at=T0)
    for i in range(5):
        inbox.submit(_record(duration=float(i)))
    async with _running(tmp_path, inbox) as recorder:  # a restarted Recorder drains the same inbox
        await recorder.ref.call(Flush())
        assert [r["durationMs"] for r in _on_disk(tmp_path)] == [0.0, 1.0, 2.0, 3.0, 4.0]


async def test_escaping_session_ids_are_refused_and_nothing_lands_outside(tmp_path: Path) -> None:
    workspace = tmp_path / "ws"
    async with _running(workspace) as recorder:
        for sid in ("../escape", str(tmp_path / "abs"), "ok", "a/b", ".."):
            recorder.inbox.submit(_record(session=sid))
        await recorder.ref.call(Flush())
        stats = await recorder.ref.call(RecorderStats())
        with pytest.raises(ToolError) as caught:
            await recorder.ref.call(RecordNote("../escape", "x", "other", "info"))
        assert caught.value.code == "bad-arg" and caught.value.details == {"field": "session"}
    assert stats["refused"] == 4
    assert sorted(str(p.relative_to(tmp_path)) for p in tmp_path.rglob("*")) == [
        "ws", "ws/diagnostics", "ws/diagnostics/ok", "ws/diagnostics/ok/2026-05-28T20-26-40.000Z.jsonl"]


async def test_notes_are_masked_and_written_at_once(tmp_path: Path) -> None:
    async with _running(tmp_path, secrets=lambda: {"PASSWORD": "hunter22"}, now=lambda: T0) as recorder:
        note = await recorder.ref.call(RecordNote("s1", "typed hunter22 by hand", "workaround", "warn", "fill:x"))
        on_disk = _on_disk(tmp_path, "s1")
    assert note == {"kind": "note", "ts": "2026-05-28T20:26:40.000Z", "sessionId": "s1",
                    "insight": "typed <PASSWORD> by hand", "category": "workaround", "severity": "warn",
                    "ref": "fill:x"}
    assert on_disk == [note]


async def test_close_discards_after_the_close_record_when_recording(tmp_path: Path) -> None:
    earlier = tmp_path / "diagnostics" / "s1" / "2020-01-01T00-00-00.000Z.jsonl"
    earlier.parent.mkdir(parents=True)
    earlier.write_text('{"kind":"note","ts":"2020-01-01T00:00:00.000Z"}\n')
    async with _running(tmp_path, retention_days=0) as recorder:
        recorder.inbox.submit(_record("navigate"))
        recorder.inbox.submit(_record("navigate", session="s2"))
        await recorder.ref.call(Flush())
        await recorder.ref.call(SessionClosed("s1"))
        assert earlier.exists()  # the close_session record is still to come
        recorder.inbox.submit(_record("close_session"))
        await recorder.ref.call(Flush())
        assert not earlier.parent.exists()
        recorder.inbox.submit(_record("open_session"))  # the id reused: a new history
        await recorder.ref.call(Flush())
        assert [r["tool"] for r in _on_disk(tmp_path, "s1")] == ["open_session"]
        assert [r["tool"] for r in _on_disk(tmp_path, "s2")] == ["navigate"]


async def test_close_discards_at_once_when_not_recording_and_marks_are_kept_on_stop(tmp_path: Path) -> None:
    for sid in ("s1", "s2"):
        (tmp_path / "diagnostics" / sid).mkdir(parents=True)
        (tmp_path / "diagnostics" / sid / "a.jsonl").write_text("{}\n")
    async with _running(tmp_path, recording=False) as recorder:
        await recorder.ref.call(SessionClosed("s1"))
        assert not (tmp_path / "diagnostics" / "s1").exists()
    async with _running(tmp_path) as recorder:
        await recorder.ref.call(SessionClosed("s2"))  # its close record never comes
    assert not (tmp_path / "diagnostics" / "s2").exists()


async def test_retention_sweeps_on_start_and_on_close_with_a_controlled_clock(tmp_path: Path) -> None:
    root = tmp_path / "diagnostics"
    for name, age in {"old": 31, "young": 29, "closing": 1}.items():
        (root / name).mkdir(parents=True)
        (root / name / "a.jsonl").write_text("{}\n")
        for path in (root / name / "a.jsonl", root / name):
            os.utime(path, (T0 - age * DAY, T0 - age * DAY))
    clock = [T0]
    async with _running(tmp_path, recording=False, now=lambda: clock[0]) as recorder:
        assert sorted(p.name for p in root.iterdir()) == ["closing", "young"]  # swept on start
        clock[0] = T0 + 1 * DAY + 1  # "young" is now 30 days and a second old
        await recorder.ref.call(SessionClosed("closing"))
        assert list(root.iterdir()) == []
        assert await recorder.ref.call(Sweep()) == []
    async with _running(tmp_path, recording=False, retention_days=0, now=lambda: T0 + 10_000 * DAY):
        (root / "kept").mkdir()
    assert [p.name for p in root.iterdir()] == ["kept"]


async def test_stop_writes_what_is_still_queued(tmp_path: Path) -> None:
    async with _running(tmp_path) as recorder:
        for i in range(300):
            recorder.inbox.submit(_record(duration=float(i)))
    assert [r["durationMs"] for r in _on_disk(tmp_path)] == [float(i) for i in range(300)]
