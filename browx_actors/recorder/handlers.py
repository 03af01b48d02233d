"""The diagnostics tools: diagnostics_note, diagnostics_search, diagnostics_report.

Thin handlers (the tools are declared in ``tools/diagnostics.py``); the record shapes,
the search and the report are pure functions in :mod:`.records` and :mod:`.query`, the
files are the Recorder's. These are
runtime tools: they need no browser, so they run in the dispatching task.

``diagnostics_note`` sits under the ``diagnostics`` capability, so with it off the
dispatch gate answers a structured ``capability-denied`` (a note is never dropped
silently). Search and report ride ``read``: they read whatever is on disk, recorder on
or off, after asking a running recorder to flush what it has queued so a call or note
made just before is visible.
"""

from __future__ import annotations

import trio

from ..errors import ToolError
from ..jsonsafe import JsonObject
from ..kernel.actor_ref import ActorUnavailable
from ..tools import Reply
from ..tools.context import RuntimeContext
from ..tools.diagnostics import DiagnosticsNoteArgs, DiagnosticsReportArgs, DiagnosticsSearchArgs
from .actor import Flush, RecorderStats, RecordNote
from .query import (
    build_report,
    clamp_limit,
    in_window,
    normalize_since,
    search,
)
from .store import diagnostics_root, read_records, session_dir

__all__ = ["diagnostics_note", "diagnostics_report", "diagnostics_search"]

async def diagnostics_note(runtime: RuntimeContext, args: DiagnosticsNoteArgs) -> Reply:
    note = await runtime.recorder_ref().call(RecordNote(
        args.session, args.insight, args.category, args.severity, args.ref))
    return Reply.of(note=note)


async def _flush(runtime: RuntimeContext) -> list[str]:
    """Ask the recorder to write what it holds; a warning instead if it cannot."""
    try:
        await runtime.recorder_ref().call(Flush(), timeout=10)
    except (ToolError, ActorUnavailable) as err:
        return [f"the recorder did not flush ({err}); records still queued are not included"]
    return []


async def _read(runtime: RuntimeContext, session_id: str | None) -> tuple[list[JsonObject], list[str]]:
    root = diagnostics_root(runtime.config.workspace)
    if session_id is not None:
        session_dir(root, session_id, field="sessionId")  # the chokepoint, before any I/O
    warnings = await _flush(runtime)
    records, bad = await trio.to_thread.run_sync(read_records, root, session_id)
    if bad:
        warnings.append(f"skipped {bad} line(s) that are not JSON records")
    return records, warnings


async def diagnostics_search(runtime: RuntimeContext, args: DiagnosticsSearchArgs) -> Reply:
    limit, warnings = clamp_limit(args.limit)
    since = normalize_since(args.since)
    records, read_warnings = await _read(runtime, args.session_id)
    found, truncated = search(records, since=since, tool=args.tool, category=args.category,
                              session_id=args.session_id, limit=limit)
    return Reply.of(records=found, count=len(found), truncated=truncated, warnings=warnings + read_warnings)


async def diagnostics_report(runtime: RuntimeContext, args: DiagnosticsReportArgs) -> Reply:
    since = normalize_since(args.since)
    records, warnings = await _read(runtime, args.session_id)
    window = in_window(records, since=since, session_id=args.session_id)
    report = build_report(window, full=args.format == "full")
    try:
        report["recorder"] = await runtime.recorder_ref().call(RecorderStats(), timeout=5)
    except (ToolError, ActorUnavailable) as err:
        warnings.append(f"the recorder's live counters are unavailable: {err}")
    return Reply.of(format=args.format, **report, warnings=warnings)


