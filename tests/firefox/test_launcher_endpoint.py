"""Reading Firefox's ``WebDriverBiDiServer.json`` (browx_actors.bidi.launcher.parse_endpoint_file)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from browx_actors.bidi.launcher import PREFS, firefox_command, parse_endpoint_file


def test_a_complete_file_names_the_session_endpoint() -> None:
    text = json.dumps({"ws_host": "127.0.0.1", "ws_port": 40123})
    assert parse_endpoint_file(text) == "ws://127.0.0.1:40123/session"


def test_a_port_written_as_text_is_read_as_a_number() -> None:
    assert parse_endpoint_file('{"ws_host": "localhost", "ws_port": "9222"}') == "ws://localhost:9222/session"


@pytest.mark.parametrize("text", [
    "",                                           # not written yet
    '{"ws_host": "127.0.0.1", "ws_po',            # half written
    "{}",
    '{"ws_host": "127.0.0.1"}',
    '{"ws_port": 1234}',
    '{"ws_host": 5, "ws_port": 1234}',
    '{"ws_host": "h", "ws_port": 0}',
    '{"ws_host": "h", "ws_port": 70000}',
    '{"ws_host": "h", "ws_port": "abc"}',
    '{"ws_host": "h", "ws_port": null}',
    "[1, 2]",
])
def test_an_incomplete_or_wrong_file_is_none(text: str) -> None:
    assert parse_endpoint_file(text) is None


def test_the_command_is_headless_picks_a_free_port_and_keeps_bidi_only() -> None:
    command = firefox_command("/usr/bin/firefox-esr", Path("/tmp/p"))
    assert command[:2] == ["/usr/bin/firefox-esr", "--headless"]
    assert command[command.index("--remote-debugging-port") + 1] == "0"
    assert PREFS["remote.active-protocols"] == 1


def test_a_named_firefox_that_is_not_there_is_refused_naming_where_it_was_named(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from browx_actors.bidi.launcher import FirefoxNotFound, find_firefox

    monkeypatch.delenv("BROWX_FIREFOX", raising=False)
    with pytest.raises(FirefoxNotFound, match=r"--firefox-path or BROWX_FIREFOX\) '/no/firefox'"):
        find_firefox("/no/firefox")
    monkeypatch.setenv("BROWX_FIREFOX", "/no/other")
    with pytest.raises(FirefoxNotFound, match="BROWX_FIREFOX '/no/other'"):
        find_firefox()
    monkeypatch.setenv("PATH", "/nonexistent")
    monkeypatch.delenv("BROWX_FIREFOX")
    with pytest.raises(FirefoxNotFound, match="no firefox-esr or firefox on PATH"):
        find_firefox()
