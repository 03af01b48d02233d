"""Pure pieces of diagnostics: taxonomies, redaction, record shapes, the store's path
chokepoint and retention rule, line framing, search and report.

Every expectation here is computed by hand from the rules as written, not by calling the
code under test a second way.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from browx_actors.config import RuntimeConfig, parse_retention_days
from browx_actors.errors import ToolError
from browx_actors.recorder.query import (
    build_report,
    clamp_limit,
    in_window,
    normalize_since,
    percentile,
    search,
)
from browx_actors.recorder.records import (
    LINE_BUDGET,
    CallRecord,
    call_record,
    dropped_record,
    encode_line,
    file_stamp,
    note_record,
    utc_iso,
)
from browx_actors.recorder.redaction import redact_args
from browx_actors.recorder.store import (
    PAGE,
    DiagnosticsStore,
    is_expired,
    padding_for,
    read_records,
    session_dir,
)
from browx_actors.recorder.taxonomy import classify_eval, failure_kind

DAY = 86_400.0
T0 = 1_780_000_000.0  # 2026-05-28T20:26:40Z


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


# -- taxonomies -----------------------------------------------------------------------


@pytest.mark.parametrize(("expr", "bucket"), [
    ("document.querySelector('#save').textContent", "dom-query"),
    ("[...document.querySelectorAll('li')].length", "dom-query"),
    ("document.title", "dom-query"),
    ("$$('a').map(a => a.href)", "dom-query"),
    ("localStorage.getItem('token')", "storage-access"),
    ("document.cookie", "storage-access"),
    ("Object.keys(sessionStorage)", "storage-access"),
    ("getComputedStyle(document.querySelector('#x')).color", "computed-style"),
    ("document.querySelector('#x').getBoundingClientRect().top", "computed-style"),
    ("document.body.scrollHeight", "computed-style"),
    ("document.querySelector('#save').click()", "callback-trigger"),
    ("el.dispatchEvent(new Event('input'))", "callback-trigger"),
    ("new CustomEvent('x')", "callback-trigger"),
    ("typeof window.Stripe", "feature-detect"),
    ("'serviceWorker' in navigator", "feature-detect"),
    ("navigator.userAgent", "feature-detect"),
    ("CSS.supports('display: grid')", "feature-detect"),
    ("window.__APP__ === undefined", "feature-detect"),
    ("1 + 2", "custom"),
    ("window.app.store.getState().cart", "custom"),
    # precedence: storage > style > trigger > feature > dom
    ("localStorage.x = document.querySelector('a').textContent", "storage-access"),
    ("getComputedStyle(document.querySelector('a')).display", "computed-style"),
    ("document.querySelector('form').submit()", "callback-trigger"),
    ("typeof document.querySelector", "feature-detect"),
])
def test_eval_taxonomy_rules(expr: str, bucket: str) -> None:
    assert classify_eval(expr) == bucket


@pytest.mark.parametrize(("code", "kind"), [
    ("capability-denied", "capability-denied"),
    ("timeout", "timeout"),
    ("target-not-found", "target-not-found"),
    ("stale-element", "target-not-found"),
    ("not-visible", "target-not-found"),
    ("unknown-session", "target-not-found"),
    ("bad-arg", "bad-arg"),
    ("unknown-tool", "bad-arg"),
    ("too-large", "bad-arg"),
    ("eval-error", "internal"),
    ("browser-crashed", "internal"),
    ("internal", "internal"),
    ("never-heard-of-it", "internal"),
    (None, "internal"),
    (42, "internal"),
])
def test_failure_kind_table(code: object, kind: str) -> None:
    assert failure_kind(code) == kind


# -- redaction ------------------------------------------------------------------------


def test_redaction_keeps_shape_and_hides_large_or_sensitive_values() -> None:
    long = "x" * 257
    out = redact_args({
        "selector": "button[data-testid=save]", "n": 3, "f": 1.5, "b": True, "z": None,
        "value": "hunter22", "password": "<PASSWORD>", "big": long, "edge": "y" * 256,
        "coords": {"x": 1, "y": 2}, "omit": ["a", "b"], "many": list(range(33)),
        "credentials": {"user": "me"},
    })
    assert out["selector"] == "button[data-testid=save]"
    assert (out["n"], out["f"], out["b"], out["z"]) == (3, 1.5, True, None)
    assert out["value"] == {"__redacted": True, "sha256": _sha("hunter22"), "byteLength": 8}
    assert out["password"] == "<PASSWORD>"  # alias-only: already the redacted form
    assert out["big"] == {"__redacted": True, "sha256": _sha(long), "byteLength": 257}
    assert out["edge"] == "y" * 256
    assert out["coords"] == {"x": 1, "y": 2} and out["omit"] == ["a", "b"]
    many = json.dumps(list(range(33)), separators=(",", ":"))
    assert out["many"] == {"__redacted": True, "sha256": _sha(many), "byteLength": len(many)}
    assert out["credentials"]["user"]["__redacted"] is True  # sensitivity is inherited
    assert redact_args({"value": "pw=<PASSWORD>"})["value"]["__redacted"] is True
    assert redact_args({"text": "é" * 129})["text"]["byteLength"] == 258  # bytes, not characters


# -- record shapes --------------------------------------------------------------------


def _call(tool: str, args: dict, envelope: dict, duration_ms: float = 12.5, denials: int = 0) -> CallRecord:
    return CallRecord(tool, args.get("session", "default"), args, envelope, duration_ms, denials, T0)


def test_call_record_fields() -> None:
    envelope = {"ok": True, "action": "click", "warnings": ["w1", "w2"]}
    rec = call_record(_call("click", {"selector": "#save", "session": "s1"}, envelope, 12.5, 3))
    assert rec == {
        "kind": "call",
        "ts": utc_iso(T0 - 0.0125),
        "tool": "click",
        "sessionId": "s1",
        "argsRedacted": {"selector": "#save", "session": "s1"},
        "resultMeta": {"ok": True, "sizeBytes": len(json.dumps(envelope, separators=(",", ":"))),
                       "warningsCount": 2},
        "durationMs": 12.5,
        "capabilityDenials": 3,
    }
    assert rec["ts"] == "2026-05-28T20:26:39.987Z"
    failed = call_record(_call("click", {"ref": "e9"}, {"ok": False, "code": "stale-element", "error": "x"}))
    assert failed["resultMeta"]["ok"] is False and failed["resultMeta"]["failureKind"] == "target-not-found"
    assert "evalJs" not in failed


def test_eval_block_fields() -> None:
    expr = "document.querySelector('#save')\n   .textContent"
    rec = call_record(_call("eval_js", {"expr": expr, "returnType": "json"}, {"ok": True, "value": "Save"}))
    assert rec["evalJs"] == {
        "exprSha": _sha(expr),
        "exprHead": "document.querySelector('#save') .textContent",
        "returnType": "string",
        "returnSizeBytes": 6,
        "taxonomy": "dom-query",
    }
    long_expr = "1 + " * 40 + "1"
    void = call_record(_call("eval_js", {"expr": long_expr, "returnType": "void"}, {"ok": True, "value": None}))
    assert void["evalJs"]["returnType"] == "void" and void["evalJs"]["returnSizeBytes"] == 0
    assert void["evalJs"]["exprHead"] == long_expr[:80] and void["evalJs"]["taxonomy"] == "custom"
    array = call_record(_call("eval_js", {"expr": "[1,2]", "returnType": "json"}, {"ok": True, "value": [1, 2]}))
    assert (array["evalJs"]["returnType"], array["evalJs"]["returnSizeBytes"]) == ("array", 5)
    error = call_record(_call("eval_js", {"expr": "x(", "returnType": "json"},
                              {"ok": False, "code": "eval-error", "error": "SyntaxError"}))
    assert (error["evalJs"]["returnType"], error["evalJs"]["returnSizeBytes"]) == ("error", 0)
    assert "evalJs" not in call_record(_call("eval_js", {}, {"ok": False, "code": "bad-arg"}))


def test_note_and_dropped_records() -> None:
    assert note_record(T0, "s", "needs inner_text", "missing-primitive", "warn", None) == {
        "kind": "note", "ts": "2026-05-28T20:26:40.000Z", "sessionId": "s", "insight": "needs inner_text",
        "category": "missing-primitive", "severity": "warn",
    }
    assert note_record(T0, "s", "i", "other", "info", "eval_js:x")["ref"] == "eval_js:x"
    assert dropped_record(T0, "s", 7, "backpressure") == {
        "kind": "dropped", "ts": "2026-05-28T20:26:40.000Z", "sessionId": "s", "count": 7,
        "reason": "backpressure"}
    assert file_stamp(T0) == "2026-05-28T20-26-40.000Z"


def test_oversized_call_records_stay_within_one_page() -> None:
    args = {f"k{i}": "v" * 250 for i in range(30)}
    line = encode_line(call_record(_call("fill", args, {"ok": True})))
    assert len(line) <= LINE_BUDGET and line.endswith(b"\n") and line.count(b"\n") == 1
    assert json.loads(line)["argsRedacted"]["__redacted"] is True
    huge_name = encode_line(call_record(_call("t" * 10_000, {}, {"ok": False, "code": "unknown-tool"})))
    assert len(huge_name) <= LINE_BUDGET


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=10), inner, max_size=5),
    max_leaves=20,
)


@given(st.dictionaries(st.text(max_size=10), json_values, max_size=6), st.text(max_size=30))
def test_any_call_encodes_as_exactly_one_parseable_line(args: dict, tool: str) -> None:
    record = call_record(CallRecord(tool, "s", args, {"ok": True, "value": args}, 1.0, 0, T0))
    line = encode_line(record)
    assert line.endswith(b"\n") and line.count(b"\n") == 1 and len(line) <= LINE_BUDGET
    assert json.loads(line.decode("utf-8"))["tool"].startswith(tool[:128])


# -- the store ------------------------------------------------------------------------


def test_session_dir_is_the_one_chokepoint(tmp_path: Path) -> None:
    root = tmp_path / "diagnostics"
    root.mkdir()
    (root / "inside").mkdir()
    os.symlink("/etc", root / "link-out")
    os.symlink(root / "inside", root / "alias")
    assert session_dir(root, "default") == (root / "default").resolve()
    assert session_dir(root, "inside") == (root / "inside").resolve()
    for bad in ("../escape", "/abs/path", str(tmp_path), "", ".", "..", "a/b", "a/../b", "link-out",
                "alias", "nul\x00byte", "../diagnostics/x"):
        with pytest.raises(ToolError) as caught:
            session_dir(root, bad, field="sessionId")
        assert caught.value.code == "bad-arg" and caught.value.details == {"field": "sessionId"}


@pytest.mark.parametrize(("size", "length", "pad"), [
    (0, 100, 0), (4000, 96, 0), (4000, 97, 96), (4095, 1, 0), (4095, 2, 1), (PAGE, 4096, 0),
    (PAGE + 10, 5000, PAGE - 10),
])
def test_padding_moves_a_line_that_would_straddle_a_page(size: int, length: int, pad: int) -> None:
    padding = padding_for(size, length)
    assert len(padding) == pad
    if pad:
        assert not padding.strip() and b"\n" not in padding  # spaces opening the record's own line
        assert (size + pad) % PAGE == 0


def test_append_read_round_trip_skips_padding_torn_tails_and_counts_garbage(tmp_path: Path) -> None:
    root = tmp_path / "diagnostics"
    store = DiagnosticsStore(root, "2026-01-01T00-00-00.000Z")
    lines = [encode_line(note_record(T0 + i, "s1", "n" * (i * 97 % 1500), "other", "info", None))
             for i in range(40)]
    for line in lines:
        store.append("s1", line)
    store.close()
    path = root / "s1" / "2026-01-01T00-00-00.000Z.jsonl"
    data = path.read_bytes()
    assert oct(path.stat().st_mode & 0o777) == "0o600" and oct((root / "s1").stat().st_mode & 0o777) == "0o700"
    # no record straddles a page boundary, and every line is strict JSON as it is
    offset = 0
    for raw in data.split(b"\n")[:-1]:
        assert isinstance(json.loads(raw), dict)
        start = offset + len(raw) - len(raw.lstrip(b" "))
        assert start // PAGE == (offset + len(raw)) // PAGE
        offset += len(raw) + 1
    records, bad = read_records(root)
    assert [r["ts"] for r in records] == [utc_iso(T0 + i) for i in range(40)] and bad == 0
    with open(path, "ab") as f:
        f.write(b"not json\n[1]\n{\"kind\":\"note\",\"ts\":\"cut")
    records, bad = read_records(root)
    assert len(records) == 40 and bad == 2
    assert read_records(root, "s1")[0] == records
    assert read_records(tmp_path / "nothing-here") == ([], 0)
    with pytest.raises(ToolError):
        read_records(root, "../s1")


def test_retention_rule_and_sweep_with_controlled_time(tmp_path: Path) -> None:
    assert not is_expired(T0 - 30 * DAY, T0, 30)
    assert is_expired(T0 - 30 * DAY - 1, T0, 30)
    assert not is_expired(T0 - 365 * DAY, T0, 0)  # 0 disables
    root = tmp_path / "diagnostics"
    ages = {"fresh": 1, "edge": 30, "old": 31, "ancient": 400}
    for name, age in ages.items():
        folder = root / name
        folder.mkdir(parents=True)
        (folder / "a.jsonl").write_text("{}\n")
        os.utime(folder / "a.jsonl", (T0 - age * DAY, T0 - age * DAY))
        os.utime(folder, (T0 - age * DAY, T0 - age * DAY))
    # a newer file keeps an otherwise old folder alive
    (root / "old" / "b.jsonl").write_text("{}\n")
    os.utime(root / "old" / "b.jsonl", (T0 - 2 * DAY, T0 - 2 * DAY))
    os.utime(root / "old", (T0 - 31 * DAY, T0 - 31 * DAY))
    (root / "stray-file").write_text("x")
    os.utime(root / "stray-file", (T0 - 400 * DAY, T0 - 400 * DAY))
    store = DiagnosticsStore(root, "x")
    assert store.sweep(0, T0) == []
    assert store.sweep(30, T0) == ["ancient"]
    assert sorted(p.name for p in root.iterdir()) == ["edge", "fresh", "old", "stray-file"]
    assert store.sweep(30, T0 + 1) == ["edge"]
    assert store.sweep(30, T0 + 28 * DAY) == []  # old's newest file is exactly 30 days old
    assert store.sweep(30, T0 + 28 * DAY + 1) == ["old"]
    assert store.discard("fresh") and not store.discard("fresh")
    assert sorted(p.name for p in root.iterdir()) == ["stray-file"]


def test_retention_days_configuration() -> None:
    assert parse_retention_days(None) == 30 and parse_retention_days("") == 30
    assert parse_retention_days("0") == 0 and parse_retention_days(" 7 ") == 7
    for bad in ("-1", "1.5", "soon"):
        with pytest.raises(ValueError, match="BROWX_DIAGNOSTICS_RETENTION_DAYS"):
            parse_retention_days(bad)
    assert RuntimeConfig.from_env({}).diagnostics_retention_days == 30
    assert RuntimeConfig.from_env({"BROWX_DIAGNOSTICS_RETENTION_DAYS": "3"}).diagnostics_retention_days == 3
    assert RuntimeConfig.from_env({}, diagnostics_retention_days=0).diagnostics_retention_days == 0


# -- search ---------------------------------------------------------------------------


def _rec(kind: str, ts: int, session: str = "a", **fields: object) -> dict:
    return {"kind": kind, "ts": f"2026-06-08T12:00:{ts:02d}.000Z", "sessionId": session, **fields}


RECORDS = [
    _rec("call", 5, tool="click"),
    _rec("note", 1, category="workaround"),
    _rec("call", 3, "b", tool="snapshot"),
    _rec("note", 4, "b", category="missing-primitive"),
    _rec("call", 2, tool="snapshot"),
    _rec("dropped", 6, count=3),
    _rec("call", 3, tool="click"),  # same ts as the "b" snapshot: file order decides
]


def _stamps(records: list[dict]) -> list[tuple[int, str]]:
    return [(int(r["ts"][17:19]), r.get("tool") or r.get("category") or r["kind"]) for r in records]


def test_search_filters_order_and_limit() -> None:
    found, truncated = search(RECORDS)
    assert _stamps(found) == [(1, "workaround"), (2, "snapshot"), (3, "snapshot"), (3, "click"),
                              (4, "missing-primitive"), (5, "click"), (6, "dropped")]
    assert truncated is False
    # Each filter asks for its own kind: {tool} no notes, {category} no calls, neither
    # the drop markers; together, those calls and those notes.
    assert _stamps(search(RECORDS, tool="click")[0]) == [(3, "click"), (5, "click")]
    assert _stamps(search(RECORDS, category="workaround")[0]) == [(1, "workaround")]
    assert _stamps(search(RECORDS, tool="click", category="missing-primitive")[0]) == [
        (3, "click"), (4, "missing-primitive"), (5, "click")]
    assert search(RECORDS, tool="workaround") == ([], False)  # a note's category is not a tool
    assert search(RECORDS, category="click") == ([], False)
    assert _stamps(search(RECORDS, tool="snapshot", session_id="b")[0]) == [(3, "snapshot")]
    assert _stamps(search(RECORDS, session_id="b")[0]) == [(3, "snapshot"), (4, "missing-primitive")]
    since = normalize_since("2026-06-08T12:00:03Z")
    assert _stamps(search(RECORDS, since=since)[0])[:2] == [(3, "snapshot"), (3, "click")]
    found, truncated = search(RECORDS, limit=7)
    assert len(found) == 7 and truncated is False
    found, truncated = search(RECORDS, limit=6)
    assert len(found) == 6 and truncated is True and _stamps(found)[-1] == (5, "click")
    assert search([{"kind": "call", "tool": "x"}], since=since) == ([], False)  # no ts: before any since


def test_since_and_limit_arguments() -> None:
    assert normalize_since("2026-06-08T12:34:56.789Z") == "2026-06-08T12:34:56.789Z"
    assert normalize_since("2026-06-08T14:34:56+02:00") == "2026-06-08T12:34:56.000Z"
    assert normalize_since("2026-06-08T12:34:56") == "2026-06-08T12:34:56.000Z"
    assert normalize_since("2026-06-08") == "2026-06-08T00:00:00.000Z"
    assert normalize_since(None) is None
    with pytest.raises(ToolError) as caught:
        normalize_since("yesterday")
    assert caught.value.details == {"field": "since"}
    assert clamp_limit(100) == (100, []) and clamp_limit(1000) == (1000, [])
    assert clamp_limit(1001) == (1000, ["limit 1001 is above the hard cap of 1000; clamped to 1000"])


# -- report ---------------------------------------------------------------------------


def test_nearest_rank_percentiles() -> None:
    assert percentile([4, 1, 3, 2], 50) == 2
    assert percentile([4, 1, 3, 2], 95) == 4
    assert percentile(list(range(1, 21)), 95) == 19
    assert percentile(list(range(1, 20)), 95) == 19
    assert percentile(list(range(1, 22)), 95) == 20
    assert percentile(list(range(1, 101)), 50) == 50 and percentile(list(range(1, 101)), 95) == 95
    assert percentile([7.5], 50) == 7.5 and percentile([7.5], 95) == 7.5


def _eval(ts: int, expr: str, taxonomy: str, ok: bool = True) -> dict:
    meta = {"ok": ok} if ok else {"ok": False, "failureKind": "internal"}
    return _rec("call", ts, tool="eval_js", durationMs=1.0, resultMeta=meta,
                evalJs={"exprSha": _sha(expr), "exprHead": expr[:80], "returnType": "string",
                        "returnSizeBytes": 1, "taxonomy": taxonomy})


def test_report_fields_by_hand() -> None:
    records = [
        *(_rec("call", i, tool="click", durationMs=d, resultMeta={"ok": True})
          for i, d in enumerate([5, 1, 4], start=1)),
        _rec("call", 4, tool="click", durationMs=2,
             resultMeta={"ok": False, "failureKind": "target-not-found"}),
        _rec("call", 5, tool="click", durationMs=3,
             resultMeta={"ok": False, "failureKind": "capability-denied"}),
        *(_rec("call", 10, "b", tool="snapshot", durationMs=float(d), resultMeta={"ok": True})
          for d in range(20, 0, -1)),
        _rec("call", 11, tool="eval_js", durationMs=9, resultMeta={"ok": False, "failureKind": "capability-denied"}),
        _eval(12, "document.title", "dom-query"),
        _eval(13, "document.title", "dom-query"),
        _eval(14, "localStorage.a", "storage-access", ok=False),
        _rec("note", 15, category="workaround"),
        _rec("note", 16, category="workaround"),
        _rec("note", 17, category="missing-primitive"),
        _rec("dropped", 18, count=4),
        _rec("dropped", 19, "b", count=2),
    ]
    report = build_report(records)
    assert report["perTool"] == {
        "click": {"count": 5, "failureCount": 2, "p50Duration": 3, "p95Duration": 5},
        "eval_js": {"count": 4, "failureCount": 2, "p50Duration": 1.0, "p95Duration": 9},
        "snapshot": {"count": 20, "failureCount": 0, "p50Duration": 10.0, "p95Duration": 19.0},
    }
    assert report["topEvalJsPatterns"] == [
        {"exprSha": _sha("document.title"), "exprHead": "document.title", "count": 2, "taxonomy": "dom-query"},
        {"exprSha": _sha("localStorage.a"), "exprHead": "localStorage.a", "count": 1,
         "taxonomy": "storage-access"},
    ]
    assert report["capabilityDenials"] == {"click": 1, "eval_js": 1}
    assert report["notesByCategory"] == {"missing-primitive": 1, "workaround": 2}
    assert report["missingPrimitiveHypotheses"] == []
    assert report["droppedRecords"] == 6
    assert "records" not in report and "truncated" not in report
    assert set(report) == {"perTool", "topEvalJsPatterns", "capabilityDenials", "notesByCategory",
                           "missingPrimitiveHypotheses", "droppedRecords"}


def _evals(expr: str, taxonomy: str, count: int) -> list[dict]:
    return [_eval(i % 60, expr, taxonomy) for i in range(count)]


@pytest.mark.parametrize(("dom", "custom", "expected"), [
    (2, 4, []),
    (3, 4, ["dom-query"]),
    (2, 5, ["custom:CUSTOM"]),
    (3, 5, ["dom-query", "custom:CUSTOM"]),
])
def test_hypotheses_boundaries(dom: int, custom: int, expected: list[str]) -> None:
    records = (
        # dom-query counted per taxonomy: spread over distinct expressions
        [_eval(i, f"document.querySelector('#a{i}')", "dom-query") for i in range(dom)]
        + _evals("window.app.total()", "custom", custom)
        # five custom calls over five patterns: no single pattern reaches 5
        + [_eval(i, f"window.app.f{i}()", "custom") for i in range(5)]
    )
    named = [h.replace(_sha("window.app.total()"), "CUSTOM")
             for h in build_report(records)["missingPrimitiveHypotheses"]]
    assert named == expected


def test_hypotheses_order_taxonomies_then_custom_by_count() -> None:
    records = (_evals("a()", "custom", 5) + _evals("b()", "custom", 6) + _evals("getComputedStyle(x)",
               "computed-style", 3) + _evals("localStorage.x", "storage-access", 4))
    assert build_report(records)["missingPrimitiveHypotheses"] == [
        "storage-access", "computed-style", f"custom:{_sha('b()')}", f"custom:{_sha('a()')}"]


def test_top_patterns_are_capped_at_ten_most_frequent() -> None:
    records = []
    for n in range(12):
        records += _evals(f"f{n:02d}()", "custom", 12 - n if n != 11 else 12)
    top = build_report(records)["topEvalJsPatterns"]
    assert [p["exprHead"] for p in top] == ["f00()", "f11()", "f01()", "f02()", "f03()", "f04()",
                                             "f05()", "f06()", "f07()", "f08()"]
    assert [p["count"] for p in top] == [12, 12, 11, 10, 9, 8, 7, 6, 5, 4]


def test_full_format_caps_records_at_500() -> None:
    records = [_rec("note", i % 60, category="other") for i in range(501)]
    full = build_report(records[:500], full=True)
    assert len(full["records"]) == 500 and full["truncated"] is False
    full = build_report(records, full=True)
    assert len(full["records"]) == 500 and full["truncated"] is True and full["records"] == records[:500]


def test_window_by_since_and_session() -> None:
    window = in_window(RECORDS, since=normalize_since("2026-06-08T12:00:04Z"), session_id="a")
    assert _stamps(window) == [(5, "click"), (6, "dropped")]


@given(st.floats(min_value=0, max_value=4e9, allow_nan=False))
def test_utc_iso_agrees_with_datetime(epoch: float) -> None:
    from datetime import UTC, datetime

    expected = datetime.fromtimestamp(epoch, UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")
    assert utc_iso(epoch) == expected
