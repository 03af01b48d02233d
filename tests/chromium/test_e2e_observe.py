"""End to end, through the real server over stdio MCP: console_read, network_read and
network_body on pages that log, throw and fetch, and a page that floods the console."""

from __future__ import annotations

import base64
import re
from pathlib import Path

import pytest
import trio

from e2e_support import PNG_MAGIC, browx_server, call, fails, ok
from polling import poll_until

pytestmark = pytest.mark.chromium


def ids_of(lines: list[str]) -> list[int]:
    return [int(re.match(r"#(\d+) ", line).group(1)) for line in lines]  # type: ignore[union-attr]


async def test_console_read_lists_logs_exceptions_and_browser_messages(tmp_path: Path, pages_url: str) -> None:
    async with browx_server(tmp_path / "ws", "eval") as client:
        await ok(client, "navigate", {"url": f"{pages_url}/page_logs.html"})
        # The timer's throw and the rejection land a moment after load.
        await ok(client, "wait_for", {"text": "A page that logs and throws"})
        with trio.fail_after(20):
            while True:
                read = await ok(client, "console_read")
                if len(read["messages"]) >= 8:
                    break
                await trio.sleep(0.05)
        text = "\n".join(read["messages"])
        for expected in ("info  boot ok in 42 ms", "info  info line", "warn  careful now", "debug debug detail",
                         "error bad thing {code: 7}", "error Error: boom from a timer",
                         "error Error: rejected promise", "[network]"):
            assert expected in text, (expected, read["messages"])
        assert "(page_logs.html:" in text  # where each came from
        assert read["counts"]["1"]["dropped"] == 0 and read["counts"]["1"]["sampledOut"] == 0
        assert read["tabs"] == [1] and read["last"] >= 8

        # Filters: the least severe level, text, and only what came after a previous read.
        errors = await ok(client, "console_read", {"level": "error"})
        assert errors["messages"] and all(" error " in line for line in errors["messages"])
        careful = await ok(client, "console_read", {"text": "CAREFUL"})
        assert len(careful["messages"]) == 1
        nothing_new = await ok(client, "console_read", {"since": read["last"]})
        assert nothing_new["messages"] == []

        # An action lists the errors it caused; console_read has them with details by id.
        broke = await ok(client, "click", {"selector": "#break"})
        assert [(c["type"], c["text"]) for c in broke["console"]] == [
            ("error", "clicked error"), ("pageerror", "ReferenceError: undefinedFunction is not defined")]
        after = await ok(client, "console_read", {"since": read["last"]})
        assert len(after["messages"]) == 2
        details = await ok(client, "console_read", {"id": broke["console"][1]["id"]})
        entry = details["entry"]
        assert entry["level"] == "error" and entry["kind"] == "exception" and entry["tab"] == 1
        assert entry["url"].endswith("/page_logs.html") and entry["line"] == 6 and entry["stack"]
        quiet = await ok(client, "click", {"selector": "#quiet"})
        assert "console" not in quiet

        # limit keeps the newest; clear empties the buffer.
        last_two = await ok(client, "console_read", {"limit": 2})
        assert ids_of(last_two["messages"]) == ids_of(after["messages"])
        assert last_two["warnings"] and "older matching entries left out" in last_two["warnings"][0]
        cleared = await ok(client, "console_read", {"clear": True})
        assert cleared["cleared"] is True and cleared["messages"]
        assert (await ok(client, "console_read"))["messages"] == []

        # Declared rules answer before anything runs.
        assert (await fails(client, "console_read", {"id": 1, "level": "error"}, "bad-arg"))["field"] == "id"
        assert (await fails(client, "console_read", {"level": "loud"}, "bad-arg"))["field"] == "level"
        assert (await fails(client, "console_read", {"tab": 1, "allTabs": True}, "bad-arg"))["field"] == "allTabs"
        assert (await fails(client, "console_read", {"tab": 9}, "target-not-found"))["field"] == "tab"
        gone = await fails(client, "console_read", {"id": 1}, "target-not-found")
        assert gone["field"] == "id"


