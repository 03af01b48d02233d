"""diagnostics_search and diagnostics_report over records already read: pure functions.

**Search.** Records (calls, notes and drop markers together) are returned oldest first
by ``ts`` (ties keep file order), so ``since`` pages forward. ``since`` keeps records
with ``ts`` at or after it (any ISO 8601 time; no offset means UTC). ``tool`` applies to
``kind:"call"`` records only and ``category`` to ``kind:"note"`` records only, so each
asks for its own kind: ``{tool}`` answers those calls and no notes, ``{category}`` those
notes and no calls (nor drop markers, which are neither), and ``{tool, category}`` those
calls and those notes together. Without either, every kind. ``sessionId`` keeps one session. ``limit``
defaults to :data:`SEARCH_DEFAULT` and is clamped to :data:`SEARCH_CAP` with a warning;
``truncated`` says more records matched than were returned.

**Report.** Over the call and note records in the window:

* ``perTool``: per tool, ``count``, ``failureCount`` (``resultMeta.ok`` false) and
  ``p50Duration`` / ``p95Duration`` in ms by the nearest-rank method: the value at
  1-based rank ``ceil(p/100 * n)`` of the sorted durations (so p50 of 1..4 is 2, p95 of
  1..20 is 19, p95 of 1..19 is 19), always an observed duration.
* ``topEvalJsPatterns``: eval patterns grouped by ``exprSha``, ``{exprSha, exprHead,
  count, taxonomy}``, most frequent first (ties by ``exprHead``, then ``exprSha``), at
  most :data:`TOP_PATTERNS`.
* ``capabilityDenials``: per tool, calls whose ``failureKind`` is capability-denied.
* ``notesByCategory``: note counts per category.
* ``missingPrimitiveHypotheses``: each non-custom taxonomy with at least
  :data:`TAXONOMY_THRESHOLD` eval calls (named as the taxonomy, in taxonomy order), then
  each custom pattern with at least :data:`CUSTOM_THRESHOLD` calls (named
  ``custom:<exprSha>``, most frequent first). Every call record with an ``evalJs``
  block counts, failed or refused ones too: the agent reached for eval either way.
* ``droppedRecords``: the sum of ``kind:"dropped"`` counts.

``format: "full"`` adds ``records`` (oldest first, at most :data:`REPORT_RECORDS_CAP`)
and ``truncated``.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Sequence
from datetime import UTC, datetime

from ..errors import ToolError
from ..jsonsafe import JsonObject
from .taxonomy import EVAL_TAXONOMY

__all__ = [
    "CUSTOM_THRESHOLD",
    "REPORT_RECORDS_CAP",
    "SEARCH_CAP",
    "SEARCH_DEFAULT",
    "TAXONOMY_THRESHOLD",
    "TOP_PATTERNS",
    "build_report",
    "clamp_limit",
    "in_window",
    "normalize_since",
    "percentile",
    "search",
]

SEARCH_DEFAULT = 100
SEARCH_CAP = 1000
REPORT_RECORDS_CAP = 500
TOP_PATTERNS = 10
TAXONOMY_THRESHOLD = 3
CUSTOM_THRESHOLD = 5


def normalize_since(since: str | None) -> str | None:
    """``since`` in the records' own form (``...T12:34:56.789Z``), or ``bad-arg``."""
    if since is None:
        return None
    try:
        moment = datetime.fromisoformat(since.strip())
    except ValueError:
        raise ToolError("bad-arg", f"since must be an ISO 8601 time, got {since!r}", field="since") from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def clamp_limit(limit: int) -> tuple[int, list[str]]:
    if limit > SEARCH_CAP:
        return SEARCH_CAP, [f"limit {limit} is above the hard cap of {SEARCH_CAP}; clamped to {SEARCH_CAP}"]
    return limit, []


def _ts(record: JsonObject) -> str:
    ts = record.get("ts")
    return ts if isinstance(ts, str) else ""


def in_window(records: Iterable[JsonObject], *, since: str | None = None,
              session_id: str | None = None) -> list[JsonObject]:
    """Records at or after ``since`` (normalized) for ``session_id``, oldest first."""
    kept = [r for r in records
            if (since is None or _ts(r) >= since)
            and (session_id is None or r.get("sessionId") == session_id)]
    return sorted(kept, key=_ts)


