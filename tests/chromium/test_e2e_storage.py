"""End to end, through the real server over stdio MCP: cookies, page storage and the
storage state saved to the workspace and loaded into other sessions (capability
storage), with the workspace chokepoint and registered secrets honoured."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from e2e_support import browx_server, call, fails, ok

pytestmark = pytest.mark.chromium


async def test_cookies_storage_and_a_login_saved_once(tmp_path: Path, pages_url: str) -> None:
    page = f"{pages_url}/page_login.html"
    workspace = tmp_path / "ws"
    async with browx_server(workspace, "storage,secrets") as client:
        await ok(client, "navigate", {"url": page})
        await ok(client, "verify_text", {"selector": "#who", "text": "Signed out", "exact": True})
        await ok(client, "click", {"selector": "#signin"})
        await ok(client, "verify_text", {"selector": "#who", "text": "Signed in as ada", "exact": True})

        listed = await ok(client, "cookies_list")
        assert listed["count"] == 1 and listed["cookies"][0].startswith("sid=tok-55123 (127.0.0.1 /, session")
        whole = await ok(client, "cookies_list", {"name": "sid"})
        assert whole["cookies"][0]["value"] == "tok-55123" and whole["cookies"][0]["domain"] == "127.0.0.1"
        local = await ok(client, "storage_get")
        assert local["items"] == ["user = ada"] and local["origin"] == pages_url
        assert (await ok(client, "storage_get", {"kind": "session", "key": "tab"}))["value"] == "one"

        # A registered secret's value comes back as its alias.
        await ok(client, "register_secret", {"name": "SID", "value": "tok-55123"})
        masked = await ok(client, "cookies_list")
        assert masked["cookies"][0].startswith("sid=<SID> ")

        # Save the login once; paths stay in the workspace.
        saved = await ok(client, "storage_state_save", {"path": "state/login.json"})
        assert saved["cookies"] == 1 and saved["origins"] == [pages_url]
        state = json.loads((workspace / "state" / "login.json").read_text())
        assert state["cookies"][0]["name"] == "sid" and state["cookies"][0]["value"] == "tok-55123"
        assert state["origins"] == [{"origin": pages_url, "localStorage": [{"name": "user", "value": "ada"}]}]
        for escape in ("../outside.json", "/etc/passwd", "state/../../x.json"):
            refused = await fails(client, "storage_state_save", {"path": escape}, "bad-arg")
            assert refused["field"] == "path" and refused["error"] == "path must stay inside the workspace"
            assert (await fails(client, "storage_state_load", {"path": escape}, "bad-arg"))["field"] == "path"
        for folder in ("state", "state/", "."):
            assert (await fails(client, "storage_state_save", {"path": folder}, "bad-arg"))["error"] == \
                "path must name a file, not a folder"
        missing = await fails(client, "storage_state_load", {"path": "state/none.json"}, "bad-arg")
        assert missing["error"] == "path is not a file in the workspace"
        (workspace / "state" / "junk.json").write_text('{"cookies": "nope"}')
        assert "not a storage state" in (await fails(client, "storage_state_load", {"path": "state/junk.json"},
                                                     "bad-arg"))["error"]

        # Another session starts signed out, loads the state, and is signed in.
        await ok(client, "open_session", {"session": "s2"})
        await ok(client, "navigate", {"url": page, "session": "s2"})
        await ok(client, "verify_text", {"selector": "#who", "text": "Signed out", "session": "s2"})
        loaded = await ok(client, "storage_state_load", {"path": "state/login.json", "session": "s2"})
        assert loaded["cookies"] == 1 and loaded["origins"] == [pages_url]
        await ok(client, "navigate", {"url": page, "session": "s2"})
        await ok(client, "verify_text", {"selector": "#who", "text": "Signed in as ada", "session": "s2"})
        # A session that has no tab at that origin gets its storage through a helper
        # page, which is never a tab.
        await ok(client, "open_session", {"session": "s3"})
        await ok(client, "storage_state_load", {"path": "state/login.json", "session": "s3"})
        assert [t["url"] for t in (await ok(client, "list_tabs", {"session": "s3"}))["tabs"]] == ["about:blank"]
        await ok(client, "navigate", {"url": page, "session": "s3"})
        await ok(client, "verify_text", {"selector": "#who", "text": "Signed in as ada", "session": "s3"})

        # Set, delete and clear, in the first session.
        await ok(client, "cookies_set", {"name": "theme", "value": "dark", "sameSite": "Lax"})
        assert (await ok(client, "cookies_list", {"name": "theme"}))["cookies"][0]["sameSite"] == "Lax"
        await ok(client, "cookies_set", {"name": "other", "value": "1", "domain": "example.com", "path": "/x"})
        assert (await ok(client, "cookies_list", {"domain": "example.com"}))["count"] == 1
        assert (await ok(client, "cookies_delete", {"name": "theme"}))["deleted"] == 1
        assert (await ok(client, "cookies_list"))["count"] == 2
        assert (await ok(client, "cookies_clear"))["deleted"] == 2
        assert (await ok(client, "cookies_list"))["count"] == 0
        await ok(client, "storage_set", {"key": "note", "value": "hello"})
        assert sorted((await ok(client, "storage_get"))["items"]) == ["note = hello", "user = ada"]
        await ok(client, "storage_clear", {"key": "user"})
        assert (await ok(client, "storage_get"))["items"] == ["note = hello"]
        await ok(client, "storage_clear", {"kind": "session"})
        assert (await ok(client, "storage_get", {"kind": "session"}))["count"] == 0
        bad_origin = await fails(client, "storage_get", {"origin": "http://elsewhere.test"}, "target-not-found")
        assert bad_origin["field"] == "origin"
        no_url = await fails(client, "cookies_set", {"name": "a", "value": "b", "url": "about:blank"}, "bad-arg")
        assert no_url["field"] == "url"


async def test_storage_tools_need_the_storage_capability(tmp_path: Path) -> None:
    async with browx_server(tmp_path / "ws", "") as client:
        for tool, args in (("cookies_list", {}), ("cookies_clear", {}), ("storage_get", {}),
                           ("storage_state_save", {"path": "x.json"}), ("storage_state_load", {"path": "x.json"})):
            denied = await call(client, tool, args)
            assert denied["code"] == "capability-denied" and denied["capability"] == "storage", denied
