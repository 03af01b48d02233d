"""open_session's storageState on real headless Firefox over stdio MCP (WebDriver BiDi):
a storage-state file in the workspace (a cookie and an origin's localStorage) loaded
into the new user context at start, which the page then reads; a bad file refused
naming storageState, and no session left open."""

from __future__ import annotations

from pathlib import Path

import pytest

from e2e_support import STORAGE_READ, browx_server, call, fails, ok, write_storage_state
from firefox_support import open_firefox
from proxy_support import serve_proxy

pytestmark = pytest.mark.firefox

S = {"session": "ff"}


async def test_a_storage_state_file_is_loaded_at_open(tmp_path: Path, pages_url: str) -> None:
    workspace = tmp_path / "ws"
    path = write_storage_state(workspace, pages_url)
    async with browx_server(workspace, "eval") as client:
        opened = await open_firefox(client, storageState=path)
        assert opened["storageState"] == path, opened
        await ok(client, "navigate", {**S, "url": f"{pages_url}/e2e_small.html"})
        seen = (await ok(client, "eval_js", {**S, "expr": STORAGE_READ}))["value"]
        assert seen == {"cookie": "who=ada", "kept": "from-file"}, seen
        assert len((await ok(client, "list_tabs", S))["tabs"]) == 1  # the helper tab is gone


async def test_a_bad_storage_state_is_refused_naming_it(tmp_path: Path) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    (workspace / "junk.json").write_text("{\"cookies\": 3}")
    async with browx_server(workspace, "eval") as client:
        refused = await fails(client, "open_session", {**S, "engine": "firefox", "storageState": "junk.json"},
                              "bad-arg")
        assert refused["field"] == "storageState" and "storage state" in refused["error"], refused
        assert (await ok(client, "list_sessions"))["count"] == 0


async def test_permissions_are_granted_to_each_origin_the_pages_go_to(tmp_path: Path, pages_url: str,
                                                                      pages_url2: str) -> None:
    """BiDi grants per origin: navigate grants before it loads (the page's first script
    sees it), a navigation the page makes is granted as it starts; a session opened
    without them is not granted anything."""
    state = "navigator.permissions.query({name: 'geolocation'}).then(p => p.state)"
    async with browx_server(tmp_path / "ws", "eval") as client:
        opened = await open_firefox(client, permissions=["geolocation"])
        assert opened["permissions"] == ["geolocation"], opened
        await ok(client, "navigate", {**S, "url": f"{pages_url}/permission_at_load.html"})
        assert (await ok(client, "eval_js", {**S, "expr": "window.seenAtLoad"}))["value"] == "granted"
        await ok(client, "eval_js", {**S, "expr": f"location.href = '{pages_url2}/e2e_small.html'"})
        await ok(client, "wait_for", {**S, "text": "Hello E2E"})
        assert (await ok(client, "eval_js", {**S, "expr": "location.origin"}))["value"] == pages_url2
        assert (await ok(client, "eval_js", {**S, "expr": state}))["value"] == "granted"
        await open_firefox(client, "plain")
        await ok(client, "navigate", {"session": "plain", "url": f"{pages_url}/permission_at_load.html"})
        assert (await ok(client, "eval_js", {"session": "plain", "expr": "window.seenAtLoad"}))["value"] == "prompt"


INIT = "var local = 1;\nwindow.fromInit = {state: document.readyState, local: typeof local};\n// a last-line comment"


async def test_an_init_script_runs_in_the_page_realm_of_every_new_document(tmp_path: Path, pages_url: str) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    (workspace / "init.js").write_text(INIT)
    async with browx_server(workspace, "eval") as client:
        assert (await open_firefox(client, initScript="init.js"))["initScript"] == "init.js"
        for page in ("e2e_small.html", "e2e_second.html"):
            await ok(client, "navigate", {**S, "url": f"{pages_url}/{page}"})
            seen = (await ok(client, "eval_js", {**S, "expr": "[window.fromInit, typeof local]"}))["value"]
            assert seen == [{"state": "loading", "local": "number"}, "undefined"], seen
        missing = await fails(client, "open_session", {"session": "other", "engine": "firefox",
                                                       "initScript": "../none.js"}, "bad-arg")
        assert missing["field"] == "initScript", missing


REGISTER = "navigator.serviceWorker.register('/sw-none.js').then(r => String(r), e => 'rejected')"


async def test_blocked_service_workers_register_nothing(tmp_path: Path, pages_url: str) -> None:
    # As Playwright's block does on chromium: register resolves to nothing; without it,
    # registering a missing script is rejected by the browser.
    async with browx_server(tmp_path / "ws", "eval") as client:
        assert (await open_firefox(client, blockServiceWorkers=True))["blockServiceWorkers"] is True
        await open_firefox(client, "free")
        for session, expected in ((S["session"], "undefined"), ("free", "rejected")):
            await ok(client, "navigate", {"session": session, "url": f"{pages_url}/e2e_small.html"})
            assert (await ok(client, "eval_js", {"session": session, "expr": REGISTER}))["value"] == expected


async def test_a_proxy_carries_the_pages(tmp_path: Path) -> None:
    with serve_proxy() as proxy:
        async with browx_server(tmp_path / "ws", "eval") as client:
            assert (await open_firefox(client, proxy={"server": proxy}))["proxy"] == {"server": proxy}
            await ok(client, "navigate", {**S, "url": "http://browx-proxy.test/page"})
            seen = (await ok(client, "eval_js", {**S, "expr": "document.getElementById('asked').textContent"}))
            assert seen["value"] == "http://browx-proxy.test/page"


async def test_a_proxys_credentials_answer_its_challenge_for_that_session_only(tmp_path: Path) -> None:
    """Firefox keeps accepted proxy credentials browser-wide, so a session with them runs
    a Firefox of its own: the others, before and after, are not let through with them."""
    asked = "document.getElementById('asked')?.textContent ?? null"
    with serve_proxy("ada", "hunter2") as proxy:
        async with browx_server(tmp_path / "ws", "eval") as client:
            opened = await open_firefox(client, proxy={"server": proxy, "username": "ada", "password": "hunter2"})
            assert opened["proxy"] == {"server": proxy, "username": "ada", "password": "***"}, opened
            await ok(client, "navigate", {**S, "url": "http://browx-proxy.test/in"})
            assert (await ok(client, "eval_js", {**S, "expr": asked}))["value"] == "http://browx-proxy.test/in"
            await open_firefox(client, "other", proxy={"server": proxy})  # no credentials
            await call(client, "navigate", {"session": "other", "url": "http://browx-proxy.test/out"})
            assert (await ok(client, "eval_js", {"session": "other", "expr": asked}))["value"] is None
            # Wrong credentials: the proxy's refusal (a challenge refused again is cancelled, not looped).
            await open_firefox(client, "wrong", proxy={"server": proxy, "username": "ada", "password": "nope-1"})
            await call(client, "navigate", {"session": "wrong", "url": "http://browx-proxy.test/no"})
            assert (await ok(client, "eval_js", {"session": "wrong", "expr": asked}))["value"] is None
            assert (await ok(client, "list_tabs", S))["tabs"][0]["id"] == 1
            assert "hunter2" not in client.transcript.everything()  # type: ignore[attr-defined]
