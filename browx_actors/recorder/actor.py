"""The Recorder actor: takes call records off the dispatch path and writes them.

**Back-pressure policy.** The dispatch hook (:meth:`RecorderInbox.submit`) never waits:
it puts the :class:`~browx_actors.recorder.records.CallRecord` into a bounded memory
channel with ``send_nowait`` and returns. The channel holds :data:`QUEUE_SIZE` records
(each holds its result envelope until written, so the bound is also a memory bound).
When the channel is full the record is dropped and counted per session; the writer
turns every nonzero count into a ``kind:"dropped"`` record in that session's file
(``diagnostics_report`` sums them as ``droppedRecords``) and the live totals are in the
report's ``recorder`` block. A record the store refuses (a session id that escapes the
diagnostics folder) or fails to write (disk full, permissions) cannot be recorded where
it belongs, so it is counted (``refused``, ``writeFailures``) and logged instead. A
tool call is never delayed by more than one ``send_nowait``.

**A refused session name leaves nothing on disk.** A call refused for its ``session``
(not a session id, not a string, or no open session by that name:
:func:`refuses_its_session`) names no session whose history it could join, so its
record is counted as ``refused`` and written nowhere: a fuzzer's thousand made-up ids
make no folder. The store's chokepoint refuses anything that is not a session id too.

**Survives its own restart.** The inbox belongs to the runtime, not to one incarnation
of the actor: the Recorder is a permanent child of the root supervisor, and a
restarted Recorder keeps draining the same channel, so records queued when it crashed
are still written. A batch whose write raises is counted as failed, not retried.

**Writing.** When a record arrives the writer lingers :data:`LINGER` seconds, takes
whatever is queued by then (up to :data:`BATCH_MAX` records), and formats and appends
them in one worker thread (``trio.to_thread.run_sync``). The thread keeps JSON
encoding of a large envelope and a slow or hung disk off the Trio loop (a stuck disk
stalls only the recorder, whose full queue then drops and counts); the linger makes
one thread hop serve every record of a burst instead of one hop per record, at the
price of records reaching the file a couple of milliseconds later.
Everything that touches the store (batches, notes, discards, sweeps) holds one lock,
so the store's descriptors have a single user at a time.

**Session close.** A closed session's history is discarded with it. While recording is
on, the ``close_session`` call's own record reaches the recorder after the session has
closed, so :class:`SessionClosed` marks the id and the folder is removed when that
record comes through (instead of writing it into a fresh folder); with recording off it
is removed at once. Either way the retention sweep runs next. Marks left when the
recorder stops are honoured on the way out.
"""

from __future__ import annotations

import logging
import time
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path

import attrs
import trio

from ..errors import ToolError
from ..jsonsafe import JsonObject
from ..kernel.actor import Actor, Later
from ..secret_book import Secrets, mask_deep
from .records import CallRecord, call_record, dropped_record, encode_line, file_stamp, note_record
from .store import DiagnosticsStore, diagnostics_root, session_dir

__all__ = [
    "BATCH_MAX",
    "QUEUE_SIZE",
    "Flush",
    "RecordNote",
    "Recorder",
    "RecorderInbox",
    "RecorderStats",
    "SessionClosed",
    "Sweep",
    "refuses_its_session",
]

log = logging.getLogger("browx_actors.recorder")

QUEUE_SIZE = 1024
BATCH_MAX = 256
#: After the first record of a batch arrives, wait this long for more to join it.
LINGER = 0.002
#: How much of a refused session id a log line quotes.
_ID_SHOWN = 80


def refuses_its_session(record: CallRecord) -> bool:
    """Whether the call was refused for its ``session`` itself: ``bad-arg`` naming it,
    ``unknown-session``, or a ``session`` that is not even a string (the dispatch names
    the record after it all the same)."""
    envelope = record.envelope
    if envelope.get("code") == "unknown-session":
        return True
    if envelope.get("code") == "bad-arg" and envelope.get("field") == "session":
        return True
    given = record.args.get("session") if isinstance(record.args, dict) else None
    return given is not None and not isinstance(given, str)


