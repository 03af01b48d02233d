"""End to end: a scroll's result waits for the rows a virtualised table draws after it
(issue 28 item 7).

The table is the real ``@tanstack/virtual-core`` (``peers/node_modules``, served at
``/node_modules/``): of 1000 rows it draws the dozen in view, redrawing from its scroll
events, which the browser dispatches in the frame after the scroll.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from e2e_support import browx_server, ok, page_ready
from e2e_support import ref_of as _ref
from e2e_support import snapshot_line as _line

pytestmark = pytest.mark.chromium


def _orders(snapshot: str) -> list[int]:
    return [int(n) for n in re.findall(r'gridcell "Order (\d+)"', snapshot)]


async def test_a_scroll_reports_and_shows_the_rows_drawn_after_it(tmp_path: Path, pages_url: str) -> None:
    async with browx_server(tmp_path / "ws", "eval") as client:
        await ok(client, "navigate", {"url": f"{pages_url}/real_virtual.html"})
        await page_ready(client)
        snap = (await ok(client, "snapshot"))["snapshot"]
        assert _orders(snap)[0] == 1
        grid = _ref(_line(snap, 'grid "Orders"'))

        # Step by step, 300 px of 30 px rows each: every result lists the row now at the
        # top, which the table drew from the scroll event of the frame after the scroll.
        for step in range(1, 13):
            scrolled = await ok(client, "scroll", {"ref": grid, "deltaY": 300})
            appeared = {n["name"] for n in scrolled.get("structure", {}).get("appeared", [])}
            assert f"Order {step * 10 + 1}" in appeared, (step, scrolled)
        rows = _orders((await ok(client, "snapshot"))["snapshot"])
        assert 1 not in rows and 121 in rows, rows

        # A smooth scroll (the box's scroll-behavior) is waited out: back at the top.
        await ok(client, "eval_js", {"expr": "document.getElementById('scroller').style.scrollBehavior = 'smooth'"})
        back = await ok(client, "scroll", {"ref": grid, "to": "top"})
        assert "Order 1" in {n["name"] for n in back["structure"]["appeared"]}, back
        assert _orders((await ok(client, "snapshot"))["snapshot"])[:2] == [1, 2]
