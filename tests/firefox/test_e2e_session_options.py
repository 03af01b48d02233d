"""open_session's context options on real headless Firefox over stdio MCP (WebDriver
BiDi): a desktop device (viewport, pixel ratio, user agent), locale, time zone and user
agent as the page reads them, set on the user context so a later tab has them too;
ignoreHttpsErrors against a self-signed page; and, refused before anything opens, what
BiDi on Firefox 153 cannot set (a mobile or touch device, colorScheme)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from mcp.client import Client

from e2e_support import browx_server, fails, ok
from firefox_support import open_firefox
from https_support import MARKER, serve_https

pytestmark = pytest.mark.firefox

S = {"session": "ff"}
LOOK = "({w: innerWidth, dpr: devicePixelRatio, env: window.env()})"


async def look(client: Client) -> dict[str, Any]:
    seen: dict[str, Any] = (await ok(client, "eval_js", {**S, "expr": LOOK}))["value"]
    return seen


async def test_a_desktop_device_and_the_locale_zone_and_agent_reach_every_tab(tmp_path: Path, pages_url: str) -> None:
    async with browx_server(tmp_path / "ws", "eval") as client:
        opened = await open_firefox(client, device="Desktop Chrome HiDPI", locale="de-DE", timezone="Asia/Tokyo",
                                    userAgent="browx-ff/1.0")
        assert opened["device"] == "Desktop Chrome HiDPI" and opened["deviceScaleFactor"] == 2, opened
        assert opened["userAgent"] == "browx-ff/1.0" and opened["isMobile"] is False, opened
        width = opened["viewport"]["width"]
        page = f"{pages_url}/page_env.html"
        await ok(client, "navigate", {**S, "url": page})
        for _ in range(2):
            seen = await look(client)
            env = seen["env"]
            assert (seen["w"], seen["dpr"]) == (width, 2), seen
            assert (env["locale"], env["language"], env["timezone"], env["userAgent"]) == (
                "de-DE", "de-DE", "Asia/Tokyo", "browx-ff/1.0"), env
            await ok(client, "new_tab", {**S, "url": page})
        # emulate reports what open_session set, as if it had set it itself.
        state = await ok(client, "emulate", S)
        assert state["emulation"] == {"locale": "de-DE", "timezone": "Asia/Tokyo", "userAgent": "browx-ff/1.0"}


async def test_ignore_https_errors_lets_a_self_signed_page_load(tmp_path: Path) -> None:
    with serve_https(tmp_path / "tls") as url:
        async with browx_server(tmp_path / "ws", "eval") as client:
            await open_firefox(client, "strict")
            refused = await fails(client, "navigate", {"session": "strict", "url": url}, "navigation-failed")
            assert "SELF_SIGNED" in refused["error"], refused
            opened = await open_firefox(client, ignoreHttpsErrors=True)
            assert opened["ignoreHttpsErrors"] is True
            await ok(client, "navigate", {**S, "url": url})
            text = (await ok(client, "eval_js", {**S, "expr": "document.body.innerText"}))["value"]
            assert MARKER in text


async def test_what_bidi_cannot_set_is_refused_before_the_session_opens(tmp_path: Path) -> None:
    async with browx_server(tmp_path / "ws") as client:
        for extra, field in (({"device": "iPhone 15"}, "device"), ({"device": "Pixel 7"}, "device"),
                             ({"colorScheme": "dark"}, "colorScheme")):
            refused = await fails(client, "open_session", {**S, "engine": "firefox", **extra}, "not-supported")
            assert refused["field"] == field and "Firefox 153" in refused["error"], refused
        refused = await fails(client, "open_session", {**S, "engine": "firefox", "device": "Pixel 77"}, "bad-arg")
        assert refused["field"] == "device", refused
        listed = await ok(client, "list_sessions")
        assert all(session["id"] != "ff" for session in listed["sessions"]), listed