@attrs.define(eq=False)
class RecorderInbox:
    """The dispatch path's end of the recorder: a bounded channel plus counters.

    Created once per runtime, with the server's start time (the store's file name).
    """

    send: trio.MemorySendChannel[CallRecord]
    receive: trio.MemoryReceiveChannel[CallRecord]
    started_at: float
    #: Records accepted into the channel / taken out and handled (written or failed).
    accepted: int = 0
    handled: int = 0
    #: Dropped because the channel was full, per session, not yet on record.
    pending_drops: Counter[str] = attrs.Factory(Counter)
    dropped_total: int = 0

    @classmethod
    def open(cls, size: int = QUEUE_SIZE, *, started_at: float | None = None) -> RecorderInbox:
        send, receive = trio.open_memory_channel[CallRecord](size)
        return cls(send, receive, time.time() if started_at is None else started_at)

    def submit(self, record: CallRecord) -> None:
        """The dispatch hook: never waits; a full channel drops and counts."""
        try:
            self.send.send_nowait(record)
        except (trio.WouldBlock, trio.BrokenResourceError, trio.ClosedResourceError):
            self.pending_drops[record.session_id] += 1
            self.dropped_total += 1
        else:
            self.accepted += 1

    def take_drops(self) -> dict[str, int]:
        drops, self.pending_drops = dict(self.pending_drops), Counter()
        return drops


# -- messages -------------------------------------------------------------------------


@attrs.frozen
class Flush:
    """Answer once every record accepted so far (and every drop count) is handled."""


@attrs.frozen
class RecordNote:
    session_id: str
    insight: str
    category: str
    severity: str
    ref: str | None = None


@attrs.frozen
class SessionClosed:
    session_id: str


@attrs.frozen
class Sweep:
    """Run the retention sweep now; answers the removed session ids."""


@attrs.frozen
class RecorderStats:
    pass


@attrs.frozen
class _Discard:
    session_id: str


#: What the writer thread does, in order: write a call's record or a ready record
#: (a note, a drop count), or discard a closed session's records.
_Op = CallRecord | _Discard | JsonObject


# -- the actor ------------------------------------------------------------------------


