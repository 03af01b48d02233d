"""Dialogs on real headless Firefox over stdio MCP (tests/pages/real_dialogs.html).

Under ``ask`` (the default) an alert interrupts the click that opened it, and every
other call on the tab answers ``dialog-open`` until ``handle_dialog``; under
``accept`` / ``dismiss`` the session answers at once and the next result lists the
dialog it answered; a prompt takes ``promptText``.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from e2e_support import browx_server
from firefox_support import fails, ok, open_firefox

pytestmark = pytest.mark.firefox

S = {"session": "ff"}


async def test_an_alert_under_ask_interrupts_the_click_and_blocks_until_handled(tmp_path: Path, pages_url: str) -> None:
    async with browx_server(tmp_path / "ws") as client:
        await open_firefox(client)
        await ok(client, "navigate", {**S, "url": f"{pages_url}/real_dialogs.html"})
        clicked = await ok(client, "click", {**S, "selector": "#save"})
        assert clicked["dialog"] == {"type": "alert", "message": "Saved", "defaultValue": ""}, clicked

        refused = await fails(client, "snapshot", S, "dialog-open")
        assert refused["dialog"]["message"] == "Saved" and refused["tool"] == "snapshot", refused
        await fails(client, "click", {**S, "selector": "#rename"}, "dialog-open")
        await fails(client, "verify_text", {**S, "text": "Inbox"}, "dialog-open")

        handled = await ok(client, "handle_dialog", {**S, "accept": True})
        assert handled["dialog"]["message"] == "Saved", handled
        await ok(client, "verify_text", {**S, "text": "Inbox"})
        await fails(client, "handle_dialog", {**S, "accept": True}, "no-dialog")


async def test_a_confirm_under_ask_answered_false_keeps_the_item(tmp_path: Path, pages_url: str) -> None:
    async with browx_server(tmp_path / "ws") as client:
        await open_firefox(client)
        await ok(client, "navigate", {**S, "url": f"{pages_url}/real_dialogs.html"})
        clicked = await ok(client, "click", {**S, "selector": "#delete"})
        assert clicked["dialog"]["type"] == "confirm", clicked
        await ok(client, "handle_dialog", {**S, "accept": False})
        await ok(client, "verify_text", {**S, "selector": "#status", "text": "kept"})


async def test_a_prompt_takes_the_prompt_text(tmp_path: Path, pages_url: str) -> None:
    async with browx_server(tmp_path / "ws") as client:
        await open_firefox(client)
        await ok(client, "navigate", {**S, "url": f"{pages_url}/real_dialogs.html"})
        clicked = await ok(client, "click", {**S, "selector": "#rename"})
        assert clicked["dialog"] == {"type": "prompt", "message": "New name", "defaultValue": "old"}, clicked
        await ok(client, "handle_dialog", {**S, "accept": True, "promptText": "Invoices"})
        await ok(client, "verify_text", {**S, "selector": "#name", "text": "Invoices", "exact": True})


@pytest.mark.parametrize(("policy", "status"), [("accept", "deleted"), ("dismiss", "kept")])
async def test_a_policy_answers_at_once_and_the_result_lists_the_dialog(
        tmp_path: Path, pages_url: str, policy: str, status: str) -> None:
    async with browx_server(tmp_path / "ws") as client:
        await open_firefox(client)
        await ok(client, "navigate", {**S, "url": f"{pages_url}/real_dialogs.html"})
        await ok(client, "set_dialog_policy", {**S, "policy": policy})
        clicked = await ok(client, "click", {**S, "selector": "#delete"})
        assert "dialog" not in clicked, clicked  # nothing interrupted the click
        answered = {"type": "confirm", "message": "Delete item?", "defaultValue": "", "answer": policy}
        assert clicked.get("dialogs") == [answered], clicked
        await ok(client, "verify_text", {**S, "selector": "#status", "text": status})
        # The page goes on: nothing is left open.
        await ok(client, "snapshot", S)
