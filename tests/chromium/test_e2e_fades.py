"""End to end: what a fade reveals is in the action's result (issue 28).

Bootstrap 5 shows a modal or a tab pane by setting its display first, at opacity 0, and
fades it in with a class it adds later: after the backdrop's transition for a modal,
from a timer as long as the transition for a tab pane. The settle waits for such a fade
to begin (``pendingFades`` in the page agent), so the elements it reveals are listed in
``structure.appeared`` with refs, and what a fade-out hides in ``removed``. The
Bootstrap page loads the real library (``peers/node_modules``, served at ``/node_modules/``);
``late_fades.html`` is its tab's mechanism alone, without the tab buttons' own
transitions, which the Bootstrap page races against.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from e2e_support import browx_server, ok

pytestmark = pytest.mark.chromium


def _named(nodes: list[dict[str, Any]]) -> dict[tuple[str, str], str]:
    return {(n["role"], n["name"]): n["ref"] for n in nodes}


def _ref(snapshot: str, line: str) -> str:
    (found,) = [row for row in snapshot.splitlines() if line in row]
    return found.split("[ref=", 1)[1].split("]", 1)[0]


async def _value(client: Any, expr: str) -> Any:
    return (await ok(client, "eval_js", {"expr": expr}))["value"]


async def test_bootstrap_modal_fades_in_with_its_fields_and_out(tmp_path: Path, pages_url: str) -> None:
    async with browx_server(tmp_path / "ws", "eval") as client:
        await ok(client, "navigate", {"url": f"{pages_url}/bootstrap_fades.html"})
        assert await _value(client, "typeof bootstrap.Modal") == "function"  # the real library loaded
        snap = (await ok(client, "snapshot"))["snapshot"]
        assert "Send invite" not in snap

        opened = await ok(client, "click", {"ref": _ref(snap, 'button "Invite member"')})
        appeared = _named(opened["structure"]["appeared"])
        for node in (("dialog", "Invite a member"), ("textbox", "Email"), ("textbox", "Role"),
                     ("button", "Send invite")):
            assert node in appeared, opened["structure"]
        assert "removed" not in opened["structure"]
        assert await _value(client, "getComputedStyle(document.getElementById('invite-modal')).opacity") == "1"

        # The refs act: fill a field, submit, and the modal fades out.
        await ok(client, "fill", {"ref": appeared[("textbox", "Email")], "value": "ann@example.com"})
        closed = await ok(client, "click", {"ref": appeared[("button", "Send invite")]})
        removed = _named(closed["structure"]["removed"])
        for node in (("dialog", "Invite a member"), ("textbox", "Email"), ("textbox", "Role"),
                     ("button", "Send invite")):
            assert removed.get(node) == appeared[node], closed["structure"]
        assert "appeared" not in closed["structure"]
        assert await _value(client, "document.getElementById('sent').textContent") == "ann@example.com"
        assert await _value(client, "getComputedStyle(document.getElementById('invite-modal')).display") == "none"


async def test_bootstrap_tab_fade_lists_the_new_pane(tmp_path: Path, pages_url: str) -> None:
    async with browx_server(tmp_path / "ws", "eval") as client:
        await ok(client, "navigate", {"url": f"{pages_url}/bootstrap_fades.html"})
        snap = (await ok(client, "snapshot"))["snapshot"]
        general, billing = _ref(snap, 'tab "General"'), _ref(snap, 'tab "Billing"')
        team = _ref(snap, 'textbox "Team name"')
        assert "Add card" not in snap

        # Back and forth: each switch races Bootstrap's timer (the pane's class) against
        # the tab buttons' own colour transitions, which the settle also waits for.
        add_card = None
        for _ in range(4):
            shown = await ok(client, "click", {"ref": billing})
            appeared = _named(shown["structure"].get("appeared", []))
            assert {("tabpanel", "Billing"), ("button", "Add card")} <= set(appeared), shown["structure"]
            assert add_card in (None, appeared[("button", "Add card")])
            add_card = appeared[("button", "Add card")]
            assert team in {n["ref"] for n in shown["structure"]["removed"]}, shown["structure"]

            back = await ok(client, "click", {"ref": general})
            assert _named(back["structure"].get("appeared", [])).get(("textbox", "Team name")) == team, \
                back["structure"]
            assert add_card in {n["ref"] for n in back["structure"]["removed"]}, back["structure"]

        # The new pane's refs act.
        await ok(client, "click", {"ref": billing})
        assert (await ok(client, "click", {"ref": add_card}))["target"]["name"] == "Add card"


async def test_a_fade_set_up_for_later_is_waited_for(tmp_path: Path, pages_url: str) -> None:
    async with browx_server(tmp_path / "ws", "eval") as client:
        await ok(client, "navigate", {"url": f"{pages_url}/late_fades.html"})
        await ok(client, "snapshot")

        # Displayed at opacity 0, faded in by a class 155 ms later: listed, opaque.
        details = await ok(client, "click", {"selector": "#details"})
        appeared = _named(details["structure"]["appeared"])
        assert set(appeared) == {("region", "Details"), ("textbox", "Nickname"), ("button", "Save details")}
        assert "animation" in details["settled"]["by"].split("+"), details["settled"]
        assert await _value(client, "getComputedStyle(document.getElementById('late')).opacity") == "1"
        await ok(client, "fill", {"ref": appeared[("textbox", "Nickname")], "value": "Ann"})

        # `transition: all` with a delay: the fade is the delay and the duration long.
        notes = await ok(client, "click", {"selector": "#slowly"})
        assert set(_named(notes["structure"]["appeared"])) == {("region", "Notes"), ("button", "Archive notes")}

        # A transparent pane whose fade never comes is waited for no longer than its own
        # transition could take, without a warning, and is not listed.
        ghost = await ok(client, "click", {"selector": "#never"})
        assert "structure" not in ghost and "warnings" not in ghost, json.dumps(ghost)
        assert "animation" in ghost["settled"]["by"].split("+"), ghost["settled"]
        # One below the fold waits for a scroll, not for the action: not waited for.
        far = await ok(client, "click", {"selector": "#below"})
        assert "structure" not in far and far["settled"]["by"] == "task-turn", json.dumps(far)
