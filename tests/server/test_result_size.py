"""What a result costs the agent who reads it, over real stdio MCP: a click on a still
page says what it hit and nothing else, within 300 characters; a navigation, a read and
a check say their news once."""

from __future__ import annotations

from pathlib import Path

import pytest

from e2e_support import browx_server, call_result, envelope_of, ok

pytestmark = pytest.mark.chromium

#: Characters of a click's text on a page where nothing happens (the issue's ceiling).
STILL_CLICK = 300


async def test_results_on_a_still_page_say_each_thing_once(tmp_path: Path, pages_url: str) -> None:
    async with browx_server(tmp_path / "ws") as client:
        page = f"{pages_url}/e2e_small.html"
        went = await ok(client, "navigate", {"url": page})
        assert set(went) == {"ok", "url", "status", "title", "settled"}, went
        assert went["url"] == page and went["status"] == 200 and set(went["settled"]) == {"by", "ms"}
        shot = await ok(client, "snapshot")
        assert "truncated" not in shot and "warnings" not in shot
        go = next(line for line in shot["snapshot"].splitlines() if line.strip().startswith('button "Go"'))
        ref = go.split("[ref=")[1].split("]")[0]

        result = await call_result(client, "click", {"ref": ref})
        text = result.content[0].text  # type: ignore[union-attr]
        clicked = envelope_of(result)
        assert len(text) <= STILL_CLICK, (len(text), text)
        # What it hit, how the page settled; no echo of the tool, no unchanged page.
        assert set(clicked) == {"ok", "target", "settled"}, clicked
        assert clicked["target"] == {"ref": ref, "role": "button", "name": "Go"}, clicked

        held = await ok(client, "verify_value", {"selector": "#name", "value": "Ada"})
        assert held == {"ok": True}
