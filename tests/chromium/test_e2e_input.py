"""End to end: how actions reach the page. Click, hover and fill send their own raw CDP
input when the page agent finds the element ready, and leave it to Playwright (which
waits for the element) when it is not; both answer in the same shape. The real server
over stdio MCP, real headless Chromium, pages on loopback.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from e2e_support import browx_server, fails, ok

pytestmark = pytest.mark.chromium


async def _log(client: object) -> str:
    result = await ok(client, "eval_js", {"expr": "document.getElementById('log').textContent"})
    return result["value"]


async def test_direct_input_and_the_playwright_fallback(tmp_path: Path, pages_url: str) -> None:
    page = f"{pages_url}/e2e_input.html"
    async with browx_server(tmp_path / "ws", "eval") as client:
        # The title is the document's own, as the page set it; none is "", not the URL.
        untitled = await ok(client, "navigate", {"url": "data:text/html,<p>no title"})
        assert untitled["title"] == ""
        titled = await ok(client, "navigate", {"url": "data:text/html,<title> Set  by\n markup </title>"
                                                     "<script>onload = () => document.title += ' + script'</script>"})
        assert titled["title"] == "Set by markup + script"
        first = await ok(client, "navigate", {"url": page})
        assert first["title"] == "E2E input"

        # A double click is two trusted press/release pairs: the page sees dblclick.
        twice = await ok(client, "click", {"selector": "#twice", "clickCount": 2})
        assert "input" not in twice["settled"]  # the server's own input: not said
        assert "dblclick 2 trusted true;" in await _log(client)

        # Modifiers are held around the click, as key events and on the mouse events.
        mods = await ok(client, "click", {"selector": "#mods", "modifiers": ["Shift", "ControlOrMeta"]})
        assert "input" not in mods["settled"]
        assert "mods shift=true ctrl=true keys=down:Shift,down:Control;" in await _log(client)
        bad = await fails(client, "click", {"selector": "#mods", "modifiers": ["Hyper"]}, "bad-arg")
        assert bad["field"] == "modifiers" and "Hyper" in bad["error"]

        # Out of view: scrolled into view, then clicked directly.
        far = await ok(client, "click", {"selector": "#far"})
        assert "input" not in far["settled"] and "far clicked;" in await _log(client)
        assert (await ok(client, "eval_js", {"expr": "scrollY"}))["value"] > 1000
        await ok(client, "scroll", {"deltaY": -5000})

        # Covered for 300 ms more: not ready, looked at again until the cover lifts (well
        # within the grace before a cover is refused), then clicked directly.
        await ok(client, "click", {"selector": "#arm"})
        covered = await ok(client, "click", {"selector": "#covered"})
        assert "input" not in covered["settled"]
        assert covered["target"]["name"] == "Covered"
        assert "covered clicked trusted true;" in await _log(client)

        # A link whose answer is a 204 starts a navigation that never commits: the
        # click answers when the request has ended, not after a navigation timeout.
        started = time.monotonic()
        nowhere = await ok(client, "click", {"selector": "#empty-link"})
        assert time.monotonic() - started < 5
        assert "navigation" not in nowhere  # the page stayed where it was
        assert (await ok(client, "eval_js", {"expr": "location.href"}))["value"] == page

        # fill: a textarea (newlines kept, one insertText input event), a contenteditable,
        # an empty value that clears, and a number field (typed by Playwright).
        notes = await ok(client, "fill", {"selector": "#notes", "value": "line 1\nline 2"})
        assert "input" not in notes["settled"]
        assert notes["element"]["value"] == "line 1\nline 2"
        assert "notes insertText;" in await _log(client)
        rich = await ok(client, "fill", {"selector": "#rich", "value": "new text"})
        assert "input" not in rich["settled"]
        assert (await ok(client, "eval_js", {"expr": "document.getElementById('rich').innerHTML"}))["value"] \
            == "new text"
        cleared = await ok(client, "fill", {"selector": "#notes", "value": ""})
        assert cleared["element"]["value"] == ""
        assert "notes deleteContentForward;" in await _log(client)
        amount = await ok(client, "fill", {"selector": "#amount", "value": "42"})
        assert amount["settled"]["input"] == "playwright" and amount["element"]["value"] == "42"

        # Enter in a field submits its form: a navigation, settled at domcontentloaded.
        submitted = await ok(client, "fill", {"selector": "#term", "value": "cats & dogs", "submit": True})
        assert "input" not in submitted["settled"]
        assert "structure" not in submitted  # read the new page with snapshot
        assert submitted["navigation"] == {"to": f"{pages_url}/e2e_second.html?term=cats+%26+dogs"}
        assert submitted["settled"]["by"] == "domcontentloaded"
        await ok(client, "go_back")

        # hover goes direct too; the snapshot ref path is the same as the selector one.
        snap = (await ok(client, "snapshot"))["snapshot"]
        ref = next(line.split("[ref=")[1].split("]")[0] for line in snap.splitlines() if '"Twice"' in line)
        hovered = await ok(client, "hover", {"ref": ref})
        assert "input" not in hovered["settled"]
        assert (await ok(client, "eval_js", {"expr": "document.getElementById('twice').matches(':hover')"}))["value"]


async def test_with_action_input_playwright_every_action_goes_through_playwright(
    tmp_path: Path, pages_url: str
) -> None:
    async with browx_server(tmp_path / "ws", "eval", "--action-input", "playwright") as client:
        await ok(client, "navigate", {"url": f"{pages_url}/e2e_input.html"})
        twice = await ok(client, "click", {"selector": "#twice", "clickCount": 2})
        assert twice["settled"]["input"] == "playwright"
        mods = await ok(client, "click", {"selector": "#mods", "modifiers": ["Shift"]})
        assert mods["settled"]["input"] == "playwright"
        notes = await ok(client, "fill", {"selector": "#notes", "value": "typed by Playwright"})
        assert notes["settled"]["input"] == "playwright" and notes["element"]["value"] == "typed by Playwright"
        # Coords too: the point's element is still the target, modifiers still held.
        box = (await ok(client, "eval_js", {"expr": "(() => { const r = document.getElementById('mods')"
                                                    ".getBoundingClientRect(); return [r.x + 5, r.y + 5]; })()"}))
        at = await ok(client, "click", {"coords": {"x": box["value"][0], "y": box["value"][1]},
                                        "modifiers": ["ControlOrMeta"]})
        assert at["settled"]["input"] == "playwright" and at["target"]["name"] == "Mods"
        hovered = await ok(client, "hover", {"coords": {"x": box["value"][0], "y": box["value"][1]}})
        assert hovered["settled"]["input"] == "playwright"
        log = await _log(client)
        assert "dblclick 2 trusted true;" in log
        assert "mods shift=true ctrl=false keys=down:Shift;" in log
        assert "mods shift=false ctrl=true keys=down:Shift,up:Shift,down:Control;" in log


async def test_selectors_reach_controls_inside_an_open_shadow_root(tmp_path: Path, pages_url: str) -> None:
    """The agent's own query sees the light DOM only; Playwright's CSS engine looks inside
    open shadow roots too, so a miss goes to it, as verify_* and wait_for always did."""
    async with browx_server(tmp_path / "ws") as client:
        await ok(client, "navigate", {"url": f"{pages_url}/shadow_controls.html"})
        await ok(client, "fill", {"selector": "#email", "value": "ada@example.com"})
        clicked = await ok(client, "click", {"selector": "#join"})
        assert clicked["target"]["name"] == "Join"
        await ok(client, "verify_text", {"selector": "#out", "text": "joined as ada@example.com", "exact": True})
        await ok(client, "hover", {"selector": "#join"})
        missing = await fails(client, "click", {"selector": "#nowhere"}, "target-not-found")
        assert missing["selector"] == "#nowhere"
