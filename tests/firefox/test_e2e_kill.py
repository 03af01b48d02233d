"""Firefox killed mid-call, over real stdio (raw JSON-RPC lines, so a call can be in
flight while the test kills): the call answers ``browser-crashed``, the session is
gone, and the next ``open_session {engine: firefox}`` gets a fresh Firefox."""

from __future__ import annotations

import os
import signal
from pathlib import Path
from typing import Any

import pytest
import trio

from e2e_support import RawStdio, process_alive, raw_server, wait_until_gone

pytestmark = pytest.mark.firefox

ANSWER_WITHIN = 60.0


async def _ok(raw: RawStdio, tool: str, args: dict[str, Any] | None = None) -> dict[str, Any]:
    envelope = await raw.call_tool(tool, args or {}, within=ANSWER_WITHIN)
    assert envelope is not None and envelope.get("ok") is True, (tool, args, envelope)
    return envelope


async def _firefox(raw: RawStdio) -> dict[str, Any]:
    """The firefox-pool node's browser, as runtime_status reports it."""
    status = await _ok(raw, "runtime_status")
    pool = next(c for c in status["tree"]["children"] if c["id"] == "firefox-pool")
    assert pool.get("browser"), pool
    return pool["browser"]


async def test_firefox_sigkill_mid_call_answers_browser_crashed_and_a_new_session_gets_a_fresh_one(
        tmp_path: Path, pages_url: str) -> None:
    async with raw_server(tmp_path / "ws", "eval") as raw:
        await _ok(raw, "open_session", {"session": "ff", "engine": "firefox"})
        await _ok(raw, "navigate", {"session": "ff", "url": f"{pages_url}/e2e_app.html"})
        browser = await _firefox(raw)
        pid = browser["pid"]
        assert browser["alive"] and process_alive(pid), browser

        answers: list[dict[str, Any] | None] = []

        async def in_flight() -> None:
            answers.append(await raw.call_tool(
                "eval_js", {"session": "ff", "expr": "new Promise(r => setTimeout(r, 20000))"}, within=ANSWER_WITHIN))

        async with trio.open_nursery() as nursery:
            nursery.start_soon(in_flight)
            await trio.sleep(1)  # the call is in the browser by now
            os.kill(pid, signal.SIGKILL)
        assert answers != [None], "the call in flight got no answer"
        assert answers[0] is not None and answers[0].get("code") == "browser-crashed", answers
        assert await wait_until_gone([pid], 15) == []

        # The session went with its browser; the pool says why.
        later = await raw.call_tool("snapshot", {"session": "ff"}, within=ANSWER_WITHIN)
        assert later is not None and later.get("code") == "unknown-session", later
        lost = await _firefox(raw)
        assert lost["alive"] is False and lost["lostReason"], lost

        await _ok(raw, "open_session", {"session": "ff", "engine": "firefox"})
        await _ok(raw, "navigate", {"session": "ff", "url": f"{pages_url}/e2e_app.html"})
        assert (await _ok(raw, "eval_js", {"session": "ff", "expr": "1 + 1"}))["value"] == 2
        fresh = await _firefox(raw)
        assert fresh["pid"] != pid and fresh["generation"] == browser["generation"] + 1 and fresh["alive"], fresh
