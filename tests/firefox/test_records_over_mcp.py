"""Over real stdio MCP (the server in a subprocess): a firefox session's console error
logged by a click shows in console_read, its cookies stay its own, and a wait that is
never met answers timeout naming what it waited for."""

from __future__ import annotations

from pathlib import Path

from e2e_support import browx_server, fails, ok


async def test_firefox_records_waits_and_cookies_over_stdio(tmp_path: Path, pages_url: str) -> None:
    async with browx_server(tmp_path / "ws", "storage") as client:
        await ok(client, "open_session", {"session": "ff", "engine": "firefox"})
        await ok(client, "open_session", {"session": "ff2", "engine": "firefox"})
        ff = {"session": "ff"}
        await ok(client, "navigate", {**ff, "url": f"{pages_url}/page_logs.html"})
        before = await ok(client, "console_read", ff)
        assert not any("clicked error" in line for line in before["messages"])
        await ok(client, "click", {**ff, "selector": "#break"})
        after = await ok(client, "console_read", {**ff, "since": before["last"], "level": "error"})
        assert any("clicked error" in line for line in after["messages"]), after
        assert any("undefinedFunction" in line for line in after["messages"]), after

        await ok(client, "cookies_set", {**ff, "name": "mine", "value": "1"})
        assert (await ok(client, "cookies_list", ff))["count"] == 1
        assert (await ok(client, "cookies_list", {"session": "ff2"}))["count"] == 0

        failed = await fails(client, "wait_for", {**ff, "text": "Never written", "timeoutMs": 250}, "timeout")
        assert failed["error"] == "waited 250 ms for text (visible): not met"
