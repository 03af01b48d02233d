"""End to end: controls a person clicks through their label, and actions that cannot land
saying why at once (issue 28, items 1 and 2), through the real server over stdio MCP and
real headless Chromium. Bootstrap's CSS comes from the pinned npm package
(``peers/node_modules``, served beside the pages).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from e2e_support import NODE_MODULES, browx_server, fails, ok
from e2e_support import ref_of as _ref
from e2e_support import snapshot_line as _line

pytestmark = pytest.mark.chromium


@pytest.fixture(autouse=True)
def _bootstrap_installed() -> None:
    """Without the pinned npm peers the pages would test unstyled controls: fail loudly."""
    assert (NODE_MODULES / "bootstrap").is_dir(), "the npm peers are not installed: make peers"


async def _js(client: Any, expr: str) -> Any:
    return (await ok(client, "eval_js", {"expr": expr}))["value"]


async def _checked(client: Any, input_id: str) -> bool:
    return bool(await _js(client, f"document.getElementById({json.dumps(input_id)}).checked"))


# -- 1. hidden inputs a person clicks through their label -------------------------------


#: Each styled control: its snapshot line's role and name, the input's id.
_LABELLED = (
    ('radio "Large"', "size-l"),       # Bootstrap .btn-check + label.btn
    ('checkbox "Bold"', "bold"),       # the same, a checkbox
    ('checkbox "Newsletter"', "news"),  # Bootstrap .visually-hidden input, styled label
    ('checkbox "Accept terms"', "terms"),  # opacity 0 over its label
    ('radio "Pro plan"', "plan-pro"),  # pointer-events none inside its label
    ('checkbox "Dark mode"', "dark"),  # display none, the label drawn as the switch
)


async def test_hidden_inputs_are_clicked_through_their_labels(tmp_path: Path, pages_url: str) -> None:
    async with browx_server(tmp_path / "ws", "eval") as client:
        await ok(client, "navigate", {"url": f"{pages_url}/label_controls.html"})
        assert await _js(client, "getComputedStyle(document.getElementById('bold')).clip") == "rect(0px, 0px, 0px, 0px)"
        snap = (await ok(client, "snapshot"))["snapshot"]
        for needle, input_id in _LABELLED:
            ref = _ref(_line(snap, needle))  # a ref a person's click reaches
            assert not await _checked(client, input_id)
            clicked = await ok(client, "click", {"ref": ref})
            assert await _checked(client, input_id), (needle, clicked)
            assert await _js(client, "document.getElementById('log').textContent") == f"{input_id} changed"
        # A checkbox clicked again through its label goes back.
        await ok(client, "click", {"ref": _ref(_line(snap, 'checkbox "Bold"'))})
        assert not await _checked(client, "bold")
        # By selector too, and fill_form sets them the same way.
        await ok(client, "click", {"selector": "#size-s"})
        assert await _checked(client, "size-s") and not await _checked(client, "size-l")
        await ok(client, "fill_form", {"fields": [{"selector": "#bold", "value": True},
                                                  {"selector": "#news", "value": False}]})
        assert await _checked(client, "bold") and not await _checked(client, "news")


# -- 2. no silent timeouts --------------------------------------------------------------


async def test_unreachable_targets_are_refused_with_a_reason(tmp_path: Path, pages_url: str) -> None:
    async with browx_server(tmp_path / "ws", "eval") as client:
        await ok(client, "navigate", {"url": f"{pages_url}/reach_refusals.html"})
        for selector, code, reason in (
            ("#covered", "action-failed", "covered"),
            ("#gone", "not-visible", "hidden"),
            ("#ghost", "not-visible", "hidden"),
            ("#flat", "not-visible", "zero-size"),
            ("#inert", "action-failed", "pointer-events-none"),
            ("#slide-away", "not-visible", "outside-scroll-container"),
        ):
            refused = await fails(client, "click", {"selector": selector}, code)
            assert refused["reason"] == reason, (selector, refused)
            assert "\n" not in refused["error"]
        covered = await fails(client, "click", {"selector": "#covered"}, "action-failed")
        assert covered["coveredBy"] == 'dialog "Cookie consent"', covered
        assert "Cookie consent" in covered["error"]
        hovered = await fails(client, "hover", {"selector": "#covered"}, "action-failed")
        assert hovered["reason"] == "covered"
        # The slide in view is clicked; nothing else was.
        assert await _js(client, "document.getElementById('log').textContent") == "none"
        await ok(client, "click", {"selector": "#slide-here"})
        assert await _js(client, "document.getElementById('log').textContent") == "here clicked"
        # Out of a scroll container's view, in the viewport: scrolled to and clicked.
        await ok(client, "click", {"selector": "#scrolled"})
        assert await _js(client, "document.getElementById('log').textContent") == "scrolled clicked"


async def test_with_playwrights_input_the_same_lands_and_the_same_is_refused(tmp_path: Path,
                                                                              pages_url: str) -> None:
    async with browx_server(tmp_path / "ws", "eval", "--action-input", "playwright") as client:
        await ok(client, "navigate", {"url": f"{pages_url}/label_controls.html"})
        for selector, input_id in (("#size-l", "size-l"), ("#news", "news"), ("#plan-pro", "plan-pro")):
            clicked = await ok(client, "click", {"selector": selector})
            assert clicked["settled"]["input"] == "playwright" and await _checked(client, input_id), clicked
        await ok(client, "navigate", {"url": f"{pages_url}/reach_refusals.html"})
        covered = await fails(client, "click", {"selector": "#covered"}, "action-failed")
        assert covered["reason"] == "covered" and covered["coveredBy"] == 'dialog "Cookie consent"'
        # Disabled may pass: waited for, and the timeout says what it waited for.
        never = await fails(client, "click", {"selector": "#never"}, "timeout")
        assert never["reason"] == "disabled" and "element is not enabled" in never["error"], never
        assert "\n" not in never["error"]


async def test_a_target_that_becomes_ready_is_still_waited_for(tmp_path: Path, pages_url: str) -> None:
    async with browx_server(tmp_path / "ws", "eval") as client:
        await ok(client, "navigate", {"url": f"{pages_url}/reach_late.html"})
        await ok(client, "click", {"selector": "#arm"})
        await ok(client, "click", {"selector": "#late"})  # shown after 500 ms
        assert await _js(client, "document.getElementById('log').textContent") == "late clicked"
        await ok(client, "click", {"selector": "#arm"})
        await ok(client, "click", {"selector": "#freed"})  # under a veil that lifts after 500 ms
        assert await _js(client, "document.getElementById('log').textContent") == "freed clicked"


async def test_an_editors_hidden_textarea_is_typed_into(tmp_path: Path, pages_url: str) -> None:
    async with browx_server(tmp_path / "ws", "eval") as client:
        await ok(client, "navigate", {"url": f"{pages_url}/editor_proxy.html"})
        for input_id, lines in (("cm-input", "cm-lines"), ("mo-input", "mo-lines")):
            await ok(client, "fill", {"selector": f"#{input_id}", "value": "let x = 1;"})
            assert await _js(client, f"document.getElementById('{lines}').textContent") == "let x = 1;"
            assert await _js(client, "document.activeElement.id") == input_id
