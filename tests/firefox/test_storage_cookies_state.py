"""Firefox sessions' cookies, page storage and storage state: each session's user
context is its own jar (one session never sees another's cookies), and a login saved
to the workspace loads into a fresh session, in chromium's file format."""

from __future__ import annotations

import json
import time
from pathlib import Path

from ff_records_support import fails, firefox_runtime, ok


async def test_cookies_of_one_firefox_session_are_not_anothers(tmp_path: Path, pages_url: str) -> None:
    page = f"{pages_url}/page_login.html"
    async with firefox_runtime(tmp_path / "ws", sessions=("ff", "other")) as rt:
        await ok(rt, "navigate", {"url": page})
        await ok(rt, "navigate", {"url": page}, session="other")
        await ok(rt, "click", {"selector": "#signin"})
        await ok(rt, "verify_text", {"selector": "#who", "text": "Signed in as ada", "exact": True})
        mine = await ok(rt, "cookies_list")
        assert mine["count"] == 1 and mine["cookies"][0].startswith("sid=tok-55123 (127.0.0.1 /, session")
        whole = (await ok(rt, "cookies_list", {"name": "sid"}))["cookies"][0]
        assert whole["value"] == "tok-55123" and whole["domain"] == "127.0.0.1" and whole["path"] == "/"
        # The other session, on the same page of the same origin, has none of it.
        assert (await ok(rt, "cookies_list", session="other"))["count"] == 0
        await ok(rt, "cookies_set", {"name": "theirs", "value": "x"}, session="other")
        assert [c["name"] for c in (await ok(rt, "cookies_list", {"name": "theirs"}))["cookies"]] == []
        seen_by_page = await ok(rt, "eval_js", {"expr": "document.cookie"}, session="other")
        assert seen_by_page["value"] == "theirs=x"
        assert (await ok(rt, "cookies_clear", session="other"))["deleted"] == 1
        assert (await ok(rt, "cookies_list"))["count"] == 1  # clearing theirs left mine

        # Within the 400 days Firefox caps a cookie's lifetime at.
        expires = int(time.time()) + 30 * 86_400
        made = await ok(rt, "cookies_set", {"name": "pref", "value": "dark", "domain": "127.0.0.1", "path": "/",
                                            "expires": expires, "httpOnly": True, "sameSite": "Lax"})
        assert made["set"] == "pref" and "HttpOnly" in made["cookies"][0] and "Lax" in made["cookies"][0]
        pref = (await ok(rt, "cookies_list", {"name": "pref"}))["cookies"][0]
        assert pref["expires"] == expires and pref["httpOnly"] is True and pref["sameSite"] == "Lax"
        assert (await ok(rt, "cookies_delete", {"name": "pref"}))["deleted"] == 1
        assert (await ok(rt, "cookies_delete", {"name": "pref"}))["deleted"] == 0
        await fails(rt, "cookies_set", {"name": "x", "value": "y", "url": "about:blank"}, "bad-arg")


async def test_page_storage_and_a_login_saved_once(tmp_path: Path, pages_url: str, pages_url2: str) -> None:
    page = f"{pages_url}/page_login.html"
    workspace = tmp_path / "ws"
    async with firefox_runtime(workspace) as rt:
        await ok(rt, "navigate", {"url": page})
        await ok(rt, "click", {"selector": "#signin"})
        local = await ok(rt, "storage_get")
        assert local["origin"] == pages_url and local["kind"] == "local" and local["items"] == ["user = ada"]
        assert (await ok(rt, "storage_get", {"kind": "session", "key": "tab"}))["value"] == "one"
        await ok(rt, "storage_set", {"key": "theme", "value": "dark"})
        assert (await ok(rt, "eval_js", {"expr": "localStorage.getItem('theme')"}))["value"] == "dark"
        # A page that shadows its own localStorage does not fool the reads: they use the real one.
        await ok(rt, "eval_js", {"expr": "Object.defineProperty(window, 'localStorage', {value: {}}), 1"})
        assert (await ok(rt, "storage_get", {"key": "theme"}))["value"] == "dark"
        assert (await ok(rt, "storage_clear", {"key": "theme"}))["cleared"] == "theme"
        assert (await ok(rt, "storage_get", {"key": "theme"}))["found"] is False
        await fails(rt, "storage_get", {"origin": "http://elsewhere.test"}, "target-not-found")

        saved = await ok(rt, "storage_state_save", {"path": "login.json"})
        assert saved["cookies"] == 1 and saved["origins"] == [pages_url]
        state = json.loads((workspace / "login.json").read_text())
        assert state["cookies"][0]["name"] == "sid" and state["cookies"][0]["value"] == "tok-55123"
        assert state["origins"] == [{"origin": pages_url, "localStorage": [{"name": "user", "value": "ada"}]}]
        await fails(rt, "storage_state_save", {"path": "../outside.json"}, "bad-arg")

    # A fresh runtime, a fresh Firefox session: the file signs it in. The second origin's
    # storage goes in through the helper tab, with no page of it open.
    state["origins"].append({"origin": pages_url2, "localStorage": [{"name": "elsewhere", "value": "yes"}]})
    (workspace / "login.json").write_text(json.dumps(state))
    async with firefox_runtime(workspace) as rt:
        await ok(rt, "navigate", {"url": page})
        await ok(rt, "verify_text", {"selector": "#who", "text": "Signed out", "exact": True})
        loaded = await ok(rt, "storage_state_load", {"path": "login.json"})
        assert loaded["cookies"] == 1 and loaded["origins"] == [pages_url, pages_url2]
        await ok(rt, "navigate", {"url": page})
        await ok(rt, "verify_text", {"selector": "#who", "text": "Signed in as ada", "exact": True})
        assert [t["id"] for t in (await ok(rt, "list_tabs"))["tabs"]] == [1]  # the helper tab is gone
        await ok(rt, "navigate", {"url": f"{pages_url2}/page_login.html"})
        assert (await ok(rt, "storage_get", {"key": "elsewhere"}))["value"] == "yes"
        (workspace / "bad.json").write_text("{not json")
        await fails(rt, "storage_state_load", {"path": "bad.json"}, "bad-arg")
