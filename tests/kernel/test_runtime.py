"""The runtime on real Chromium, through the library API (the same dispatch path as MCP).

These prove the tree's promises: a Chromium killed mid-call fails the pending call at
once and the pool serves the next session with a fresh browser; leaving
``open_runtime`` leaves no Chromium process and no task behind.
"""

from __future__ import annotations

import os
import signal
from pathlib import Path

import trio

from browx_actors import RuntimeConfig, open_runtime
from browx_actors.demo import serve_directory

PAGES = Path(__file__).parents[2] / "browx_actors" / "demo_page"


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            state = f.read().rsplit(")", 1)[1].split()[0]
    except FileNotFoundError:
        return False
    return state != "Z"


def _group_members(pgid: int) -> list[int]:
    members = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    fields = f.read().rsplit(")", 1)[1].split()
            except (FileNotFoundError, ProcessLookupError):
                continue
            if int(fields[2]) == pgid and fields[0] != "Z":
                members.append(int(entry))
    return members


def _config(tmp_path: Path, caps: str = "eval") -> RuntimeConfig:
    return RuntimeConfig.from_env({}, workspace=tmp_path, capabilities=caps)


async def _browser_pid(runtime) -> int:
    status = await runtime.call_tool("runtime_status")
    return _pool(status)["browser"]["pid"]


def _pool(status: dict) -> dict:
    return next(c for c in status["tree"]["children"] if c["id"] == "browser-pool")


async def test_library_call_matches_dispatch_and_leaves_nothing_running(tmp_path: Path) -> None:
    with serve_directory(PAGES) as base:
        async with open_runtime(config=_config(tmp_path), capabilities=["eval"]) as runtime:
            nav = await runtime.call_tool("navigate", {"url": f"{base}/index.html"})
            assert nav["ok"] and nav["status"] == 200 and nav["title"] == "browx demo: sign-up"
            snap = await runtime.call_tool("snapshot")
            assert 'button "Create account" [ref=' in snap["snapshot"]
            assert (await runtime.call_tool("eval_js", {"expr": "1 + 2"})) == {"ok": True, "value": 3}
            pid = await _browser_pid(runtime)
            assert _alive(pid)
        # Leaving the block stopped the tree: Chromium's whole process group is gone.
        assert not _alive(pid)
        assert _group_members(pid) == []


async def test_client_gate_and_server_gate_both_apply(tmp_path: Path) -> None:
    async with open_runtime(config=_config(tmp_path, caps="eval"), capabilities=[]) as runtime:
        denied = await runtime.call_tool("eval_js", {"expr": "1"})
        assert denied["code"] == "capability-denied" and denied["capability"] == "eval"
        assert "client" in denied["error"] and "server" not in denied["error"]
    async with open_runtime(config=_config(tmp_path, caps=""), capabilities=["eval"]) as runtime:
        denied = await runtime.call_tool("eval_js", {"expr": "1"})
        assert denied["code"] == "capability-denied"
        assert "BROWX_CAPABILITIES" in denied["error"]
        status = await runtime.call_tool("runtime_status")
        assert status["capabilityDenials"] == 1


async def test_sigkill_fails_pending_call_within_a_second_and_next_session_gets_new_browser(
    tmp_path: Path,
) -> None:
    async with open_runtime(config=_config(tmp_path), capabilities=["eval"]) as runtime:
        assert (await runtime.call_tool("open_session", {"session": "s1"}))["ok"]
        pid = await _browser_pid(runtime)
        outcome: dict = {}

        async def pending_call() -> None:
            outcome["envelope"] = await runtime.call_tool(
                "eval_js", {"session": "s1", "expr": "new Promise(() => {})"}
            )
            outcome["at"] = trio.current_time()

        async with trio.open_nursery() as nursery:
            nursery.start_soon(pending_call)
            await trio.sleep(0.3)  # let the call reach the page (real time: real Chromium)
            killed_at = trio.current_time()
            os.killpg(pid, signal.SIGKILL)
        envelope = outcome["envelope"]
        assert envelope["ok"] is False and envelope["code"] == "browser-crashed"
        assert "SIGKILL" in envelope["error"] and "s1" in envelope["error"]
        assert outcome["at"] - killed_at < 1.0

        # The id is free again; a new session gets a fresh browser.
        assert (await runtime.call_tool("open_session", {"session": "s2"}))["ok"]
        assert (await runtime.call_tool("eval_js", {"session": "s2", "expr": "6 * 7"}))["value"] == 42
        status = await runtime.call_tool("runtime_status")
        pool = _pool(status)
        assert pool["launches"] == 2 and pool["browser"]["generation"] == 2
        assert pool["browser"]["pid"] != pid
        kinds = [(e["child"], e["kind"]) for e in status["events"]]
        assert ("chromium-1", "exited") in kinds and ("chromium-2", "started") in kinds
        assert [s["id"] for s in status["sessions"]] == ["s2"]
        # The crashed session's id reads as ended once, then as unknown.
        gone = await runtime.call_tool("snapshot", {"session": "s1"})
        assert gone["code"] == "unknown-session"


async def test_cancelling_the_runtime_leaves_no_chromium(tmp_path: Path) -> None:
    pid_box: list[int] = []
    with trio.move_on_after(20) as scope:
        async with open_runtime(config=_config(tmp_path)) as runtime:
            await runtime.call_tool("snapshot")
            pid_box.append(await _browser_pid(runtime))
            scope.cancel()
            await trio.sleep_forever()
    assert scope.cancelled_caught
    assert pid_box and not _alive(pid_box[0])


async def test_attach_to_existing_browser_leaves_it_running(tmp_path: Path) -> None:
    from browx_actors.cdp import launch_chromium

    async with launch_chromium() as external:
        config = RuntimeConfig.from_env({}, workspace=tmp_path, attach_cdp=external.http_url)
        async with open_runtime(config=config) as runtime:
            nav = await runtime.call_tool("navigate", {"url": "data:text/html,<h1>attached</h1>"})
            assert nav["ok"], nav
            snap = await runtime.call_tool("snapshot")
            assert 'heading "attached"' in snap["snapshot"]
            pool = _pool(await runtime.call_tool("runtime_status"))
            assert pool["browser"]["attached"] is True and pool["browser"]["pid"] is None
        # Detaching closed our context, not the operator's browser.
        assert _alive(external.pid)
