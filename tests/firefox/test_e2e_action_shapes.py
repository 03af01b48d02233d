"""Action results on firefox have chromium's one shape (tests/pages/e2e_app.html).

An agent reads an action's result the same whichever engine ran it: the keys are the
ones chromium's contract allows (tests/server/test_e2e_mcp.py's ``assert_action_shape``),
none empty, and a refusal carries the same code and field.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from e2e_support import browx_server
from firefox_support import fails, ok, open_firefox

pytestmark = pytest.mark.firefox

S = {"session": "ff"}

#: Every key an action result may carry (chromium's contract).
ACTION_KEYS = {"ok", "target", "element", "navigation", "structure", "console", "opened", "dialog",
               "settled", "warnings"}


def assert_action_shape(envelope: dict[str, Any], *extra: str) -> None:
    assert set(envelope) <= ACTION_KEYS | set(extra), envelope
    for key in ("target", "element", "navigation", "structure", "console", "opened", "warnings"):
        if key in envelope:
            assert envelope[key], (key, envelope)
    assert set(envelope["settled"]) >= {"by", "ms"}, envelope


async def test_action_results_carry_only_the_keys_chromium_allows(tmp_path: Path, pages_url: str) -> None:
    async with browx_server(tmp_path / "ws") as client:
        await open_firefox(client)
        await ok(client, "navigate", {**S, "url": f"{pages_url}/e2e_app.html"})
        clicked = await ok(client, "click", {**S, "selector": "#add"})
        assert_action_shape(clicked)
        assert_action_shape(await ok(client, "hover", {**S, "selector": "#hoverbox"}))
        filled = await ok(client, "fill", {**S, "selector": "#q", "value": "kittens"})
        assert_action_shape(filled)
        assert filled["element"]["value"] == "kittens"
        assert_action_shape(await ok(client, "press", {**S, "selector": "#q", "key": "Enter"}))
        by_value = await ok(client, "select", {**S, "selector": "#color", "values": ["b"]})
        assert_action_shape(by_value)
        assert by_value["element"]["value"] == "Blue"
        await ok(client, "verify_text", {**S, "selector": "#color-out", "text": "b", "exact": True})
        scrolled = await ok(client, "scroll", {**S, "deltaY": 300})
        assert_action_shape(scrolled, "scroll")


async def test_a_select_naming_a_missing_option_is_a_bad_arg_naming_values(tmp_path: Path, pages_url: str) -> None:
    async with browx_server(tmp_path / "ws") as client:
        await open_firefox(client)
        await ok(client, "navigate", {**S, "url": f"{pages_url}/e2e_app.html"})
        refused = await fails(client, "select", {**S, "selector": "#color", "values": ["Purple"]}, "bad-arg")
        assert refused["field"] == "values", refused
        # One wanted value of two missing is refused too (chromium's rule), and nothing was chosen.
        partial = await fails(client, "select", {**S, "selector": "#color", "values": ["b", "Purple"]}, "bad-arg")
        assert "'Purple'" in partial["error"] and "'b'" not in partial["error"], partial
        await ok(client, "verify_value", {**S, "selector": "#color", "value": "Red"})
