"""Diagnostics through the real runtime: real dispatch, real Chromium, real files.

Registered secrets masked in the records under load (200 concurrent calls across
four sessions), escaping session ids, retention on start and on close, and the capability
gates (recording off, search still reading what earlier runs left).
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from collections import Counter
from pathlib import Path

import trio

from browx_actors import RuntimeConfig, open_runtime
from browx_actors.demo import serve_directory

PAGES = Path(__file__).parents[2] / "browx_actors" / "demo_page"
CAPS = ["diagnostics", "secrets", "eval"]
DAY = 86_400.0


def _config(tmp_path: Path, caps: str = "diagnostics,secrets,eval", **kw: object) -> RuntimeConfig:
    return RuntimeConfig.from_env({}, workspace=tmp_path, capabilities=caps, **kw)


def _store_bytes(workspace: Path) -> bytes:
    return b"".join(p.read_bytes() for p in sorted((workspace / "diagnostics").rglob("*.jsonl")))


def _lines(workspace: Path, session: str) -> list[dict]:
    """Every non-blank line of a session's files, each of which must parse."""
    out = []
    for path in sorted((workspace / "diagnostics" / session).glob("*.jsonl")):
        data = path.read_bytes()
        assert data.endswith(b"\n")
        out += [json.loads(raw) for raw in data.split(b"\n") if raw.strip()]
    return out


def _age(path: Path, days: float) -> None:
    """Set a folder's and its files' modification times ``days`` into the past."""
    stamp = time.time() - days * DAY
    for p in [*path.iterdir(), path]:
        os.utime(p, (stamp, stamp))


async def test_secrets_masking_composability(tmp_path: Path) -> None:
    raw = "s3cr3t-Hunter-22"
    with serve_directory(PAGES) as base:
        async with open_runtime(config=_config(tmp_path), capabilities=CAPS) as runtime:
            assert (await runtime.call_tool("navigate", {"url": f"{base}/index.html"}))["ok"]
            assert (await runtime.call_tool("register_secret", {"name": "PASSWORD", "value": raw}))["ok"]
            # The agent echoes the raw value in the arguments of real tool calls.
            assert (await runtime.call_tool("fill", {"selector": "#password", "value": raw}))["ok"]
            expr = f"document.querySelector('#password').value === '{raw}'"
            check = await runtime.call_tool("eval_js", {"expr": expr})
            assert check == {"ok": True, "value": True}  # the page really got the raw value
            echoed = await runtime.call_tool("eval_js", {"expr": "document.querySelector('#password').value"})
            assert echoed == {"ok": True, "value": "<PASSWORD>"}
            await runtime.call_tool("diagnostics_search")  # flushes the recorder
            status = await runtime.call_tool("runtime_status")
            recorder = next(c for c in status["tree"]["children"] if c["id"] == "recorder")
            # The six calls before it were taken in (a call is recorded once it has
            # answered, so the status call does not count itself); the search flushed
            # the five before it, its own record may still be on its way to the writer.
            assert recorder["recording"] is True and recorder["dropped"] == 0
            assert recorder["accepted"] == 6 and recorder["handled"] in (5, 6)
    text = _store_bytes(tmp_path)
    assert raw.encode() not in text
    assert hashlib.sha256(raw.encode()).hexdigest().encode() not in text
    records = {r["tool"]: r for r in _lines(tmp_path, "default") if r["kind"] == "call" and r["tool"] != "eval_js"}
    evals = [r for r in _lines(tmp_path, "default") if r.get("tool") == "eval_js"]
    assert records["register_secret"]["argsRedacted"]["value"] == "<PASSWORD>"
    assert records["fill"]["argsRedacted"]["value"] == "<PASSWORD>"
    assert evals[0]["argsRedacted"]["expr"] == "document.querySelector('#password').value === '<PASSWORD>'"
    assert evals[0]["evalJs"]["exprHead"] == "document.querySelector('#password').value === '<PASSWORD>'"
    assert evals[0]["evalJs"]["exprSha"] == hashlib.sha256(
        b"document.querySelector('#password').value === '<PASSWORD>'").hexdigest()
    assert evals[0]["evalJs"]["taxonomy"] == "dom-query" and evals[1]["evalJs"]["returnType"] == "string"


