"""The way out of a page that cannot answer, over real stdio on real Chromium.

A page whose main thread never yields, and pages that open alerts in a loop (on an
interval, or one after another in a ``for(;;)``): one ``navigate`` leaves each, under
every dialog policy, and says how; ``close_tab`` closes them; the calls that meet a
busy page answer ``timeout`` naming it, not ``internal``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import trio

from e2e_support import RawStdio, raw_server
from polling import poll_until

pytestmark = pytest.mark.chromium

WITHIN = 60.0


async def _call(raw: RawStdio, tool: str, args: dict[str, Any] | None = None) -> dict[str, Any]:
    envelope = await raw.call_tool(tool, args or {}, within=WITHIN)
    assert envelope is not None, (tool, "no answer")
    return envelope


async def _ok(raw: RawStdio, tool: str, args: dict[str, Any] | None = None) -> dict[str, Any]:
    envelope = await _call(raw, tool, args)
    assert envelope.get("ok") is True, (tool, args, envelope)
    return envelope


async def _blocked(raw: RawStdio) -> dict[str, Any]:
    """The snapshot refused by the dialog the page opens (a moment after its load)."""
    async def refused() -> dict[str, Any] | None:
        answer = await _call(raw, "snapshot")
        return None if answer["ok"] else answer
    return await poll_until(refused, interval=0.05, timeout=WITHIN)


async def test_a_page_that_never_yields_is_named_busy_and_left_by_one_navigate(
        tmp_path: Path, pages_url: str) -> None:
    async with raw_server(tmp_path / "ws") as raw:
        await _ok(raw, "navigate", {"url": f"{pages_url}/hung_spin.html#now"})  # spins 200 ms after
        waited = await _call(raw, "wait_for", {"text": "never there", "timeoutMs": 2000})
        assert waited["code"] == "timeout" and "busy" in waited["error"], waited
        # Known busy now: the next call asks the page once (1 s) and answers at once.
        for tool in ("snapshot", "click", "screenshot"):
            args = {"selector": "#go"} if tool == "click" else {}
            answer = await _call(raw, tool, args)
            assert answer["code"] == "timeout" and "tab 1's page is busy" in answer["error"], (tool, answer)
        left = await _ok(raw, "navigate", {"url": f"{pages_url}/e2e_small.html"})
        assert any("a fresh page took its place" in w for w in left["warnings"]), left
        assert "[ref=e" in (await _ok(raw, "snapshot"))["snapshot"]
        tabs = (await _ok(raw, "list_tabs"))["tabs"]
        assert [(t["id"], t["crashed"]) for t in tabs] == [(1, False)]


async def test_close_tab_closes_a_page_that_never_yields(tmp_path: Path, pages_url: str) -> None:
    async with raw_server(tmp_path / "ws") as raw:
        await _ok(raw, "navigate", {"url": f"{pages_url}/e2e_small.html"})
        await _ok(raw, "new_tab", {"url": f"{pages_url}/hung_spin.html#now"})
        closed = await _ok(raw, "close_tab")
        assert closed["closed"] == 2 and closed["current"] == 1
        assert "[ref=e" in (await _ok(raw, "snapshot"))["snapshot"]


@pytest.mark.parametrize("loop", ["interval", "forever"])
async def test_one_navigate_leaves_an_alert_loop_under_every_policy(
        tmp_path: Path, pages_url: str, loop: str) -> None:
    async with raw_server(tmp_path / "ws") as raw:
        for policy in ("ask", "accept", "dismiss"):
            await _ok(raw, "set_dialog_policy", {"policy": policy})
            await _ok(raw, "navigate", {"url": f"{pages_url}/alert_loop.html#{loop}"})
            if policy == "ask":
                blocked = await _blocked(raw)
                assert blocked["code"] == "dialog-open", blocked
                if loop == "interval":  # answered one by one, it comes back: the refusal says so
                    for _ in range(2):
                        await _ok(raw, "handle_dialog", {"accept": True})
                        again = await _blocked(raw)
                    assert again["code"] == "dialog-open" and again.get("looping", 0) >= 3, again
                    assert "navigate or close_tab leaves the page" in again["error"]
            else:  # answered as they open: nothing to poll for but the page's own timer (200 ms)
                await trio.sleep(1)
            left = await _ok(raw, "navigate", {"url": f"{pages_url}/e2e_small.html"})
            assert left["title"] == "E2E small", (policy, left)
            answered = left.get("dialogs", [])
            # What was answered on the way out is listed, a run of one dialog as one entry.
            assert all(d["message"] in ("again", "forever") for d in answered), answered
            assert len(answered) <= 2, answered
            if policy == "ask":
                assert answered and answered[0]["answer"] == "dismissed", left
            # Said how: the dialogs it answered on the way, or the page whose place it took.
            assert answered or any("a fresh page took its place" in w for w in left.get("warnings", [])), (policy, left)
            assert "[ref=e" in (await _ok(raw, "snapshot"))["snapshot"], policy


async def test_a_dialog_opened_before_the_load_answers_navigate_and_new_tab_at_once(
        tmp_path: Path, pages_url: str) -> None:
    # The alert blocks the load event, so a load-state wait that does not hear of it
    # would run out its whole timeout. (alert_loop.html's 50 ms interval beats the load
    # of a new tab only under load: this page alerts while it is parsed, every time.)
    early = "data:text/html,<title>early</title><p>early</p><script>alert('early')</script>"
    described = {"type": "alert", "message": "early", "defaultValue": ""}
    async with raw_server(tmp_path / "ws") as raw:
        await _ok(raw, "navigate", {"url": f"{pages_url}/e2e_small.html"})
        for tool in ("navigate", "new_tab"):
            answer = await _ok(raw, tool, {"url": early})
            assert answer["dialog"] == described and answer["settled"] == {"by": "dialog"}, (tool, answer)
            assert (await _blocked(raw))["dialog"] == described, tool
            await _ok(raw, "handle_dialog", {"accept": True})
            assert "early" in (await _ok(raw, "snapshot"))["snapshot"], tool


async def test_a_policy_set_answers_the_dialog_open_now_and_close_tab_says_what_went(
        tmp_path: Path, pages_url: str) -> None:
    async with raw_server(tmp_path / "ws") as raw:
        await _ok(raw, "navigate", {"url": f"{pages_url}/e2e_small.html"})
        await _ok(raw, "new_tab", {"url": f"{pages_url}/alert_loop.html#forever"})
        assert (await _blocked(raw))["code"] == "dialog-open"
        closed = await _ok(raw, "close_tab")
        assert any("dialog open ('forever')" in w for w in closed["warnings"]), closed
        await _ok(raw, "new_tab", {"url": f"{pages_url}/alert_loop.html#interval"})
        assert (await _blocked(raw))["code"] == "dialog-open"
        policy = await _ok(raw, "set_dialog_policy", {"policy": "dismiss"})
        # The interval goes on, answered by the policy now: those answered before the
        # result is made join the same entry, whose count says how many (one or more).
        answered = {k: v for k, v in policy["dialogs"][0].items() if k != "count"}
        assert answered == {"type": "alert", "message": "again", "defaultValue": "", "answer": "dismissed"}, policy
        assert "alerts" in (await _ok(raw, "snapshot"))["snapshot"]  # the page answers again
