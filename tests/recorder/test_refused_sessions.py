"""A call refused for its ``session`` leaves nothing in the diagnostics store.

The dispatch names a call's record after the session it was given, checked or not: a
fuzz run of made-up ids left 36 folders. Now the store's chokepoint takes only what can
be a session's id, and the recorder writes nowhere a record of a call refused for its
session (counted as ``refused``). The real runtime's side of it is in
``tests/server/test_internal_never.py``.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
import trio

from browx_actors.errors import ToolError
from browx_actors.recorder import Flush, Recorder, RecorderInbox, RecorderStats
from browx_actors.recorder.actor import refuses_its_session
from browx_actors.recorder.records import CallRecord
from browx_actors.recorder.store import is_session_id, session_dir

T0 = 1_780_000_000.0


@pytest.mark.parametrize(("text", "valid"), [
    ("default", True), ("agent-1.retry_2", True), ("c1~work", True), ("c12~default", True), ("x" * 64, True),
    ("", False), ("sp ace", False), ("-dash", False), (".hidden", False), ("x" * 65, False), ("a/b", False),
    ("\u001b[31mred", False), ("~work", False), ("c1~", False), ("c1~a~b", False), ("c 1~work", False),
])
def test_what_can_be_a_session_id(text: str, valid: bool) -> None:
    assert is_session_id(text) is valid


def test_the_chokepoint_refuses_what_is_no_session_id(tmp_path: Path) -> None:
    for bad in ("sp ace", "-dash", "x" * 65, "c2~-x"):
        with pytest.raises(ToolError) as caught:
            session_dir(tmp_path, bad)
        assert caught.value.code == "bad-arg" and caught.value.details == {"field": "session"}
    assert not any(tmp_path.iterdir())


def _record(session: str, envelope: dict[str, Any], args: dict[str, Any] | None = None) -> CallRecord:
    return CallRecord("snapshot", session, {"session": session} if args is None else args, envelope, 1.0, 0, T0)


def test_which_records_refuse_their_session() -> None:
    assert refuses_its_session(_record("sp ace", {"ok": False, "code": "bad-arg", "field": "session"}))
    assert refuses_its_session(_record("ghost", {"ok": False, "code": "unknown-session"}))
    assert refuses_its_session(_record("5", {"ok": False, "code": "capability-denied"}, {"session": 5}))
    assert not refuses_its_session(_record("s1", {"ok": False, "code": "bad-arg", "field": "selector"}))
    assert not refuses_its_session(_record("s1", {"ok": True}))


@asynccontextmanager
async def _running(workspace: Path) -> AsyncIterator[Recorder]:
    recorder = Recorder(RecorderInbox.open(started_at=T0), workspace, recording=True)
    async with trio.open_nursery() as nursery:
        await nursery.start(recorder.run)
        yield recorder
        recorder.stop()


async def test_records_of_refused_sessions_are_counted_and_written_nowhere(tmp_path: Path) -> None:
    async with _running(tmp_path) as recorder:
        for record in (_record("sp ace", {"ok": False, "code": "bad-arg", "field": "session"}),
                       _record("ghost", {"ok": False, "code": "unknown-session"}),
                       _record("5", {"ok": False, "code": "bad-arg", "field": "session"}, {"session": 5}),
                       _record("-x", {"ok": False, "code": "capability-denied"}),  # refused before its args
                       _record("s1", {"ok": True})):
            recorder.inbox.submit(record)
        await recorder.ref.call(Flush())
        stats = await recorder.ref.call(RecorderStats())
    assert stats["refused"] == 4 and stats["writeFailures"] == 0
    assert [p.name for p in (tmp_path / "diagnostics").iterdir()] == ["s1"]
