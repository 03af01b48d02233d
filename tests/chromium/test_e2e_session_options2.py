"""open_session's storageState on real headless Chromium over stdio MCP: a storage-state
file in the workspace (a cookie and an origin's localStorage) loaded into the new
context, which the page then reads; a file outside the workspace or not a storage
state refused naming storageState before the session opens."""

from __future__ import annotations

from pathlib import Path

import pytest

from e2e_support import STORAGE_READ, browx_server, fails, ok, write_storage_state
from proxy_support import serve_proxy

pytestmark = pytest.mark.chromium

S = {"session": "opts2"}


async def test_a_storage_state_file_is_loaded_at_open(tmp_path: Path, pages_url: str) -> None:
    workspace = tmp_path / "ws"
    path = write_storage_state(workspace, pages_url)
    async with browx_server(workspace, "eval") as client:
        opened = await ok(client, "open_session", {**S, "storageState": path})
        assert opened["storageState"] == path, opened
        await ok(client, "navigate", {**S, "url": f"{pages_url}/e2e_small.html"})
        seen = (await ok(client, "eval_js", {**S, "expr": STORAGE_READ}))["value"]
        assert seen == {"cookie": "who=ada", "kept": "from-file"}, seen


async def test_a_bad_storage_state_is_refused_before_the_session_opens(tmp_path: Path) -> None:
    workspace = tmp_path / "ws"
    (workspace / "state").mkdir(parents=True)
    (workspace / "state" / "junk.json").write_text("[1, 2]")
    async with browx_server(workspace, "eval") as client:
        for path in ("../outside.json", "state/none.json", "state/junk.json"):
            refused = await fails(client, "open_session", {**S, "storageState": path}, "bad-arg")
            assert refused["field"] == "storageState", refused
        assert (await ok(client, "list_sessions"))["count"] == 0


async def test_permissions_are_granted_from_the_start_and_emulate_reports_them(tmp_path: Path, pages_url: str) -> None:
    state = "navigator.permissions.query({name: 'geolocation'}).then(p => p.state)"
    async with browx_server(tmp_path / "ws", "eval") as client:
        opened = await ok(client, "open_session", {**S, "permissions": ["geolocation", "notifications"]})
        assert opened["permissions"] == ["geolocation", "notifications"], opened
        await ok(client, "navigate", {**S, "url": f"{pages_url}/e2e_small.html"})
        assert (await ok(client, "eval_js", {**S, "expr": state}))["value"] == "granted"
        assert (await ok(client, "emulate", S))["emulation"]["permissions"] == ["geolocation", "notifications"]
        await ok(client, "emulate", {**S, "permissions": None})  # emulate changes them like its own
        assert (await ok(client, "eval_js", {**S, "expr": state}))["value"] == "prompt"
        refused = await fails(client, "open_session", {"session": "other", "permissions": ["telepathy"]}, "bad-arg")
        assert refused["field"] == "permissions" and "telepathy" in refused["error"], refused


INIT = "var local = 1;\nwindow.fromInit = {state: document.readyState, local: typeof local};\n// a last-line comment"


async def test_an_init_script_runs_in_every_new_document_before_its_scripts(tmp_path: Path, pages_url: str) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    (workspace / "init.js").write_text(INIT)
    async with browx_server(workspace, "eval") as client:
        assert (await ok(client, "open_session", {**S, "initScript": "init.js"}))["initScript"] == "init.js"
        for page in ("e2e_small.html", "e2e_second.html"):
            await ok(client, "navigate", {**S, "url": f"{pages_url}/{page}"})
            seen = (await ok(client, "eval_js", {**S, "expr": "[window.fromInit, typeof local]"}))["value"]
            # Run while the document loads, as a function body: its declarations stay its own.
            assert seen == [{"state": "loading", "local": "number"}, "undefined"], seen
        missing = await fails(client, "open_session", {"session": "other", "initScript": "none.js"}, "bad-arg")
        assert missing["field"] == "initScript", missing


REGISTER = "navigator.serviceWorker.register('/sw-none.js').then(r => String(r), e => 'rejected')"


async def test_blocked_service_workers_register_nothing(tmp_path: Path, pages_url: str) -> None:
    # Playwright's block replaces register with one that resolves to nothing; without
    # it, registering a missing script is rejected by the browser.
    async with browx_server(tmp_path / "ws", "eval") as client:
        assert (await ok(client, "open_session", {**S, "blockServiceWorkers": True}))["blockServiceWorkers"] is True
        await ok(client, "open_session", {"session": "free"})
        for session, expected in ((S["session"], "undefined"), ("free", "rejected")):
            await ok(client, "navigate", {"session": session, "url": f"{pages_url}/e2e_small.html"})
            assert (await ok(client, "eval_js", {"session": session, "expr": REGISTER}))["value"] == expected


async def test_a_proxy_with_credentials_carries_the_pages_and_its_password_is_masked(tmp_path: Path) -> None:
    with serve_proxy("ada", "hunter2") as proxy:
        async with browx_server(tmp_path / "ws", "eval") as client:
            asked = {"server": proxy, "username": "ada", "password": "hunter2"}
            opened = await ok(client, "open_session", {**S, "proxy": asked})
            assert opened["proxy"] == {**asked, "password": "***"}, opened
            await ok(client, "navigate", {**S, "url": "http://browx-proxy.test/page"})
            seen = (await ok(client, "eval_js", {**S, "expr": "document.getElementById('asked').textContent"}))
            assert seen["value"] == "http://browx-proxy.test/page"
            # Registered as a secret of the session: a result that holds it is masked.
            assert (await ok(client, "eval_js", {**S, "expr": "'hunt' + 'er2'"}))["value"] == "<PROXY_PASSWORD>"
            bad = await fails(client, "open_session", {"session": "x", "proxy": {"server": "127.0.0.1"}}, "bad-arg")
            assert bad["field"] == "proxy.server", bad