async def test_200_concurrent_calls_across_4_sessions_give_200_whole_lines(tmp_path: Path) -> None:
    sessions = [f"s{i}" for i in range(4)]
    plan = []
    for i in range(200):
        sid = sessions[i % 4]
        kind = (i // 4) % 4
        if kind == 0:
            plan.append((sid, "eval_js", {"expr": f"{i} * 2", "session": sid}, f"{i} * 2"))
        elif kind == 1:
            plan.append((sid, "snapshot", {"maxNodes": 1000 + i, "session": sid}, 1000 + i))
        elif kind == 2:  # every fifth of these fails verification
            count = 2 if i % 5 == 0 else 1
            sel = f"body:not(.x{i})"
            plan.append((sid, "verify_count", {"selector": sel, "count": count, "session": sid}, sel))
        else:
            plan.append((sid, "register_secret", {"name": f"K{i}", "value": f"v-{i:04d}-value", "session": sid},
                         f"K{i}"))
    async with open_runtime(config=_config(tmp_path), capabilities=CAPS) as runtime:
        for sid in sessions:
            assert (await runtime.call_tool("open_session", {"session": sid}))["ok"]
        await runtime.call_tool("diagnostics_search")
        before = {sid: len(_lines(tmp_path, sid)) for sid in sessions}
        measured: dict[object, tuple[float, dict]] = {}

        async def one(sid: str, tool: str, args: dict, key: object) -> None:
            started = time.perf_counter()
            envelope = await runtime.call_tool(tool, args)
            measured[key] = ((time.perf_counter() - started) * 1000, envelope)

        async with trio.open_nursery() as nursery:
            for sid, tool, args, key in plan:
                nursery.start_soon(one, sid, tool, args, key)
        await runtime.call_tool("diagnostics_search")
        assert runtime.recorder_inbox.dropped_total == 0
    assert sum(1 for _, e in measured.values() if e["ok"]) == 190
    total = 0
    for sid in sessions:
        new = _lines(tmp_path, sid)[before[sid]:]
        total += len(new)
        assert Counter(r["tool"] for r in new) == Counter(t for s, t, _, _ in plan if s == sid)
        for record in new:
            assert record["kind"] == "call" and record["sessionId"] == sid
            args = record["argsRedacted"]
            key = args.get("expr") or args.get("name") or args.get("selector") or args.get("maxNodes")
            wall_ms, envelope = measured[key]
            assert 0 < record["durationMs"] <= wall_ms + 1
            assert record["resultMeta"]["ok"] is envelope["ok"]
            if not envelope["ok"]:
                assert envelope["code"] == "verification-failed"
                assert record["resultMeta"]["failureKind"] == "internal"
    assert total == 200


async def test_escaping_session_ids_are_refused_at_the_dispatch_and_by_the_store(tmp_path: Path) -> None:
    """An id that would escape the diagnostics folder never names a session: the
    dispatch refuses it (the session id rules), and the store's chokepoint refuses it
    again for what reads history from disk (a sessionId filter)."""
    absolute = str(tmp_path / "abs-target")
    async with open_runtime(config=_config(tmp_path), capabilities=CAPS) as runtime:
        for sid in ("../escape", absolute, "a/b", ".."):
            for tool, args in (("register_secret", {"name": "X", "value": "abcdef"}), ("open_session", {}),
                               ("eval_js", {"expr": "6 * 7"}), ("close_session", {}),
                               ("diagnostics_note", {"insight": "x"})):
                refused = await runtime.call_tool(tool, {**args, "session": sid})
                assert (refused["code"], refused["field"]) == ("bad-arg", "session"), (tool, sid, refused)
        search = await runtime.call_tool("diagnostics_search", {"sessionId": "../escape"})
        assert search["code"] == "bad-arg" and search["field"] == "sessionId"
        report = await runtime.call_tool("diagnostics_report")
    # Each refused call is still recorded, under a session it could not name: nowhere.
    assert report["recorder"]["refused"] == 20
    assert not (tmp_path / "escape").exists() and not Path(absolute).exists()
    assert [p.name for p in (tmp_path / "diagnostics").iterdir()] == ["default"]
    assert {r["tool"] for r in _lines(tmp_path, "default")} == {"diagnostics_search", "diagnostics_report"}


async def test_retention_sweeps_on_start_and_on_close_and_close_discards_history(tmp_path: Path) -> None:
    root = tmp_path / "diagnostics"
    for name, days in {"old": 40, "recent": 29, "s1": 1}.items():
        (root / name).mkdir(parents=True)
        (root / name / "2020-01-01T00-00-00.000Z.jsonl").write_text('{"kind":"note"}\n')
        _age(root / name, days)
    async with open_runtime(config=_config(tmp_path), capabilities=CAPS) as runtime:
        assert sorted(p.name for p in root.iterdir()) == ["recent", "s1"]  # swept on server start
        assert (await runtime.call_tool("open_session", {"session": "s1"}))["ok"]
        assert (await runtime.call_tool("eval_js", {"session": "s1", "expr": "1"}))["ok"]
        await runtime.call_tool("diagnostics_search")
        assert len(list((root / "s1").iterdir())) == 2  # the earlier run's file and this one's
        _age(root / "recent", 31)  # time passes (set, not waited for)
        assert (await runtime.call_tool("close_session", {"session": "s1"}))["ok"]
        await runtime.call_tool("diagnostics_search")
        assert sorted(p.name for p in root.iterdir()) == ["default"]  # s1 discarded, recent swept
    # retention 0 disables the sweep
    (root / "old").mkdir()
    (root / "old" / "a.jsonl").write_text("{}\n")
    _age(root / "old", 400)
    async with open_runtime(config=_config(tmp_path, diagnostics_retention_days=0), capabilities=CAPS):
        pass
    assert (root / "old").exists()


async def test_gates_off_record_nothing_refuse_notes_and_still_search_earlier_runs(tmp_path: Path) -> None:
    async with open_runtime(config=_config(tmp_path), capabilities=CAPS) as runtime:
        note = await runtime.call_tool("diagnostics_note", {
            "insight": "need inner_text", "category": "missing-primitive", "severity": "warn"})
        assert note["ok"] and note["note"]["severity"] == "warn"
        # An oversized note is refused by name and leaves the store as it was.
        before = _store_bytes(tmp_path)
        huge = await runtime.call_tool("diagnostics_note", {"insight": "x" * 16_001})
        assert huge["code"] == "bad-arg" and huge["field"] == "insight"
        assert "at most 16,000 characters" in huge["error"]
        await runtime.call_tool("diagnostics_search")  # flushes the recorder
        assert b"x" * 1000 not in _store_bytes(tmp_path)
        assert _store_bytes(tmp_path).startswith(before)
        await runtime.call_tool("list_sessions")
    earlier = _store_bytes(tmp_path)
    for server, client in (("eval", ["eval", "diagnostics"]), ("diagnostics,eval", ["eval"])):
        async with open_runtime(config=_config(tmp_path, caps=server), capabilities=client) as runtime:
            assert runtime.recording is False
            refused = await runtime.call_tool("diagnostics_note", {"insight": "lost?"})
            assert refused["ok"] is False and refused["code"] == "capability-denied"
            assert refused["capability"] == "diagnostics"
            await runtime.call_tool("list_sessions")
            found = await runtime.call_tool("diagnostics_search", {"category": "missing-primitive", "tool": "none"})
            assert found["ok"] and found["count"] == 1 and found["truncated"] is False
            assert found["records"][0]["insight"] == "need inner_text"
            report = await runtime.call_tool("diagnostics_report", {"format": "full"})
            assert report["notesByCategory"] == {"missing-primitive": 1}
            assert report["perTool"]["list_sessions"]["count"] == 1
            assert report["recorder"]["recording"] is False and report["truncated"] is False
        assert _store_bytes(tmp_path) == earlier  # nothing recorded with a gate closed


async def test_search_filters_ask_for_their_own_kind(tmp_path: Path) -> None:
    """{category} answers notes and no calls; {tool} calls and no notes (the spec's
    "applies to kind:note only" / "kind:call only"), through the real dispatch."""
    async with open_runtime(config=_config(tmp_path), capabilities=CAPS) as runtime:
        await runtime.call_tool("diagnostics_note", {"insight": "wanted a primitive", "category": "missing-primitive"})
        await runtime.call_tool("diagnostics_note", {"insight": "worked around it", "category": "workaround"})
        await runtime.call_tool("list_sessions")
        await runtime.call_tool("list_sessions")
        notes = await runtime.call_tool("diagnostics_search", {"category": "missing-primitive"})
        assert notes["ok"] and [(r["kind"], r["insight"]) for r in notes["records"]] == [
            ("note", "wanted a primitive")]
        calls = await runtime.call_tool("diagnostics_search", {"tool": "list_sessions"})
        assert calls["ok"] and [(r["kind"], r["tool"]) for r in calls["records"]] == [
            ("call", "list_sessions"), ("call", "list_sessions")]
        both = await runtime.call_tool("diagnostics_search", {"tool": "list_sessions", "category": "workaround"})
        assert sorted(r["kind"] for r in both["records"]) == ["call", "call", "note"]
        everything = await runtime.call_tool("diagnostics_search")
        assert {r["kind"] for r in everything["records"]} >= {"call", "note"}
