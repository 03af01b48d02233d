"""End to end: names the page shows (issue 28 item 5).

The page is the real flatpickr (``peers/node_modules``, served at ``/node_modules/``),
inline: each day is a ``span[aria-label][tabindex=-1]`` the picker moves focus between,
so each is its own line with a ref, named by its label, not one ``text:`` line of
numbers. A button drawn only by ``::before { content }`` has that name, as Chromium's
accessibility tree gives it.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from e2e_support import browx_server, eval_value, ok, page_ready
from e2e_support import ref_of as _ref
from e2e_support import snapshot_line as _line

pytestmark = pytest.mark.chromium


async def test_date_picker_days_and_generated_names(tmp_path: Path, pages_url: str) -> None:
    async with browx_server(tmp_path / "ws", "eval") as client:
        await ok(client, "navigate", {"url": f"{pages_url}/real_datepicker.html"})
        await page_ready(client)
        snap = (await ok(client, "snapshot"))["snapshot"]
        # Each day a line of its own; its number is already in its name.
        day = _line(snap, '"December 24, 2026"')
        assert day.startswith('generic "December 24, 2026" [ref=') and day.endswith("]"), day
        assert _line(snap, '"December 7, 2026"').endswith("[current=date]")
        assert "text: 29 30 1 2" not in snap

        await ok(client, "click", {"ref": _ref(day)})
        assert await eval_value(client, "document.getElementById('picked').textContent") == "2026-12-24"

        # Named by its ::before content alone.
        clear = _line(snap, 'button "Clear date"')
        await ok(client, "click", {"ref": _ref(clear)})
        assert await eval_value(client, "document.getElementById('picked').textContent") == "none"
        found = (await ok(client, "find", {"role": "button", "name": "Clear date"}))["matches"]
        assert [m["ref"] for m in found] == [_ref(clear)], found
