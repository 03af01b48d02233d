"""The demo's flow on real headless Firefox: the real server over real stdio MCP.

The demo page (browx_actors/demo_page) is served on loopback; the session is opened
with ``engine: firefox`` and driven as an agent would: read, fill (the password as a
registered secret), select, click by ref, verify, screenshot to the workspace.
"""

from __future__ import annotations

from collections.abc import Iterator
from importlib import resources
from pathlib import Path

import pytest

from e2e_support import PNG_MAGIC, browx_server, png_size, ref_of, serve_pages, snapshot_line
from firefox_support import ok

pytestmark = pytest.mark.firefox

SECRET = "correct horse battery"


@pytest.fixture
def demo_url() -> Iterator[str]:
    with serve_pages(Path(str(resources.files("browx_actors") / "demo_page"))) as url:
        yield f"{url}/index.html"


async def test_the_demo_flow_runs_on_firefox_and_no_result_shows_the_secret(tmp_path: Path, demo_url: str) -> None:
    workspace = tmp_path / "ws"
    async with browx_server(workspace, "secrets") as client:
        opened = await ok(client, "open_session", {"session": "ff", "engine": "firefox"})
        assert opened["engine"] == "firefox", opened
        s = {"session": "ff"}
        await ok(client, "navigate", {**s, "url": demo_url})
        snapshot = (await ok(client, "snapshot", s))["snapshot"]
        assert 'heading "Join the beta"' in snapshot, snapshot
        button = ref_of(snapshot_line(snapshot, 'button "Create account"'))

        await ok(client, "register_secret", {**s, "name": "PASSWORD", "value": SECRET})
        await ok(client, "fill", {**s, "selector": "#email", "value": "linus@example.com"})
        await ok(client, "fill", {**s, "selector": "#password", "value": "<PASSWORD>"})
        await ok(client, "verify_value", {**s, "selector": "#email", "value": "linus@example.com"})
        await ok(client, "select", {**s, "selector": "#plan", "values": ["Pro"]})
        # A select's value reads as the option the user sees, as on chromium (the shared page agent).
        await ok(client, "verify_value", {**s, "selector": "#plan", "value": "Pro"})
        await ok(client, "click", {**s, "selector": "#terms"})
        await ok(client, "click", {**s, "ref": button})
        await ok(client, "verify_text", {**s, "text": "Welcome, linus@example.com!"})
        await ok(client, "verify_count", {**s, "selector": "#members li", "count": 3})
        # The form reset after the submit: the member line proves the plan went through.
        await ok(client, "verify_text", {**s, "text": "linus@example.com (pro)"})

        shot = await ok(client, "screenshot", {**s, "path": "demo/after-signup.png"})
        saved = workspace / "demo" / "after-signup.png"
        assert saved.is_file(), shot
        data = saved.read_bytes()
        assert data[:8] == PNG_MAGIC and png_size(data)[0] > 0
        await ok(client, "close_session", s)
        everything = client.transcript.everything()  # type: ignore[attr-defined]
    assert SECRET not in everything
    assert "correct horse" not in everything