async def test_network_read_and_body_with_credentials_redacted(tmp_path: Path, pages_url: str) -> None:
    async with browx_server(tmp_path / "ws", "secrets") as client:
        page = f"{pages_url}/page_fetches.html"
        await ok(client, "navigate", {"url": page})
        loaded = await ok(client, "click", {"selector": "#load"})
        assert loaded["settled"]["by"].startswith("network-idle"), loaded["settled"]
        await ok(client, "wait_for", {"text": "loaded 2"})
        read = await ok(client, "network_read")
        lines = read["requests"]
        text = "\n".join(lines)
        assert re.search(r"#\d+ GET 200 document .* " + re.escape(page), text), lines
        data_line = next(line for line in lines if "page_data.json?" in line)
        assert " GET 200 fetch " in data_line
        assert "token=<redacted>&q=1" in data_line and "s3cr3t-token" not in text
        assert re.search(r"GET 200 image .*/page_pixel\.png", text), "\n".join(lines)
        assert re.search(r"GET 404 fetch .*/page_missing\.json", text)
        assert re.search(r"POST 501 fetch .*/page_data\.json", text)
        assert re.search(r"GET failed\(net::ERR_UNSAFE_PORT\) fetch", text), lines
        assert read["counts"]["seen"] >= 6 and read["counts"]["dropped"] == 0

        # Filters.
        images = await ok(client, "network_read", {"types": ["image"]})
        assert len(images["requests"]) == 1 and "page_pixel.png" in images["requests"][0]
        failed = await ok(client, "network_read", {"failed": True})
        assert len(failed["requests"]) == 1 and "ERR_UNSAFE_PORT" in failed["requests"][0]
        globbed = await ok(client, "network_read", {"filter": "*/page_data.json*"})
        assert len(globbed["requests"]) == 2
        posts = await ok(client, "network_read", {"method": "post"})
        assert len(posts["requests"]) == 1
        assert (await ok(client, "network_read", {"since": read["last"]}))["requests"] == []

        # Details by id: headers with credentials redacted, timing, initiator.
        data_id = ids_of([data_line])[0]
        details = (await ok(client, "network_read", {"id": data_id}))["request"]
        headers = {k.lower(): v for k, v in details["requestHeaders"].items()}
        assert headers["authorization"] == "<redacted>"
        assert details["status"] == 200 and details["mimeType"] == "application/json"
        assert details["durationMs"] is not None and details["initiator"].startswith("script")
        assert details["tab"] == 1 and details["finished"] is True

        # Bodies: JSON as text (registered secrets masked like in any result), the image as base64.
        await ok(client, "register_secret", {"name": "DATA_SECRET", "value": "data-secret-7731"})
        body = await ok(client, "network_body", {"id": data_id})
        assert body["encoding"] == "text" and body["truncated"] is False
        assert '"items": ["alpha", "beta"]' in body["body"] and "<DATA_SECRET>" in body["body"]
        assert "data-secret-7731" not in str(client.transcript.everything())  # type: ignore[attr-defined]
        clipped = await ok(client, "network_body", {"id": data_id, "maxBytes": 5})
        assert clipped["body"] == '{"ite' and clipped["truncated"] is True
        pixel_id = ids_of(images["requests"])[0]
        pixel = await ok(client, "network_body", {"id": pixel_id})
        assert pixel["encoding"] == "base64" and base64.b64decode(pixel["body"])[:8] == PNG_MAGIC
        post_id = ids_of(posts["requests"])[0]
        sent = await ok(client, "network_body", {"id": post_id, "part": "request"})
        assert sent["body"] == '{"q":"kittens"}'
        no_body = await fails(client, "network_body", {"id": data_id, "part": "request"}, "target-not-found")
        assert "sent no body" in no_body["error"]
        assert (await fails(client, "network_body", {"id": 99999}, "target-not-found"))["field"] == "id"
        assert (await fails(client, "network_body", {}, "bad-arg"))["field"] == "id"


