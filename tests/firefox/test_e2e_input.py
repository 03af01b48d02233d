"""Trusted input on real headless Firefox over stdio MCP (tests/pages/e2e_input.html).

The unit tests check the ``input.performActions`` sources as built; this checks what
the page receives from them: a double click is a trusted dblclick, modifiers are held
as key events and on the mouse event (chromium's same assertions, tests/chromium/
test_e2e_input.py), typed newlines are Enter, and a covered target is clicked once its
cover lifts.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from mcp.client import Client

from e2e_support import browx_server
from firefox_support import fails, ok, open_firefox

pytestmark = pytest.mark.firefox

S = {"session": "ff"}


async def _log(client: Client) -> str:
    return (await ok(client, "eval_js", {**S, "expr": "document.getElementById('log').textContent"}))["value"]


async def test_clicks_keys_and_typing_reach_the_page_as_trusted_input(tmp_path: Path, pages_url: str) -> None:
    async with browx_server(tmp_path / "ws", "eval") as client:
        await open_firefox(client)
        await ok(client, "navigate", {**S, "url": f"{pages_url}/e2e_input.html"})

        await ok(client, "click", {**S, "selector": "#twice", "clickCount": 2})
        assert "dblclick 2 trusted true;" in await _log(client)

        await ok(client, "click", {**S, "selector": "#mods", "modifiers": ["Shift", "ControlOrMeta"]})
        assert "mods shift=true ctrl=true keys=down:Shift,down:Control;" in await _log(client)
        bad = await fails(client, "click", {**S, "selector": "#mods", "modifiers": ["Hyper"]}, "bad-arg")
        assert bad["field"] == "modifiers", bad

        filled = await ok(client, "fill", {**S, "selector": "#notes", "value": "one\ntwo é 日本"})
        assert filled["element"]["value"] == "one\ntwo é 日本", filled
        assert "notes insertLineBreak;" in await _log(client)  # the newline was typed as Enter

        await ok(client, "click", {**S, "selector": "#far"})
        assert "far clicked;" in await _log(client)
        await ok(client, "scroll", {**S, "deltaY": -5000})

        await ok(client, "click", {**S, "selector": "#arm"})
        await ok(client, "click", {**S, "selector": "#covered"})  # the cover lifts after 300 ms
        assert "covered clicked trusted true;" in await _log(client)

        await ok(client, "fill", {**S, "selector": "#term", "value": "kittens", "submit": True})
        await ok(client, "verify_text", {**S, "text": "Second"})
