"""Where an engine keeps its own table of what a tool's declaration enumerates (CDP's
names for permissions, paper sizes in inches, the modifier keys' bits), the two agree:
a value the schema offers is one the engine can act on, and the engine knows no value an
agent could never send."""

from __future__ import annotations

from browx_actors.sessions.chromium.input.commands import MODIFIERS
from browx_actors.sessions.chromium.page.emulation import PERMISSIONS
from browx_actors.sessions.chromium.page.pdf import PAPER
from browx_actors.tools.page import PAPER_FORMATS, PERMISSION_NAMES
from browx_actors.tools.targets import MODIFIER_KEYS


def test_emulate_grants_exactly_the_permissions_it_declares() -> None:
    assert tuple(PERMISSIONS) == PERMISSION_NAMES


def test_pdf_save_prints_exactly_the_paper_formats_it_declares() -> None:
    assert tuple(PAPER) == PAPER_FORMATS


def test_a_click_holds_exactly_the_modifier_keys_it_declares() -> None:
    assert set(MODIFIERS) == set(MODIFIER_KEYS)
