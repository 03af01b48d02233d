"""Refusals on real headless Firefox over stdio MCP (tests/pages/reach_refusals.html).

A bad CSS selector is a bad argument naming ``selector``. A target that is not ready
for a reason known in one look (hidden, no area, covered, no pointer events, slid out
of its scroll container) is refused after chromium's short grace, with the same code
and ``reason`` as chromium gives (tests/chromium/test_e2e_label_controls.py), rather
than waited on until the action's ten-second timeout.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import trio

from browx_actors.sessions.firefox.input.actions import ACTION_TIMEOUT_S
from e2e_support import browx_server, call
from firefox_support import fails, ok, open_firefox

pytestmark = pytest.mark.firefox

S = {"session": "ff"}

#: Well under the action's timeout: a refusal that comes later waited instead of looking once.
REFUSED_WITHIN_S = ACTION_TIMEOUT_S / 2


async def test_a_bad_css_selector_is_refused_as_bad_arg_naming_selector(tmp_path: Path, pages_url: str) -> None:
    async with browx_server(tmp_path / "ws") as client:
        await open_firefox(client)
        await ok(client, "navigate", {**S, "url": f"{pages_url}/reach_refusals.html"})
        for tool, extra in [("click", {}), ("hover", {}), ("fill", {"value": "x"}), ("verify_count", {"count": 1})]:
            refused = await fails(client, tool, {**S, "selector": "button[[", **extra}, "bad-arg")
            assert refused.get("field") == "selector", (tool, refused)


async def test_unreachable_targets_are_refused_at_once_with_their_reason(tmp_path: Path, pages_url: str) -> None:
    async with browx_server(tmp_path / "ws") as client:
        await open_firefox(client)
        await ok(client, "navigate", {**S, "url": f"{pages_url}/reach_refusals.html"})
        for selector, code, reason in (
            ("#covered", "action-failed", "covered"),
            ("#gone", "not-visible", "hidden"),
            ("#ghost", "not-visible", "hidden"),
            ("#flat", "not-visible", "zero-size"),
            ("#inert", "action-failed", "pointer-events-none"),
            ("#slide-away", "not-visible", "outside-scroll-container"),
        ):
            refused = None
            with trio.move_on_after(REFUSED_WITHIN_S):
                refused = await call(client, "click", {**S, "selector": selector})
            assert refused is not None, f"click {selector} was not refused within {REFUSED_WITHIN_S:g} s: it waited"
            assert (refused["ok"], refused.get("code"), refused.get("reason")) == (False, code, reason), refused
        covered = await fails(client, "hover", {**S, "selector": "#covered"}, "action-failed")
        assert covered["reason"] == "covered" and covered.get("coveredBy") == 'dialog "Cookie consent"', covered
        # Nothing was clicked; the slide in view and the button in the scroll list are.
        await ok(client, "verify_text", {**S, "selector": "#log", "text": "none", "exact": True})
        await ok(client, "click", {**S, "selector": "#slide-here"})
        await ok(client, "verify_text", {**S, "selector": "#log", "text": "here clicked", "exact": True})
        await ok(client, "click", {**S, "selector": "#scrolled"})
        await ok(client, "verify_text", {**S, "selector": "#log", "text": "scrolled clicked", "exact": True})