def search(records: Iterable[JsonObject], *, since: str | None = None, tool: str | None = None,
           category: str | None = None, session_id: str | None = None,
           limit: int = SEARCH_DEFAULT) -> tuple[list[JsonObject], bool]:
    """Matching records, oldest first, at most ``limit``; and whether more matched."""
    matched = [r for r in in_window(records, since=since, session_id=session_id)
               if _asked_for(r, tool, category)]
    return matched[:limit], len(matched) > limit


def _asked_for(record: JsonObject, tool: str | None, category: str | None) -> bool:
    """Whether ``tool`` / ``category`` ask for this record: each filter names its own
    kind, so a record of a kind no given filter names is not asked for."""
    if tool is None and category is None:
        return True
    kind = record.get("kind")
    return ((tool is not None and kind == "call" and record.get("tool") == tool)
            or (category is not None and kind == "note" and record.get("category") == category))


def percentile(values: Sequence[float], p: float) -> float:
    """Nearest-rank percentile (``0 < p <= 100``) of a non-empty sequence."""
    ordered = sorted(values)
    rank = max(1, math.ceil(p * len(ordered) / 100))  # p * n first: exact for integer p
    return ordered[rank - 1]


def _calls(records: Iterable[JsonObject]) -> list[JsonObject]:
    return [r for r in records if r.get("kind") == "call" and isinstance(r.get("tool"), str)]


def _meta(record: JsonObject) -> JsonObject:
    meta = record.get("resultMeta")
    return meta if isinstance(meta, dict) else {}


def _per_tool(calls: list[JsonObject]) -> dict[str, JsonObject]:
    durations: dict[str, list[float]] = {}
    failures: Counter[str] = Counter()
    for call in calls:
        duration = call.get("durationMs")
        durations.setdefault(call["tool"], []).append(duration if isinstance(duration, (int, float)) else 0)
        if _meta(call).get("ok") is not True:
            failures[call["tool"]] += 1
    return {
        tool: {"count": len(values), "failureCount": failures[tool],
               "p50Duration": percentile(values, 50), "p95Duration": percentile(values, 95)}
        for tool, values in sorted(durations.items())
    }


def _patterns(calls: list[JsonObject]) -> list[JsonObject]:
    groups: dict[str, JsonObject] = {}
    for call in calls:
        block = call.get("evalJs")
        if not isinstance(block, dict) or not isinstance(block.get("exprSha"), str):
            continue
        group = groups.setdefault(block["exprSha"], {
            "exprSha": block["exprSha"], "exprHead": str(block.get("exprHead", "")), "count": 0,
            "taxonomy": str(block.get("taxonomy", "custom")),
        })
        group["count"] += 1
    return sorted(groups.values(), key=lambda g: (-g["count"], g["exprHead"], g["exprSha"]))


def _hypotheses(patterns: list[JsonObject]) -> list[str]:
    per_taxonomy: Counter[str] = Counter()
    for pattern in patterns:
        per_taxonomy[pattern["taxonomy"]] += pattern["count"]
    named = [t for t in EVAL_TAXONOMY if t != "custom" and per_taxonomy[t] >= TAXONOMY_THRESHOLD]
    custom = [f"custom:{p['exprSha']}" for p in patterns
              if p["taxonomy"] == "custom" and p["count"] >= CUSTOM_THRESHOLD]
    return named + custom


def build_report(records: Iterable[JsonObject], *, full: bool = False) -> JsonObject:
    """The report body (without ``ok``) over records already windowed."""
    records = list(records)
    calls = _calls(records)
    patterns = _patterns(calls)
    denials = Counter(c["tool"] for c in calls if _meta(c).get("failureKind") == "capability-denied")
    notes = Counter(str(r.get("category", "other")) for r in records if r.get("kind") == "note")
    dropped = sum(r["count"] for r in records
                  if r.get("kind") == "dropped" and isinstance(r.get("count"), int))
    report: JsonObject = {
        "perTool": _per_tool(calls),
        "topEvalJsPatterns": patterns[:TOP_PATTERNS],
        "capabilityDenials": dict(sorted(denials.items())),
        "notesByCategory": dict(sorted(notes.items())),
        "missingPrimitiveHypotheses": _hypotheses(patterns),
        "droppedRecords": dropped,
    }
    if full:
        report["records"] = records[:REPORT_RECORDS_CAP]
        report["truncated"] = len(records) > REPORT_RECORDS_CAP
    return report
