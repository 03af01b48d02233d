"""open_session's userDataDir on real headless Firefox over stdio MCP (WebDriver BiDi):
a login (a cookie with a lifetime and localStorage, set by the page) kept in a
workspace profile across closing the server and starting a new one; a second user of
the profile refused at once naming userDataDir, and free again once the first closed;
the profile's Firefox killed ending the session as browser-crashed, the profile free."""

from __future__ import annotations

import os
import signal
import socket
from pathlib import Path

import pytest
from mcp.client import Client

from browx_actors.sessions.profile_lock import lock_owner
from e2e_support import browx_server, fails, ok
from firefox_support import open_firefox
from https_support import MARKER, serve_https

pytestmark = pytest.mark.firefox

PROFILE = "profiles/ff"
WHO = "document.getElementById('who').textContent"


async def who(client: Client, session: str) -> str:
    return str((await ok(client, "eval_js", {"session": session, "expr": WHO}))["value"])


async def test_a_login_survives_a_server_restart_on_the_same_profile(tmp_path: Path, pages_url: str) -> None:
    workspace = tmp_path / "ws"
    page = f"{pages_url}/persistent_login.html"
    async with browx_server(workspace, "eval") as client:
        opened = await open_firefox(client, "p", userDataDir=PROFILE)
        assert opened["userDataDir"] == PROFILE, opened
        await ok(client, "navigate", {"session": "p", "url": page})
        assert await who(client, "p") == "Signed out"
        await ok(client, "click", {"session": "p", "selector": "#signin"})
        assert await who(client, "p") == "Signed in as ada"
        tabs = (await ok(client, "list_tabs", {"session": "p"}))["tabs"]
        assert len(tabs) == 1 and tabs[0]["id"] == 1, tabs
    assert (workspace / PROFILE / "prefs.js").is_file()  # Firefox's profile is in the workspace
    async with browx_server(workspace, "eval") as client:
        await open_firefox(client, "again", userDataDir=PROFILE)
        await ok(client, "navigate", {"session": "again", "url": page})
        assert await who(client, "again") == "Signed in as ada"
        await open_firefox(client, "fresh")  # the shared Firefox's user context starts from nothing
        await ok(client, "navigate", {"session": "fresh", "url": page})
        assert await who(client, "fresh") == "Signed out"


async def test_a_second_user_of_a_profile_is_refused_at_once(tmp_path: Path) -> None:
    async with browx_server(tmp_path / "ws") as client:
        await open_firefox(client, "a", userDataDir=PROFILE)
        (own,) = [s.get("ownBrowser") for s in (await ok(client, "runtime_status"))["sessions"] if s["id"] == "a"]
        assert own["userDataDir"] == PROFILE and os.kill(own["pid"], 0) is None  # its own Firefox, running
        refused = await fails(client, "open_session", {"session": "b", "engine": "firefox", "userDataDir": PROFILE},
                              "bad-arg")
        assert refused["field"] == "userDataDir" and "in use" in refused["error"], refused
        # Nor by chromium: a profile has one user, whichever engine asks.
        refused = await fails(client, "open_session", {"session": "c", "userDataDir": PROFILE}, "bad-arg")
        assert refused["field"] == "userDataDir", refused
        await ok(client, "close_session", {"session": "a"})
        await open_firefox(client, "b", userDataDir=PROFILE)


async def test_the_profiles_firefox_dying_ends_the_session_and_frees_the_profile(tmp_path: Path) -> None:
    workspace = tmp_path / "ws"
    async with browx_server(workspace) as client:
        await open_firefox(client, "p", userDataDir=PROFILE)
        pid = lock_owner(os.readlink(workspace / PROFILE / "lock"), socket.gethostname())
        assert pid is not None
        os.kill(pid, signal.SIGKILL)
        await fails(client, "list_tabs", {"session": "p"}, "browser-crashed")
        await open_firefox(client, "p", userDataDir=PROFILE)
        assert len((await ok(client, "list_tabs", {"session": "p"}))["tabs"]) == 1


async def test_the_context_options_reach_the_profiles_own_firefox(tmp_path: Path) -> None:
    """What createUserContext would take goes into the BiDi session's capabilities, and
    emulation applies to the profile's default user context."""
    with serve_https(tmp_path / "tls") as url:
        async with browx_server(tmp_path / "ws", "eval") as client:
            await open_firefox(client, "p", userDataDir=PROFILE, ignoreHttpsErrors=True, locale="de-DE",
                               timezone="Asia/Tokyo")
            await ok(client, "navigate", {"session": "p", "url": url})
            seen = (await ok(client, "eval_js", {"session": "p", "expr": "({text: document.body.innerText, "
                                                 "lang: navigator.language, zone: Intl.DateTimeFormat()"
                                                 ".resolvedOptions().timeZone})"}))["value"]
            assert MARKER in seen["text"] and (seen["lang"], seen["zone"]) == ("de-DE", "Asia/Tokyo"), seen
