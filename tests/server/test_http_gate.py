"""Who may reach the HTTP transport (server/http_gate.py) and when a client counts as
gone (ClientBook, and the reaper under ``MockClock(autojump_threshold=0)``): no server."""

from __future__ import annotations

import pytest
import trio

from browx_actors.server.http_gate import HttpOptions, is_loopback, refusal
from browx_actors.server.mcp_http import ClientBook, Gateway

TOKEN = "s3cret-token-0123456789"


def test_loopback_is_recognised_in_every_spelling() -> None:
    for host in ("127.0.0.1", "127.0.0.2", "localhost", "LOCALHOST", "::1", "[::1]"):
        assert is_loopback(host), host
    for host in ("0.0.0.0", "10.0.0.1", "example.com", "localhost.example.com", "", "::"):
        assert not is_loopback(host), host


def test_listening_beyond_loopback_needs_a_token_of_some_length() -> None:
    with pytest.raises(ValueError, match="--auth-token"):
        HttpOptions(port=8931, host="0.0.0.0")
    with pytest.raises(ValueError, match="16 characters"):
        HttpOptions(port=8931, token="short")
    with pytest.raises(ValueError, match="idle-timeout"):
        HttpOptions(port=8931, idle_timeout=0)
    assert HttpOptions(port=8931, host="0.0.0.0", token=TOKEN).token == TOKEN
    assert TOKEN not in repr(HttpOptions(port=8931, token=TOKEN))


def test_the_token_is_required_when_set_and_never_quoted() -> None:
    options = HttpOptions(port=0, token=TOKEN)
    host = {"host": "127.0.0.1:8931"}
    assert refusal({**host, "authorization": f"Bearer {TOKEN}"}, options) is None
    assert refusal({**host, "authorization": f"bearer {TOKEN}"}, options) is None
    for wrong in ({}, {"authorization": TOKEN}, {"authorization": f"Bearer {TOKEN}x"}, {"authorization": "Basic a"}):
        refused = refusal({**host, **wrong}, options)
        assert refused is not None and refused[0] == 401, wrong
        assert TOKEN not in refused[1]
    assert refusal(host, HttpOptions(port=0)) is None  # loopback without a token: open to local clients


def test_a_browser_page_elsewhere_and_a_rebound_name_are_refused() -> None:
    options = HttpOptions(port=0, allowed_origins=("https://app.example",))
    host = {"host": "localhost:8931"}
    for origin in ("http://127.0.0.1:3000", "http://localhost", "https://app.example"):
        assert refusal({**host, "origin": origin}, options) is None, origin
    for origin in ("https://evil.example", "null", "http://127.0.0.1.evil.example"):
        assert refusal({**host, "origin": origin}, options) == (
            403, f"origin {origin} is not allowed (--allowed-origin adds one)")
    # DNS rebinding: a name the attacker controls, now resolving to 127.0.0.1.
    assert refusal({"host": "evil.example:8931"}, options) == (
        403, "host evil.example:8931 is not this server's loopback address")
    assert refusal({"host": "[::1]:8931"}, options) is None
    assert refusal({}, options) is not None
    # Listening beyond loopback, the Host is whatever name clients reach it by; the token guards.
    wide = HttpOptions(port=0, host="0.0.0.0", token=TOKEN)
    assert refusal({"host": "browsers.internal:8931", "authorization": f"Bearer {TOKEN}"}, wide) is None


def test_a_client_is_idle_only_with_nothing_in_flight_for_the_whole_timeout() -> None:
    book = ClientBook()
    assert book.client(None) is None
    assert [book.client("A"), book.client("B"), book.client("A")] == ["c1", "c2", "c1"]
    book.begin("A")
    book.begin("B")
    book.end("B", now=100.0)
    assert book.idle(now=100.0 + 59, timeout=60) == []
    assert book.idle(now=100.0 + 60, timeout=60) == ["B"]
    # A's open stream (a GET, a long call) keeps it, however long.
    assert "A" not in book.idle(now=10_000.0, timeout=60)
    book.end("A", now=10_000.0)
    assert book.idle(now=10_060.0, timeout=60) == ["A", "B"]
    assert book.forget("B") == "c2" and book.forget("B") is None
    assert book.client("C") == "c3"  # ids are never reused


async def test_the_reaper_closes_an_idle_clients_sessions_once(autojump_clock: object) -> None:
    closed: list[tuple[str, float]] = []

    async def close_client(client: str) -> list[str]:
        closed.append((client, trio.current_time()))
        return []

    book = ClientBook()
    async with trio.open_nursery() as nursery:
        # No manager: the reaper never reaches the transport.
        gateway = Gateway(None, HttpOptions(port=0, idle_timeout=60), book, close_client, nursery)  # type: ignore[arg-type]
        book.begin("A")
        book.end("A", trio.current_time())
        book.begin("B")  # in flight the whole time
        nursery.start_soon(gateway.reap)
        await trio.sleep(59)
        assert closed == []
        await trio.sleep(20)  # the reaper looks every 15 s
        assert [client for client, _ in closed] == ["c1"] and 60 <= closed[0][1] <= 75
        await trio.sleep(600)
        assert [client for client, _ in closed] == ["c1"]  # forgotten: closed once; B never
        nursery.cancel_scope.cancel()


def test_an_id_the_sdk_never_served_is_no_client() -> None:
    book = ClientBook()
    book.begin("made-up")
    book.end("made-up", now=1.0, accepted=False)
    assert book.forget("made-up") is None  # gone already: nothing to close
    book.begin("real")
    book.end("real", now=1.0)
    book.begin("real")
    book.end("real", now=2.0, accepted=False)  # a later 4xx does not unmake it
    assert book.idle(now=100.0, timeout=60) == ["real"]
