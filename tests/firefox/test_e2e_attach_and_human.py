"""A firefox session attached to a Firefox someone else runs (``bidiEndpoint``), and
``await_human`` on firefox, over real stdio MCP.

Attached, the session drives that Firefox's own BiDi endpoint: the server launches no
Firefox of its own, and closing the session leaves the browser running. ``await_human``
has no isolated world on firefox (it is made over CDP): it answers ``no-human-channel``
at once, naming the operator channel as the way to a person.
"""

from __future__ import annotations

from pathlib import Path

from browx_actors.bidi import launch_firefox
from e2e_support import browx_server, process_alive
from firefox_support import fails, ok, open_firefox


async def test_a_session_attached_by_bidi_endpoint_drives_that_firefox_and_leaves_it_running(
        tmp_path: Path, pages_url: str) -> None:
    async with launch_firefox() as theirs, browx_server(tmp_path / "ws") as client:
        opened = await open_firefox(client, "mine", bidiEndpoint=theirs.ws_url)
        assert opened["bidiEndpoint"] == theirs.ws_url
        await ok(client, "navigate", {"session": "mine", "url": f"{pages_url}/e2e_app.html"})
        assert "[ref=e" in (await ok(client, "snapshot", {"session": "mine"}))["snapshot"]
        status = await ok(client, "runtime_status")
        pool = next(child for child in status["tree"]["children"] if child["id"] == "firefox-pool")
        assert pool["launches"] == 0  # the server started no Firefox of its own
        await ok(client, "close_session", {"session": "mine"})
        assert process_alive(theirs.pid)
        wrong = await fails(client, "open_session", {"session": "x", "engine": "chromium",
                                                     "bidiEndpoint": theirs.ws_url}, "bad-arg")
        assert wrong["field"] == "bidiEndpoint"


async def test_await_human_on_firefox_answers_no_human_channel_at_once(tmp_path: Path) -> None:
    async with browx_server(tmp_path / "ws") as client:
        await open_firefox(client)
        answer = await fails(client, "await_human", {"session": "ff", "prompt": "Solve the captcha", "kind": "confirm"},
                             "no-human-channel")
        assert answer["value"] is None and answer["timedOut"] is False
        assert "firefox" in answer["error"] and "operator-channel" in answer["error"]