class Recorder(Actor):
    """Writes diagnostics records; see the module notes for the policies."""

    def __init__(
        self,
        inbox: RecorderInbox,
        workspace: Path,
        *,
        recording: bool,
        retention_days: float = 30,
        secrets: Callable[[], Secrets] = list,
        now: Callable[[], float] = time.time,
    ) -> None:
        super().__init__("recorder")
        self.inbox = inbox
        self.recording = recording
        self.retention_days = retention_days
        self.store = DiagnosticsStore(diagnostics_root(workspace), file_stamp(inbox.started_at))
        self._secrets = secrets
        self._now = now
        self._lock = trio.Lock()
        self._closing: set[str] = set()
        self._progress = trio.Event()
        #: Records taken off the channel, not yet written (written by on_stop if the
        #: writer is cancelled while waiting for the lock).
        self._in_hand: list[CallRecord] = []
        self.refused = 0
        self.write_failures = 0
        self._warned: set[str] = set()

    # -- lifecycle --------------------------------------------------------------------

    async def on_start(self) -> None:
        await self._sweep()  # retention on server start
        self.nursery.start_soon(self._write_loop)

    async def on_stop(self) -> None:
        # Whatever is queued or in hand when the server stops is still written.
        async with self._lock:
            batch, self._in_hand = self._in_hand, []
            while True:
                try:
                    batch.append(self.inbox.receive.receive_nowait())
                except (trio.WouldBlock, trio.EndOfChannel, trio.ClosedResourceError):
                    break
            await self._write_batch(batch)
            leftover = [_Discard(sid) for sid in sorted(self._closing)]
            self._closing.clear()
            await self._run(leftover)
            await trio.to_thread.run_sync(self.store.close)

    # -- messages ---------------------------------------------------------------------

    async def handle(self, msg: object) -> object:
        match msg:
            case Flush():
                return Later.of(self._flushed, self.inbox.accepted)
            case RecordNote():
                return await self._note(msg)
            case SessionClosed(session_id):
                async with self._lock:
                    if self.recording:
                        self._closing.add(session_id)
                    else:
                        await self._run([_Discard(session_id)])
                return await self._sweep()
            case Sweep():
                return await self._sweep()
            case RecorderStats():
                return self.stats()
            case _:
                raise TypeError(f"{self.name} has no handler for {type(msg).__name__}")

    def stats(self) -> JsonObject:
        return {
            "recording": self.recording,
            "queued": self.inbox.accepted - self.inbox.handled,
            "dropped": self.inbox.dropped_total,
            "refused": self.refused,
            "writeFailures": self.write_failures,
        }

    async def _flushed(self, target: int) -> bool:
        while self.inbox.handled < target or self.inbox.pending_drops:
            await self._progress.wait()
        return True

    async def _note(self, msg: RecordNote) -> JsonObject:
        # A note is an egress sink too: the handler saw substituted arguments.
        secrets = self._secrets()
        record = note_record(self._now(), msg.session_id, msg.insight, msg.category, msg.severity, msg.ref)
        record = mask_deep(record, secrets) if secrets else record
        session_dir(self.store.root, msg.session_id)  # refuse before queueing anything
        async with self._lock:
            try:
                await trio.to_thread.run_sync(self.store.append, msg.session_id, encode_line(record))
            except OSError as err:
                self.write_failures += 1
                raise ToolError("internal", f"the note could not be written: {err}") from err
        return record

    async def _sweep(self) -> list[str]:
        async with self._lock:
            try:
                removed = await trio.to_thread.run_sync(self.store.sweep, self.retention_days, self._now())
            except OSError as err:
                log.warning("diagnostics retention sweep failed: %s", err)
                return []
        if removed:
            log.info("diagnostics retention removed %d session folder(s)", len(removed))
        return removed

    # -- the writer -------------------------------------------------------------------

    async def _write_loop(self) -> None:
        receive = self.inbox.receive
        while True:
            self._in_hand.append(await receive.receive())
            await trio.sleep(LINGER)
            while len(self._in_hand) < BATCH_MAX:
                try:
                    self._in_hand.append(receive.receive_nowait())
                except trio.WouldBlock:
                    break
            async with self._lock:
                batch, self._in_hand = self._in_hand, []
                await self._write_batch(batch)

    async def _write_batch(self, batch: list[CallRecord]) -> None:
        ops: list[_Op] = []
        refused: list[str] = []
        for record in batch:
            if record.tool == "close_session" and record.session_id in self._closing:
                self._closing.discard(record.session_id)
                ops.append(_Discard(record.session_id))
            elif refuses_its_session(record):
                refused.append(record.session_id)
            else:
                ops.append(record)
        self._count_refused(refused)
        now = self._now()
        ops.extend(dropped_record(now, sid, count, "backpressure")
                   for sid, count in sorted(self.inbox.take_drops().items()))
        try:
            await self._run(ops)
        finally:
            self.inbox.handled += len(batch)
            self._progress.set()
            self._progress = trio.Event()

    async def _run(self, ops: Sequence[_Op]) -> None:
        if not ops:
            return
        refused, failed = await trio.to_thread.run_sync(self._apply, ops)
        self.write_failures += failed
        self._count_refused(refused)

    def _count_refused(self, session_ids: Sequence[str]) -> None:
        """Records written nowhere because their session id names no session: counted,
        and said at DEBUG (they are an agent's mistakes, each already answered bad-arg)."""
        self.refused += len(session_ids)
        for sid in session_ids:
            if sid not in self._warned and len(self._warned) < 100:
                self._warned.add(sid)
                log.debug("diagnostics: not recording session id %r: it names no session",
                          sid[:_ID_SHOWN] + ("\u2026" if len(sid) > _ID_SHOWN else ""))

    def _apply(self, ops: Sequence[_Op]) -> tuple[list[str], int]:
        """Runs in a worker thread: format and write each op in order."""
        refused: list[str] = []
        failed = 0
        for op in ops:
            sid = op.session_id if not isinstance(op, dict) else op["sessionId"]
            try:
                if isinstance(op, _Discard):
                    self.store.discard(sid)
                    continue
                record = call_record(op) if isinstance(op, CallRecord) else op
                self.store.append(sid, encode_line(record))
            except ToolError:
                refused.append(sid)
            except OSError as err:
                failed += 1
                log.warning("diagnostics: could not write a record for session %r: %s", sid, err)
            except Exception:  # a record the formatter chokes on must not stop the writer
                failed += 1
                log.exception("diagnostics: could not format a record for session %r", sid)
        return refused, failed
