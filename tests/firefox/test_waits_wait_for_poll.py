"""wait_for and poll_eval on firefox: Later waits that poll the page while the session
keeps serving. Each wait here is met by a page change made by another call while the
wait is in flight (never by the clock), and one that is never met answers ``timeout``
naming what it waited for."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import trio

from e2e_support import ref_of, snapshot_line
from ff_records_support import fails, firefox_runtime, ok
from polling import poll_until

#: A page whose late text arrives only when a test puts it there.
NEVER_MS = 3_600_000


async def while_waiting(rt: Any, tool: str, args: dict[str, Any], expr: str) -> dict[str, Any]:
    """Start ``tool`` (a wait), check it is still waiting, change the page with ``expr``, and
    return the wait's result."""
    result: dict[str, Any] = {}

    async def wait() -> None:
        result.update(await ok(rt, tool, args))

    async with trio.open_nursery() as nursery:
        nursery.start_soon(wait)
        # The session serves this while the wait is in its nursery: the wait cannot have
        # been met, since only the next call changes the page.
        await ok(rt, "eval_js", {"expr": "1"})
        assert result == {}, result
        await ok(rt, "eval_js", {"expr": expr})
    return result


async def test_wait_for_each_condition_is_met_by_a_change_made_while_it_waits(tmp_path: Path,
                                                                               pages_url: str) -> None:
    async with firefox_runtime(tmp_path / "ws") as rt:
        await ok(rt, "navigate", {"url": f"{pages_url}/e2e_delayed.html?ms={NEVER_MS}"})
        late = "document.getElementById('late')"
        shown = await while_waiting(rt, "wait_for", {"text": "arrived   LATE"}, f"{late}.textContent = 'Arrived late'")
        assert shown["condition"] == "text" and shown["state"] == "visible" and shown["url"].endswith(f"ms={NEVER_MS}")
        assert shown["waitedMs"] >= 0
        hidden = await while_waiting(rt, "wait_for", {"selector": "#late", "state": "hidden"},
                                     f"{late}.style.display = 'none'")
        assert hidden["condition"] == "selector" and hidden["state"] == "hidden"
        gone = await while_waiting(rt, "wait_for", {"textGone": "Arrived late"}, f"{late}.textContent = ''")
        assert gone["condition"] == "textGone"
        attached = await while_waiting(rt, "wait_for", {"selector": "button.new", "state": "attached"},
                                       "document.body.append(Object.assign(document.createElement('button'), "
                                       "{className: 'new', textContent: 'fresh'}))")
        assert attached["state"] == "attached"
        ref = ref_of(snapshot_line((await ok(rt, "snapshot"))["snapshot"], "fresh"))
        detached = await while_waiting(rt, "wait_for", {"ref": ref, "state": "detached"},
                                       "document.querySelector('button.new').remove()")
        assert detached["condition"] == "ref"
        target = f"{pages_url}/page_logs.html"
        moved = await while_waiting(rt, "wait_for", {"url": "**/page_logs.html"}, f"location.href = {target!r}")
        assert moved["condition"] == "url" and moved["url"] == target


async def test_a_wait_that_is_never_met_times_out_naming_it(tmp_path: Path, pages_url: str) -> None:
    async with firefox_runtime(tmp_path / "ws") as rt:
        await ok(rt, "navigate", {"url": f"{pages_url}/e2e_delayed.html?ms={NEVER_MS}"})
        failed = await fails(rt, "wait_for", {"text": "Arrived late", "timeoutMs": 300}, "timeout")
        assert failed["error"] == "waited 300 ms for text (visible): not met"
        failed = await fails(rt, "wait_for", {"selector": "#late", "state": "detached", "timeoutMs": 200}, "timeout")
        assert failed["error"] == "waited 200 ms for selector (detached): not met"
        refused = await fails(rt, "wait_for", {"selector": "div[", "timeoutMs": 5000}, "bad-arg")
        assert refused["field"] == "selector"
        # The session answered all along: the page is still there.
        assert (await ok(rt, "eval_js", {"expr": "document.title"}))["value"] == "E2E delayed"


async def test_poll_eval_until_met_timeouts_and_errors(tmp_path: Path, pages_url: str) -> None:
    async with firefox_runtime(tmp_path / "ws") as rt:
        await ok(rt, "navigate", {"url": f"{pages_url}/e2e_delayed.html?ms={NEVER_MS}"})
        # The page counts the attempts, so the answer is set only once the poll has looked
        # and not found it.
        met: dict[str, Any] = {}

        async def poll() -> None:
            met.update(await ok(rt, "poll_eval", {"expr": "() => (window.tries = (window.tries || 0) + 1, "
                                                  "window.answer)", "until": "v => v === 42", "intervalMs": 50}))

        async def tried() -> bool:
            return bool((await ok(rt, "eval_js", {"expr": "window.tries || 0"}))["value"])

        async with trio.open_nursery() as nursery:
            nursery.start_soon(poll)
            await poll_until(tried, interval=0.05, timeout=30)
            await ok(rt, "eval_js", {"expr": "window.answer = 42"})
        assert met["value"] == 42 and met["attempts"] >= 2
        node = await ok(rt, "poll_eval", {"expr": "document.getElementById('late')",
                                          "until": "el => el.tagName === 'DIV'"})
        assert node["attempts"] == 1
        assert (await ok(rt, "poll_eval", {"expr": "Promise.resolve({a: [1, 2]})"}))["value"] == {"a": [1, 2]}
        short = await fails(rt, "poll_eval", {"expr": "1 + 1", "until": "v => v > 5", "timeoutMs": 300,
                                              "intervalMs": 50}, "timeout")
        assert short["error"].startswith("poll_eval: the condition did not hold within 300 ms")
        assert short["lastValue"] == 2 and short["attempts"] >= 2
        thrown = await fails(rt, "poll_eval", {"expr": "notDefinedYet.x", "timeoutMs": 200}, "timeout")
        assert "notDefinedYet" in thrown["lastError"]
        await fails(rt, "poll_eval", {"expr": "1 +", "timeoutMs": 5000}, "eval-error")
        await fails(rt, "poll_eval", {"expr": "'x'.repeat(5000)", "maxBytes": 100}, "too-large")
