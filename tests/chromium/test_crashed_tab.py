"""A crashed renderer: the tab says so, the failing call says so, navigate recovers it.

Through the real runtime and real Chromium; the renderer is crashed with CDP's
``Page.crash`` (the kill of a renderer process is in ``tests/chaos``). Before, the tab
was listed as normal, calls failed as ``tab-closed`` or ``eval-error`` (or the session
ended), and every navigate failed with "Page crashed" until ``close_tab``.
"""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Any

import trio

from browx_actors import RuntimeConfig, open_runtime
from e2e_support import serve_pages, session_actor


async def _crash(session: Any) -> None:
    with trio.move_on_after(5), contextlib.suppress(Exception):
        await session.cdp.send("Page.crash")  # never answered: the target is gone


async def test_a_crashed_renderer_is_reported_and_navigate_recovers_the_tab(tmp_path: Path) -> None:
    config = RuntimeConfig.from_env({}, workspace=tmp_path, capabilities="eval")
    with serve_pages() as base:
        small, second = f"{base}/e2e_small.html", f"{base}/e2e_second.html"
        async with open_runtime(config=config, capabilities=["eval"]) as runtime:
            assert (await runtime.call_tool("navigate", {"url": small}))["ok"]
            session = await session_actor(runtime)
            results: list[dict[str, Any]] = []

            async def waiting() -> None:  # a call in flight when the renderer dies
                results.append(await runtime.call_tool("wait_for", {"text": "never there", "timeoutMs": 30_000}))

            async with trio.open_nursery() as nursery:
                nursery.start_soon(waiting)
                await trio.sleep(0.5)
                nursery.start_soon(_crash, session)
            assert (results[0]["code"], results[0]["tab"]) == ("tab-crashed", 1), results

            tabs = await runtime.call_tool("list_tabs")
            assert [(t["id"], t["crashed"]) for t in tabs["tabs"]] == [(1, True)]
            for tool, args in (("snapshot", {}), ("eval_js", {"expr": "1"}), ("click", {"selector": "button"})):
                failed = await runtime.call_tool(tool, args)
                assert (failed["code"], failed["tab"]) == ("tab-crashed", 1), (tool, failed)

            recovered = await runtime.call_tool("navigate", {"url": second})
            assert recovered["ok"] is True, recovered
            assert (await runtime.call_tool("eval_js", {"expr": "location.href"}))["value"] == second
            tabs = await runtime.call_tool("list_tabs")
            assert [(t["id"], t["crashed"], t["url"]) for t in tabs["tabs"]] == [(1, False, second)]
            assert "[ref=e" in (await runtime.call_tool("snapshot"))["snapshot"]
            status = await runtime.call_tool("runtime_status")
            assert status["restarts"] == {} and [s["id"] for s in status["sessions"]] == ["default"]


async def test_a_page_that_throws_the_crash_words_is_not_taken_for_a_crash(tmp_path: Path) -> None:
    config = RuntimeConfig.from_env({}, workspace=tmp_path, capabilities="eval")
    with serve_pages() as base:
        async with open_runtime(config=config, capabilities=["eval"]) as runtime:
            assert (await runtime.call_tool("navigate", {"url": f"{base}/e2e_small.html"}))["ok"]
            for words in ("Target crashed", "Page crashed", "target crashed"):
                thrown = await runtime.call_tool("eval_js", {"expr": f"(() => {{ throw new Error({words!r}) }})()"})
                assert thrown["code"] == "eval-error", thrown
            assert [t["crashed"] for t in (await runtime.call_tool("list_tabs"))["tabs"]] == [False]
