"""End to end: choose_option on a custom multi-select (issue 28 item 6).

The page is the real Tom Select (``peers/node_modules``, served at ``/node_modules/``)
over a multiple ``<select>``: a pick becomes a chip beside the search input, which is
cleared, and the option leaves the list, so neither the input nor the option shows the
choice. choose_option verifies by what the widget shows and says which
(``chosen.verifiedBy``).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from e2e_support import browx_server, eval_value, ok, page_ready
from e2e_support import ref_of as _ref
from e2e_support import snapshot_line as _line

pytestmark = pytest.mark.chromium


async def test_a_multi_select_pick_is_verified_by_its_chip(tmp_path: Path, pages_url: str) -> None:
    async with browx_server(tmp_path / "ws", "eval") as client:
        await ok(client, "navigate", {"url": f"{pages_url}/real_selects.html"})
        await page_ready(client)
        snap = (await ok(client, "snapshot"))["snapshot"]
        members = _ref(_line(snap, 'combobox "Members"'))
        selected = "[...document.getElementById('members').selectedOptions].map(o => o.value)"

        # The options are the popup's, not those of the <select> Tom Select hides.
        picked = await ok(client, "choose_option", {"ref": members, "option": "Bob Stone"})
        assert picked["chosen"]["name"] == "Bob Stone" and picked["chosen"]["verifiedBy"] == "chip", picked
        assert await eval_value(client, selected) == ["bob"]
        assert await eval_value(client, "document.getElementById('members-ts-control').value") == ""

        # With the list open from the first pick, the second is typed to: the typed text is
        # no proof, the chip is.
        second = await ok(client, "choose_option", {"ref": members, "option": "Dee Park"})
        assert second["chosen"]["verifiedBy"] == "chip", second
        assert await eval_value(client, selected) == ["bob", "dee"]

        # A single select still shows its pick in the control.
        lead = _ref(_line((await ok(client, "snapshot"))["snapshot"], 'combobox "Lead"'))
        single = await ok(client, "choose_option", {"ref": lead, "option": "Ann Lee"})
        assert single["chosen"]["verifiedBy"] in ("value", "selected"), single
        assert await eval_value(client, "document.getElementById('lead').value") == "ann"
