"""open_session's userDataDir on real headless Chromium over stdio MCP: a login (a
cookie with a lifetime and localStorage, set by the page) kept in a workspace profile
across closing the server and starting a new one; a second user of the profile, in
the same server or another, refused at once naming userDataDir; the profile's own
Chromium quit when the session closes and the profile free again; a folder outside
the workspace refused; the server default --user-data-dir used by the default session."""

from __future__ import annotations

import os
import signal
from pathlib import Path

import pytest

from e2e_support import browx_server, fails, ok

pytestmark = pytest.mark.chromium

PROFILE = "profiles/main"
WHO = "document.getElementById('who').textContent"


async def signed_in_as(client: object, session: str, url: str) -> str:
    await ok(client, "navigate", {"session": session, "url": url})  # type: ignore[arg-type]
    return str((await ok(client, "eval_js", {"session": session, "expr": WHO}))["value"])  # type: ignore[arg-type]


async def test_a_login_survives_a_server_restart_on_the_same_profile(tmp_path: Path, pages_url: str) -> None:
    workspace = tmp_path / "ws"
    page = f"{pages_url}/persistent_login.html"
    async with browx_server(workspace, "eval") as client:
        opened = await ok(client, "open_session", {"session": "p", "userDataDir": PROFILE})
        assert opened["userDataDir"] == PROFILE, opened
        assert await signed_in_as(client, "p", page) == "Signed out"
        await ok(client, "click", {"session": "p", "selector": "#signin"})
        assert str((await ok(client, "eval_js", {"session": "p", "expr": WHO}))["value"]) == "Signed in as ada"
        assert len((await ok(client, "list_tabs", {"session": "p"}))["tabs"]) == 1
    assert (workspace / PROFILE / "Default").is_dir()  # the profile is in the workspace
    async with browx_server(workspace, "eval") as client:
        await ok(client, "open_session", {"session": "again", "userDataDir": PROFILE})
        assert await signed_in_as(client, "again", page) == "Signed in as ada"
        # A session of the shared browser starts from nothing: the login is the profile's.
        await ok(client, "open_session", {"session": "fresh"})
        assert await signed_in_as(client, "fresh", page) == "Signed out"


async def test_a_second_user_of_a_profile_is_refused_at_once(tmp_path: Path) -> None:
    workspace = tmp_path / "ws"
    async with browx_server(workspace) as first:
        await ok(first, "open_session", {"session": "a", "userDataDir": PROFILE})
        refused = await fails(first, "open_session", {"session": "b", "userDataDir": PROFILE + "/"}, "bad-arg")
        assert refused["field"] == "userDataDir" and "in use" in refused["error"], refused
        async with browx_server(workspace) as second:  # another server process, same workspace
            refused = await fails(second, "open_session", {"session": "c", "userDataDir": PROFILE}, "bad-arg")
            assert refused["field"] == "userDataDir" and "in use" in refused["error"], refused
            assert (await ok(second, "list_sessions"))["count"] == 0
            lock = workspace / PROFILE / "SingletonLock"
            pid = int(os.readlink(lock).rpartition("-")[2])
            # runtime_status names the browser the session runs beside the pool's.
            status = await ok(first, "runtime_status")
            assert [s.get("ownBrowser") for s in status["sessions"] if s["id"] == "a"] == [
                {"pid": pid, "userDataDir": PROFILE}]
            await ok(first, "close_session", {"session": "a"})
            assert not lock.is_symlink()  # its Chromium quit, and let go of the profile
            with pytest.raises(ProcessLookupError):
                os.kill(pid, 0)
            await ok(second, "open_session", {"session": "c", "userDataDir": PROFILE})


async def test_a_profile_outside_the_workspace_or_in_its_records_is_refused(tmp_path: Path) -> None:
    async with browx_server(tmp_path / "ws") as client:
        for folder in ("../elsewhere", ".", "diagnostics/p"):
            refused = await fails(client, "open_session", {"session": "p", "userDataDir": folder}, "bad-arg")
            assert refused["field"] == "userDataDir", refused
        refused = await fails(client, "open_session", {"session": "p", "userDataDir": PROFILE,
                                                        "storageState": "s.json"}, "bad-arg")
        assert refused["field"] == "storageState", refused
        assert (await ok(client, "list_sessions"))["count"] == 0


async def test_the_profiles_browser_dying_ends_the_session_and_frees_the_profile(tmp_path: Path) -> None:
    workspace = tmp_path / "ws"
    async with browx_server(workspace, "", "--user-data-dir", PROFILE) as client:
        opened = await ok(client, "open_session", {"session": "p"})  # the server's default
        assert opened["userDataDir"] == PROFILE, opened
        pid = int(os.readlink(workspace / PROFILE / "SingletonLock").rpartition("-")[2])
        os.kill(pid, signal.SIGKILL)
        await fails(client, "list_tabs", {"session": "p"}, "browser-crashed")
        await ok(client, "open_session", {"session": "p"})
        assert len((await ok(client, "list_tabs", {"session": "p"}))["tabs"]) == 1
        # The server's profile has one user; "" opens a plain session beside it.
        refused = await fails(client, "open_session", {"session": "q"}, "bad-arg")
        assert refused["field"] == "userDataDir", refused
        opened = await ok(client, "open_session", {"session": "q", "userDataDir": ""})
        assert "userDataDir" not in opened, opened


async def test_the_context_options_reach_the_profiles_own_chromium(tmp_path: Path, pages_url: str) -> None:
    """Playwright's persistent launch takes new_context's options: the same ones apply."""
    read = "({ua: navigator.userAgent, lang: navigator.language, w: innerWidth, h: innerHeight, g: window.fromInit})"
    (tmp_path / "ws").mkdir()
    (tmp_path / "ws" / "init.js").write_text("window.fromInit = 'yes';")
    async with browx_server(tmp_path / "ws", "eval") as client:
        await ok(client, "open_session", {"session": "p", "userDataDir": PROFILE, "userAgent": "profile-ua",
                                          "locale": "de-DE", "viewport": {"width": 900, "height": 600},
                                          "initScript": "init.js"})
        await ok(client, "navigate", {"session": "p", "url": f"{pages_url}/e2e_small.html"})
        seen = (await ok(client, "eval_js", {"session": "p", "expr": read}))["value"]
        assert seen == {"ua": "profile-ua", "lang": "de-DE", "w": 900, "h": 600, "g": "yes"}, seen
