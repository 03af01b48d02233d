"""Snapshot parity: the same bundled page reads the same on firefox as on chromium.

Both engines run the same page agent (the firefox one in a BiDi sandbox realm), so a
snapshot that differs is either a real engine difference or a bug in the firefox
engine's plumbing. Each page below must read line for line as chromium reads it, but
for the lines :data:`KNOWN` lists, each with its reason. The list is exact both ways:
a difference not listed fails, and a listed one that went away fails too, so the list
is trimmed when the firefox engine catches up.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from e2e_support import browx_server
from firefox_support import ok, open_firefox

pytestmark = [pytest.mark.firefox, pytest.mark.chromium]

#: Plain DOM pages: forms and labels, tables and grids, dialogs, hostile text, visibility.
PAGES = (
    "label_controls.html",
    "input_forms.html",
    "agent_form.html",
    "real_grid.html",
    "real_names.html",
    "real_dialogs.html",
    "hostile_text.html",
    "real_visibility.html",
    "e2e_app.html",
    "page_frames.html",
)

#: page -> {"chromium": lines only chromium shows, "firefox": lines only firefox shows, "why": the reason}.
KNOWN: dict[str, dict[str, object]] = {
    # None today: the firefox engine runs its agent in each frame (frames included, f1e1...)
    # and reads every page here as chromium does. A difference found later goes here, with its reason.
}


def _only_in(lines: list[str], other: list[str]) -> list[str]:
    """The lines of ``lines`` not in ``other``, counted as a multiset, stripped of indentation."""
    rest = [line.strip() for line in other]
    only = []
    for line in (line.strip() for line in lines):
        if line in rest:
            rest.remove(line)
        else:
            only.append(line)
    return only


async def test_bundled_pages_read_the_same_on_firefox_as_on_chromium(tmp_path: Path, pages_url: str) -> None:
    mismatches: dict[str, object] = {}
    async with browx_server(tmp_path / "ws") as client:
        await ok(client, "open_session", {"session": "cr"})
        await open_firefox(client)
        for page in PAGES:
            snapshots = {}
            for session in ("cr", "ff"):
                await ok(client, "navigate", {"session": session, "url": f"{pages_url}/{page}"})
                snapshots[session] = (await ok(client, "snapshot", {"session": session}))["snapshot"].splitlines()
            chromium, firefox = snapshots["cr"], snapshots["ff"]
            known = KNOWN.get(page, {"chromium": (), "firefox": ()})
            only_chromium, only_firefox = _only_in(chromium, firefox), _only_in(firefox, chromium)
            if (tuple(only_chromium), tuple(only_firefox)) != (known["chromium"], known["firefox"]):
                mismatches[page] = {"only chromium": only_chromium, "only firefox": only_firefox}
            elif page not in KNOWN:
                assert chromium == firefox, page  # same lines, and in the same order and indentation
            else:
                # What both show is in the same order and indentation.
                shared = set(chromium) & set(firefox)
                assert [x for x in chromium if x in shared] == [x for x in firefox if x in shared], page
            assert len(chromium) > 1, (page, chromium)  # a page that read as nothing would prove nothing
    assert not mismatches, mismatches
