"""Firefox sessions read what their pages logged and requested (console_read,
network_read, network_body) from BiDi's log and network events, in chromium's shapes."""

from __future__ import annotations

import socket
from pathlib import Path
from typing import Any

from browx_actors.sessions.firefox.records.books import KEEP
from ff_records_support import fails, firefox_runtime, ok
from polling import poll_until


def closed_port() -> int:
    """A loopback port that was free a moment ago: nothing listens on it."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


async def test_console_read_lists_filters_and_details_what_the_page_logged(tmp_path: Path, pages_url: str) -> None:
    async with firefox_runtime(tmp_path / "ws") as rt:
        await ok(rt, "navigate", {"url": f"{pages_url}/page_logs.html"})
        await ok(rt, "wait_for", {"text": "A page that logs"})
        first = await ok(rt, "console_read")
        lines = first["messages"]
        assert any("boot ok in 42 ms" in line and line.split()[1] == "info" for line in lines), lines
        assert any("warn" in line and "careful now" in line for line in lines), lines
        assert first["tabs"] == [1] and set(first["counts"]) == {"1"}
        counts = first["counts"]["1"]
        assert counts["seen"] == first["shown"] and counts["sampledOut"] == 0
        assert counts["byLevel"]["error"] >= 1 and counts["byLevel"]["warn"] == 1

        errors = await ok(rt, "console_read", {"level": "error"})
        assert errors["messages"] and all(line.split()[1] == "error" for line in errors["messages"])
        only = await ok(rt, "console_read", {"text": "CAREFUL"})
        assert only["matched"] == 1 and "careful now" in only["messages"][0]

        # A click that logs an error and throws: both show, after the last id read.
        last = first["last"]
        await ok(rt, "click", {"selector": "#break"})
        after = await ok(rt, "console_read", {"since": last})
        assert any("clicked error" in line for line in after["messages"]), after
        assert any("undefinedFunction" in line for line in after["messages"]), after
        assert after["last"] > last
        entry_id = int(next(line for line in after["messages"] if "clicked error" in line).split()[0][1:])
        details = (await ok(rt, "console_read", {"id": entry_id}))["entry"]
        assert details["level"] == "error" and details["text"] == "clicked error" and details["tab"] == 1
        assert details["url"].endswith("page_logs.html") and details["stack"]

        limited = await ok(rt, "console_read", {"limit": 1})
        assert limited["shown"] == 1 and limited["warnings"][0].endswith("raise limit or pass since")
        cleared = await ok(rt, "console_read", {"clear": True})
        assert cleared["cleared"] is True
        assert (await ok(rt, "console_read"))["messages"] == []
        # Ids only grow: a cleared entry is gone, and the next one gets a later id.
        await fails(rt, "console_read", {"id": entry_id}, "target-not-found")
        await ok(rt, "click", {"selector": "#break"})
        again = await ok(rt, "console_read")
        assert again["messages"] and all(int(line.split()[0][1:]) > after["last"] for line in again["messages"])
        await fails(rt, "console_read", {"tab": 9}, "target-not-found")


async def test_network_read_filters_and_network_body_reads_bodies(tmp_path: Path, pages_url: str) -> None:
    async with firefox_runtime(tmp_path / "ws") as rt:
        await ok(rt, "navigate", {"url": f"{pages_url}/page_fetches.html"})
        await ok(rt, "click", {"selector": "#load"})
        await ok(rt, "wait_for", {"text": "loaded 2"})
        listed = await ok(rt, "network_read")
        lines = listed["requests"]
        assert any(" GET 200 document " in line and "page_fetches.html" in line for line in lines), lines
        # Credentials in URLs come back redacted, as on chromium.
        assert not any("s3cr3t-token" in line for line in lines)
        data = await ok(rt, "network_read", {"filter": "page_data.json", "method": "GET"})
        assert data["matched"] == 1 and " fetch " in data["requests"][0]
        assert (await ok(rt, "network_read", {"types": ["image"], "filter": "*pixel*"}))["matched"] == 1

        # The page's fetch to port 1 never shows: Firefox refuses a banned port before any
        # BiDi event. A port nobody listens on fails as a request, with network.fetchError.
        closed = closed_port()
        await ok(rt, "eval_js", {"expr": f"fetch('http://127.0.0.1:{closed}/refused').catch(() => 0)"})

        async def failures() -> dict[str, object] | None:
            read = await ok(rt, "network_read", {"failed": True})
            return read if read["matched"] else None

        failed = await poll_until(failures, interval=0.1, timeout=30)
        assert failed["matched"] == 1 and f"127.0.0.1:{closed}/refused" in failed["requests"][0]
        assert "failed(" in failed["requests"][0]
        posted = await ok(rt, "network_read", {"method": "post"})
        assert posted["matched"] == 1
        untyped = await ok(rt, "network_read", {"types": ["websocket"]})
        assert untyped["matched"] == 0 and "websocket" in untyped["warnings"][0]
        since = await ok(rt, "network_read", {"since": listed["last"]})
        assert since["matched"] == 1 and "refused" in since["requests"][0]

        data_id = int(data["requests"][0].split()[0][1:])
        details = (await ok(rt, "network_read", {"id": data_id}))["request"]
        assert details["status"] == 200 and details["type"] == "fetch" and details["tab"] == 1
        assert details["requestHeaders"]["Authorization"] != "Bearer abc123"
        body = await ok(rt, "network_body", {"id": data_id})
        assert body["encoding"] == "text" and '"alpha"' in body["body"] and body["truncated"] is False
        clipped = await ok(rt, "network_body", {"id": data_id, "maxBytes": 5})
        assert clipped["truncated"] is True and len(clipped["body"]) == 5
        post_id = int(posted["requests"][0].split()[0][1:])
        sent = await ok(rt, "network_body", {"id": post_id, "part": "request"})
        assert "kittens" in sent["body"]
        await fails(rt, "network_body", {"id": data_id, "part": "request"}, "target-not-found")
        await fails(rt, "network_read", {"id": 999_999}, "target-not-found")


async def test_a_console_flood_keeps_the_newest_and_counts_the_rest(tmp_path: Path, pages_url: str) -> None:
    async with firefox_runtime(tmp_path / "ws") as rt:
        await ok(rt, "navigate", {"url": f"{pages_url}/flood_console.html?rate=2000"})

        async def past_the_bound() -> dict[str, Any] | None:
            read = await ok(rt, "console_read", {"limit": 5})
            return read if read["counts"]["1"]["seen"] > KEEP + 100 else None

        read = await poll_until(past_the_bound, interval=0.2, timeout=60)
        counts = read["counts"]["1"]
        assert counts["kept"] == KEEP and counts["dropped"] == counts["seen"] - KEEP
        assert read["shown"] == 5 and read["matched"] == KEEP
        # Ids only grow: the newest entry's id is the last one handed out.
        assert int(read["messages"][-1].split()[0][1:]) == read["last"]
        # The session still serves actions while the page floods.
        await ok(rt, "click", {"selector": "#go"})
        await ok(rt, "wait_for", {"text": "clicked 1"})
