"""Diagnostics: the agent's notes (capability ``diagnostics``), and what the recorder's
store holds, searched and rolled up (``read``: they work with the recorder off, over what
is on disk).

These are runtime tools; their ``session`` argument only says which session the call
itself is recorded under.
"""

from __future__ import annotations

from .arguments import Arguments, arg, arguments, param
from .contract import ADDS, READS, runtime_tool, session_param
from .params import MAX_ID, Param

#: A note is one JSONL line; a bound keeps one careless call from writing megabytes.
NOTE_MAX_CHARS = 16_000
NOTE_CATEGORIES = ("missing-primitive", "workaround", "perf-concern", "ergonomic-friction", "other")
SEVERITIES = ("info", "warn", "blocker")
SINCE = Param("since", "string", "Records at or after this ISO 8601 time (UTC if no offset).")
_RECORDED_UNDER = session_param("Session this call is recorded under; sessionId filters.")
#: Not held to today's id rules: it may name a folder an older server wrote (the store's
#: chokepoint refuses any that escapes).
SESSION_ID = Param("sessionId", "string", "Only this session's records.", max_length=255)


@arguments
class DiagnosticsNoteArgs(Arguments):
    """diagnostics_note's arguments."""

    insight: str = param("insight", "string", "", required=True, max_length=NOTE_MAX_CHARS)
    category: str = param("category", "string", "", default="other", enum=NOTE_CATEGORIES)
    severity: str = param("severity", "string", "", default="info", enum=SEVERITIES)
    ref: str | None = param("ref", "string", "A prior call, e.g. eval_js:2026-06-08T12:34:56.000Z.")
    session: str = arg(session_param("Session the note belongs to."))


DIAGNOSTICS_NOTE = runtime_tool(
    "diagnostics_note", DiagnosticsNoteArgs,
    title="Diagnostics note", capability="diagnostics", hints=ADDS,
    summary="Leave a note for the curator: a missing primitive, a workaround or friction you hit.",
    description="Agent self-feedback: write a kind:\"note\" record (insight, category, severity, optional ref to a "
        "prior call such as \"eval_js:<ts>\") to the diagnostics store for the curator deciding which primitive"
        " to add next. insight is the observation, in free text; category its bucket; severity how much it hurt. "
        "Returns {ok, note} with the stored record. Refused with capability-denied when diagnostics is off.",
)


@arguments
class DiagnosticsSearchArgs(Arguments):
    """diagnostics_search's arguments."""

    since: str | None = arg(SINCE)
    tool: str | None = param("tool", "string", "Only calls of this tool.")
    category: str | None = param("category", "string", "Only notes of this category.")
    session_id: str | None = arg(SESSION_ID)
    limit: int = param("limit", "integer", "", default=100, minimum=1, maximum=MAX_ID)
    session: str = arg(_RECORDED_UNDER)


DIAGNOSTICS_SEARCH = runtime_tool(
    "diagnostics_search", DiagnosticsSearchArgs,
    title="Search diagnostics", capability="read", hints=READS,
    summary="Search the recorded calls and notes of the diagnostics store, oldest first.",
    description="Query the diagnostics JSONL store (calls, notes and dropped-record markers together), oldest first; "
        "works with the recorder off, over whatever is on disk. tool asks for call records of that tool "
        "and category for notes of that category (each only its own kind: {tool} returns no notes, {category} no "
        "calls; both give those calls and those notes together); since keeps records whose ts is at or after it. "
        "Returns {ok, records, count, truncated, warnings}; limit, the most records to return, is clamped to 1000 "
        "with a warning.",
)


@arguments
class DiagnosticsReportArgs(Arguments):
    """diagnostics_report's arguments."""

    format: str = param("format", "string", "", default="summary", enum=("summary", "full"))
    since: str | None = arg(SINCE)
    session_id: str | None = arg(SESSION_ID)
    session: str = arg(_RECORDED_UNDER)


DIAGNOSTICS_REPORT = runtime_tool(
    "diagnostics_report", DiagnosticsReportArgs,
    title="Diagnostics report", capability="read", hints=READS,
    summary="Roll up the diagnostics store: per-tool counts, failures, latency, eval_js patterns, notes.",
    description="Roll up the diagnostics store: perTool {count, failureCount, p50Duration, p95Duration} (ms, "
        "nearest-rank), topEvalJsPatterns (top 10 {exprSha, exprHead, count, taxonomy}), capabilityDenials "
        "per tool, notesByCategory, missingPrimitiveHypotheses (a non-custom eval_js taxonomy with >= 3 "
        "calls, or custom:<exprSha> for a custom pattern with >= 5), droppedRecords, and the live recorder "
        "counters. format summary answers only the roll-up; full adds records (oldest first, at most 500) and "
        "truncated. since keeps records whose ts is at or after it.",
)
