"""Record shapes of the diagnostics store, built by pure functions.

Three kinds of line live in a session's JSONL file:

* ``kind:"call"``: one per dispatched tool call, from the dispatch path's
  :class:`CallRecord` (arguments already masked, result
  envelope already masked). ``ts`` is when the call started (UTC, milliseconds, ``Z``).
  ``resultMeta.sizeBytes`` is the byte length of the envelope as MCP sends it (compact
  JSON, UTF-8). ``evalJs`` rides on ``eval_js`` / ``poll_eval`` calls whose ``expr`` is
  a string: ``exprSha`` (SHA-256 of the masked expression), ``exprHead`` (its first
  :data:`EXPR_HEAD_CHARS` characters, whitespace runs folded), ``returnType`` (the JSON
  type of the value: string, number, boolean, null, array or object; ``void`` when the
  call asked for ``returnType: void``; ``error`` when the call failed),
  ``returnSizeBytes`` (compact JSON bytes of the value, 0 for void or error) and
  ``taxonomy``.
* ``kind:"note"``: an agent's ``diagnostics_note``.
* ``kind:"dropped"``: how many call records the recorder had to drop for a session
  because it fell behind (``count``, ``reason``), so a loss is itself on record.

A line is compact JSON plus ``\\n``; JSON escapes every control character, so a record
is exactly one line. :func:`encode_line` keeps call records within
:data:`LINE_BUDGET` bytes (see ``store.py`` for why that size) by redacting the
arguments whole, and then shortening an absurdly long tool name, when a line would
exceed it.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
from datetime import UTC, datetime

import attrs

from ..jsonsafe import JsonObject
from .redaction import redact_args, redacted
from .taxonomy import classify_eval, failure_kind

__all__ = [
    "EVAL_TOOLS",
    "EXPR_HEAD_CHARS",
    "LINE_BUDGET",
    "CallRecord",
    "call_record",
    "dropped_record",
    "encode_line",
    "eval_block",
    "file_stamp",
    "note_record",
    "utc_iso",
]

@attrs.frozen
class CallRecord:
    """What the dispatch path hands the recorder for one call: masked arguments and the
    masked result envelope.

    ``finished_at`` is the wall clock (epoch seconds) when the call ended; the record's
    start time is ``finished_at - duration_ms / 1000``.
    """

    tool: str
    session_id: str
    args: JsonObject
    envelope: JsonObject
    duration_ms: float
    capability_denials: int
    finished_at: float = 0.0


EVAL_TOOLS = frozenset({"eval_js", "poll_eval"})
EXPR_HEAD_CHARS = 80
#: Call records are kept at or under this many bytes per line (one page).
LINE_BUDGET = 4096
_TOOL_NAME_MAX = 128
_SPACES = re.compile(r"\s+")


def _json(value: object) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False, default=str)


def _utf8_len(text: str) -> int:
    return len(text.encode("utf-8", "surrogatepass"))


_second: tuple[int, str] = (0, "1970-01-01T00:00:00")


def utc_iso(epoch_seconds: float) -> str:
    """``2026-06-08T12:34:56.789Z``: fixed width, so string order is time order.

    Milliseconds are truncated, as ``isoformat(timespec="milliseconds")`` does. The
    formatted second is cached: records come in bursts within one second, and this
    runs once per record.
    """
    global _second
    whole = math.floor(epoch_seconds)
    micros = round((epoch_seconds - whole) * 1_000_000)  # datetime's own rounding
    if micros >= 1_000_000:
        whole, micros = whole + 1, micros - 1_000_000
    millis = micros // 1000
    cached = _second
    if cached[0] != whole:
        cached = _second = (whole, datetime.fromtimestamp(whole, UTC).strftime("%Y-%m-%dT%H:%M:%S"))
    return f"{cached[1]}.{millis:03d}Z"


def file_stamp(epoch_seconds: float) -> str:
    """The server-start ISO timestamp as a file name: ``:`` becomes ``-`` (``:`` is not
    portable in file names); still fixed width, so names sort by start time."""
    return utc_iso(epoch_seconds).replace(":", "-")


def _json_type(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, (list, tuple)):
        return "array"
    return "object"


def eval_block(expr: str, envelope: JsonObject, return_mode: object) -> JsonObject:
    """The ``evalJs`` block of an eval_js / poll_eval call record."""
    if not envelope.get("ok"):
        return_type, size = "error", 0
    elif return_mode == "void":
        return_type, size = "void", 0
    else:
        value = envelope.get("value")
        return_type, size = _json_type(value), _utf8_len(_json(value))
    return {
        "exprSha": hashlib.sha256(expr.encode("utf-8", "surrogatepass")).hexdigest(),
        "exprHead": _SPACES.sub(" ", expr).strip()[:EXPR_HEAD_CHARS],
        "returnType": return_type,
        "returnSizeBytes": size,
        "taxonomy": classify_eval(expr),
    }


def call_record(call: CallRecord) -> JsonObject:
    """The ``kind:"call"`` record of one dispatched call."""
    envelope = call.envelope if isinstance(call.envelope, dict) else {"ok": False}
    ok = envelope.get("ok") is True
    warnings = envelope.get("warnings")
    meta: JsonObject = {
        "ok": ok,
        "sizeBytes": _utf8_len(_json(envelope)),
        "warningsCount": len(warnings) if isinstance(warnings, list) else 0,
    }
    if not ok:
        meta["failureKind"] = failure_kind(envelope.get("code"))
    record: JsonObject = {
        "kind": "call",
        "ts": utc_iso(call.finished_at - call.duration_ms / 1000),
        "tool": call.tool,
        "sessionId": call.session_id,
        "argsRedacted": redact_args(call.args),
        "resultMeta": meta,
        "durationMs": round(call.duration_ms, 3),
        "capabilityDenials": call.capability_denials,
    }
    args = call.args if isinstance(call.args, dict) else {}
    if call.tool in EVAL_TOOLS and isinstance(args.get("expr"), str):
        record["evalJs"] = eval_block(args["expr"], envelope, args.get("returnType"))
    return record


def note_record(ts: float, session_id: str, insight: str, category: str, severity: str,
                ref: str | None) -> JsonObject:
    record: JsonObject = {
        "kind": "note",
        "ts": utc_iso(ts),
        "sessionId": session_id,
        "insight": insight,
        "category": category,
        "severity": severity,
    }
    if ref is not None:
        record["ref"] = ref
    return record


def dropped_record(ts: float, session_id: str, count: int, reason: str) -> JsonObject:
    return {"kind": "dropped", "ts": utc_iso(ts), "sessionId": session_id, "count": count,
            "reason": reason}


def encode_line(record: JsonObject) -> bytes:
    """One record as one line of UTF-8 bytes, call records within LINE_BUDGET."""
    line = _line(record)
    if len(line) <= LINE_BUDGET or record.get("kind") != "call":
        return line
    record = {**record, "argsRedacted": redacted(record.get("argsRedacted"))}
    line = _line(record)
    if len(line) > LINE_BUDGET:
        record["tool"] = str(record.get("tool"))[:_TOOL_NAME_MAX] + "…"
        line = _line(record)
    return line


def _line(record: JsonObject) -> bytes:
    # A lone surrogate (possible in a Python str, not in UTF-8) becomes its JSON escape
    # \udXXX, so the line stays valid UTF-8 and decodes back to the same string.
    return (_json(record) + "\n").encode("utf-8", "backslashreplace")