@pytest.mark.parametrize("source", ["page", "worker", "nested"])
async def test_a_page_flooding_the_console_does_not_stall_the_session(tmp_path: Path, pages_url: str,
                                                                      source: str) -> None:
    """40,000 messages a second requested, from the page, a dedicated worker, or a worker
    that worker started: every tool still answers, the flood is counted and sampled where
    it logs (a worker from its start), and the records stay bounded. (How fast:
    benchmarks/page_flood.py.)"""
    async with browx_server(tmp_path / "ws", "eval") as client:
        await ok(client, "navigate", {"url": f"{pages_url}/flood_console.html?rate=40000&source={source}"})
        with trio.fail_after(120):  # a hang guard, not a timing assertion
            for i in range(3):
                assert 'button "Go"' in (await ok(client, "snapshot"))["snapshot"]
                await ok(client, "fill", {"selector": "#note", "value": f"note {i}"})
                clicked = await ok(client, "click", {"selector": "#go"})
                assert "navigation" not in clicked
            await ok(client, "verify_text", {"selector": "#out", "text": "clicked 3", "exact": True})
            logged = (await ok(client, "eval_js", {"expr": "window.logged"}))["value"]

            async def held_back_reported() -> dict | None:
                # The sampler reports what a second held back when that second ends.
                read = await ok(client, "console_read", {"limit": 3})
                return read if read["counts"]["1"]["sampledInPage"] else None

            read = await poll_until(held_back_reported, interval=0.25, timeout=30)
        counts = read["counts"]["1"]
        assert logged > 2000 and counts["seen"] > 2000
        assert counts["kept"] <= 1000 and counts["sampledOut"] + counts["dropped"] > 0
        # The console is sampled where it logs: most of the flood never left it, and is
        # counted all the same.
        assert 0 < counts["sampledInPage"] <= counts["sampledOut"] < counts["seen"]
        assert len(read["messages"]) == 3 and "flood" in read["messages"][-1]
        assert ("[worker]" in read["messages"][-1]) is (source != "page")
        assert any("logged faster than it is recorded" in w and "held back in the page" in w
                   for w in read["warnings"]), read["warnings"]
        if source == "nested":  # the outer worker's one line, listed once (not again as relayed)
            up = await ok(client, "console_read", {"text": "outer worker up"})
            assert up["matched"] == 1 and up["messages"][0].split()[2:5] == ["outer", "worker", "up"]
        # The quiet page afterwards answers as usual.
        await ok(client, "navigate", {"url": f"{pages_url}/flood_console.html?rate=0"})
        status = await call(client, "list_tabs")
        assert status["ok"] is True


async def test_recording_off_keeps_only_what_an_action_needs(tmp_path: Path, pages_url: str) -> None:
    async with browx_server(tmp_path / "ws", "", "--page-recording", "off") as client:
        await ok(client, "navigate", {"url": f"{pages_url}/page_logs.html"})
        broke = await ok(client, "click", {"selector": "#break"})
        assert [c["type"] for c in broke["console"]] == ["error", "pageerror"]
        loaded = await ok(client, "navigate", {"url": f"{pages_url}/page_fetches.html"})
        assert loaded["status"] == 200
        clicked = await ok(client, "click", {"selector": "#load"})
        assert clicked["settled"]["by"].startswith("network-idle")  # settle still counts requests
        read = await ok(client, "console_read")
        assert read["warnings"][0].startswith("page recording is off")
        assert all(" error " in line for line in read["messages"])
        refused = await fails(client, "network_read", {}, "recording-off")
        assert "BROWX_PAGE_RECORDING=off" in refused["error"]
