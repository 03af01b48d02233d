"""Chaos over real stdio: kill the browser, a renderer, the server itself.

The real server in a subprocess, spoken to in raw JSON-RPC lines (so calls can be in
flight at once and answers counted), real Chromium, pages on loopback. Each test kills
something and then counts what matters: calls that got no answer, sessions that stopped
answering, processes left behind.
"""

from __future__ import annotations

import os
import signal
from pathlib import Path
from typing import Any

import pytest
import trio

from e2e_support import RawStdio, processes_matching, raw_server, wait_until_gone

pytestmark = pytest.mark.chromium

ANSWER_WITHIN = 60.0


async def _ok(raw: RawStdio, tool: str, args: dict[str, Any] | None = None) -> dict[str, Any]:
    envelope = await raw.call_tool(tool, args or {}, within=ANSWER_WITHIN)
    assert envelope is not None and envelope.get("ok") is True, (tool, args, envelope)
    return envelope


async def _browser(raw: RawStdio) -> tuple[int, str]:
    """The pool's browser pid and its profile folder."""
    status = await _ok(raw, "runtime_status")
    pool = next(c for c in status["tree"]["children"] if c["id"] == "browser-pool")
    pid = pool["browser"]["pid"]
    cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    profile = next(a for a in cmdline if a.startswith(b"--user-data-dir=")).split(b"=", 1)[1].decode()
    return pid, profile


async def test_server_sigkill_leaves_no_browser_and_the_next_start_sweeps_its_profile(
        tmp_path: Path, short_tmp: Path, pages_url: str) -> None:
    tmpdir = short_tmp
    async with raw_server(tmp_path / "ws", tmpdir=tmpdir) as raw:
        for session in ("s1", "s2"):
            await _ok(raw, "open_session", {"session": session})
            await _ok(raw, "navigate", {"url": f"{pages_url}/e2e_app.html", "session": session})
        _, profile = await _browser(raw)
        family = processes_matching(profile)
        assert len(family) > 3
        os.kill(raw.process.pid, signal.SIGKILL)
        await raw.process.wait()
        # The kernel kills the browser with its server; the rest of the family follows.
        assert await wait_until_gone(family, 15) == []
        assert Path(profile).exists()  # nobody was left to remove it
    async with raw_server(tmp_path / "ws", tmpdir=tmpdir) as raw:
        await _ok(raw, "navigate", {"url": f"{pages_url}/e2e_small.html"})  # a launch sweeps first
        assert not Path(profile).exists()
        _, fresh = await _browser(raw)
        assert [p.name for p in tmpdir.glob("browx-chromium-*")] == [Path(fresh).name]


async def test_browser_sigkill_answers_every_call_in_flight_and_the_pool_relaunches(
        tmp_path: Path, pages_url: str) -> None:
    async with raw_server(tmp_path / "ws", "eval") as raw:
        sessions = [f"s{i}" for i in range(3)]
        for session in sessions:
            await _ok(raw, "open_session", {"session": session})
            await _ok(raw, "navigate", {"url": f"{pages_url}/e2e_delayed.html", "session": session})
        pid, profile = await _browser(raw)
        answers: list[dict[str, Any] | None] = []

        async def in_flight(session: str, i: int) -> None:
            args = {"text": "never appears", "timeoutMs": 30_000, "session": session} if i % 2 else {
                "expr": "new Promise(r => setTimeout(r, 20000))", "session": session}
            answers.append(await raw.call_tool("wait_for" if i % 2 else "eval_js", args, within=ANSWER_WITHIN))

        async with trio.open_nursery() as nursery:
            for i in range(12):
                nursery.start_soon(in_flight, sessions[i % 3], i)
            await trio.sleep(1)
            os.kill(pid, signal.SIGKILL)
        assert None not in answers, "a call got no answer"
        assert {a["code"] for a in answers if a is not None} == {"browser-crashed"}
        assert await wait_until_gone(processes_matching(profile), 15) == []
        # The ids are free again and a fresh browser serves them.
        for session in sessions:
            await _ok(raw, "open_session", {"session": session})
            assert (await _ok(raw, "eval_js", {"expr": "1 + 1", "session": session}))["value"] == 2
        new_pid, _ = await _browser(raw)
        assert new_pid != pid


def _renderers(profile: str) -> list[int]:
    return [pid for pid in processes_matching(profile)
            if b"--type=renderer" in Path(f"/proc/{pid}/cmdline").read_bytes()]


async def test_renderer_kill_is_reported_as_a_crashed_tab_and_navigate_recovers(
        tmp_path: Path, pages_url: str) -> None:
    async with raw_server(tmp_path / "ws", "eval") as raw:
        page = f"{pages_url}/e2e_app.html"
        await _ok(raw, "navigate", {"url": page})
        _, profile = await _browser(raw)
        for pid in _renderers(profile):
            os.kill(pid, signal.SIGKILL)
        with trio.fail_after(ANSWER_WITHIN):
            while True:  # the crash reaches the session as an event, a moment later
                snapshot = await raw.call_tool("snapshot", within=ANSWER_WITHIN)
                assert snapshot is not None
                if not snapshot["ok"]:
                    break
                await trio.sleep(0.05)
        assert snapshot["code"] == "tab-crashed", snapshot
        tabs = await _ok(raw, "list_tabs")
        assert [t["crashed"] for t in tabs["tabs"]] == [True]
        await _ok(raw, "navigate", {"url": page})
        assert "[ref=e" in (await _ok(raw, "snapshot"))["snapshot"]
        assert [t["crashed"] for t in (await _ok(raw, "list_tabs"))["tabs"]] == [False]


async def test_navigate_sent_straight_after_a_renderer_kill_recovers_on_its_first_attempt(
        tmp_path: Path, pages_url: str) -> None:
    async with raw_server(tmp_path / "ws") as raw:
        page = f"{pages_url}/e2e_app.html"
        for attempt in range(3):
            await _ok(raw, "navigate", {"url": page})
            _, profile = await _browser(raw)
            for pid in _renderers(profile):
                os.kill(pid, signal.SIGKILL)
            # No wait for the crash event: the navigate races it, as an agent's would.
            answer = await _ok(raw, "navigate", {"url": page})
            assert answer["url"] == page, (attempt, answer)
            assert "[ref=e" in (await _ok(raw, "snapshot"))["snapshot"]
            assert [t["crashed"] for t in (await _ok(raw, "list_tabs"))["tabs"]] == [False]
