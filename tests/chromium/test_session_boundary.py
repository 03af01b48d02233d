"""A session call is the boundary of its handler's failures and of its deadline.

Through the real runtime and real Chromium: a handler bug (an AttributeError, as a
chromium handler once raised) fails that call with ``internal`` and the session keeps
its page; a handler that never finishes is cancelled inside the session actor at its
deadline, and the session's next call is served at once instead of waiting behind it.
The browser dying still ends the session.
"""

from __future__ import annotations

import os
import signal
from pathlib import Path
from typing import Any

import trio

from browx_actors import RuntimeConfig, open_runtime
from e2e_support import serve_pages


def _config(tmp_path: Path) -> RuntimeConfig:
    return RuntimeConfig.from_env({}, workspace=tmp_path, capabilities="eval")


async def _buggy(session: Any, args: dict[str, Any]) -> Any:
    return session.no_such_attribute


async def _hangs(session: Any, args: dict[str, Any]) -> Any:
    await trio.sleep_forever()


async def _url(session: Any, args: dict[str, Any]) -> Any:
    return session.page.url


async def test_a_handler_bug_fails_its_call_and_the_session_keeps_its_page(tmp_path: Path) -> None:
    with serve_pages() as base:
        async with open_runtime(config=_config(tmp_path), capabilities=["eval"]) as runtime:
            page = f"{base}/e2e_small.html"
            assert (await runtime.call_tool("navigate", {"url": page}))["ok"]
            for _ in range(5):  # more than the supervisor's restart intensity, if it crashed
                try:
                    await runtime.call_session("default", "buggy", _buggy, {}, timeout=30)
                except AttributeError as bug:
                    assert "no_such_attribute" in str(bug)
                else:
                    raise AssertionError("the bug was swallowed")
            assert await runtime.call_session("default", "url", _url, {}, timeout=30) == page
            status = await runtime.call_tool("runtime_status")
            assert status["restarts"] == {}
            assert [s["id"] for s in status["sessions"]] == ["default"]


async def test_a_call_past_its_deadline_is_cancelled_and_the_session_serves_on(tmp_path: Path) -> None:
    with serve_pages() as base:
        async with open_runtime(config=_config(tmp_path), capabilities=["eval"]) as runtime:
            page = f"{base}/e2e_small.html"
            assert (await runtime.call_tool("navigate", {"url": page}))["ok"]
            started = trio.current_time()
            try:
                await runtime.call_session("default", "hangs", _hangs, {}, timeout=1)
            except Exception as err:
                assert getattr(err, "code", None) == "timeout", err
            took = trio.current_time() - started
            assert took < 5
            # Before, this call waited behind the hung handler until its own timeout.
            next_started = trio.current_time()
            assert (await runtime.call_tool("eval_js", {"expr": "location.href"}))["value"] == page
            assert trio.current_time() - next_started < 5


async def test_the_browser_dying_still_ends_the_session(tmp_path: Path) -> None:
    with serve_pages() as base:
        async with open_runtime(config=_config(tmp_path), capabilities=["eval"]) as runtime:
            assert (await runtime.call_tool("navigate", {"url": f"{base}/e2e_small.html"}))["ok"]
            status = await runtime.call_tool("runtime_status")
            pool = next(c for c in status["tree"]["children"] if c["id"] == "browser-pool")
            os.kill(pool["browser"]["pid"], signal.SIGKILL)
            with trio.fail_after(30):
                while True:
                    ended = await runtime.call_tool("snapshot")
                    if not ended["ok"]:
                        break
                    await trio.sleep(0.05)
            assert ended["code"] == "browser-crashed", ended
            assert (await runtime.call_tool("eval_js", {"expr": "1 + 1"}))["value"] == 2  # default reopens


async def test_a_page_that_throws_the_browsers_words_loses_neither_its_tab_nor_its_renderer(
        tmp_path: Path) -> None:
    """Only the browser says a tab closed or crashed: a page's script that throws 'Target
    crashed' or 'has been closed' fails its own call, and the tab serves on."""
    with serve_pages() as base:
        async with open_runtime(config=_config(tmp_path), capabilities=["eval"]) as runtime:
            page = f"{base}/e2e_small.html"
            assert (await runtime.call_tool("navigate", {"url": page}))["ok"]
            for thrown in ("'Target crashed'", "'Page crashed'", "new Error('Target page, context or browser "
                           "has been closed')", "'Target closed'"):
                failed = await runtime.call_tool("eval_js", {"expr": f"(() => {{ throw {thrown}; }})()"})
                assert failed["ok"] is False and failed["code"] == "eval-error", (thrown, failed)
                listed = await runtime.call_tool("list_tabs")
                assert [t.get("crashed", False) for t in listed["tabs"]] == [False], (thrown, listed)
                assert (await runtime.call_tool("eval_js", {"expr": "location.href"}))["value"] == page
