"""``--cdp-timeout`` / ``BROWX_CDP_TIMEOUT``: how long reaching an attached browser may take.

A fleet that starts a browser per connection can take longer than a local one to answer;
an endpoint that never answers must still be given up on, with the reason. The parser is
pure; the wait is checked against a loopback endpoint that accepts and never answers.
"""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from browx_actors.config import CDP_TIMEOUT, RuntimeConfig, parse_cdp_timeout
from e2e_support import browx_server, fails


def test_the_timeout_is_seconds_above_zero_and_at_most_ten_minutes() -> None:
    assert parse_cdp_timeout(None) == parse_cdp_timeout("") == CDP_TIMEOUT
    assert parse_cdp_timeout(" 2.5 ") == 2.5 and parse_cdp_timeout("600") == 600
    for bad in ("0", "-1", "601", "soon", "nan"):
        with pytest.raises(ValueError, match="BROWX_CDP_TIMEOUT"):
            parse_cdp_timeout(bad)
    assert RuntimeConfig.from_env({"BROWX_CDP_TIMEOUT": "7"}).cdp_timeout == 7


@contextmanager
def silent_endpoint() -> Iterator[str]:
    """A loopback port that accepts connections and never says a word."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(8)
    held: list[socket.socket] = []
    stop = threading.Event()

    def accept() -> None:
        server.settimeout(0.2)
        while not stop.is_set():
            try:
                held.append(server.accept()[0])
            except OSError:
                continue

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.getsockname()[1]}"
    finally:
        stop.set()
        thread.join()
        for conn in held:
            conn.close()
        server.close()


async def test_an_endpoint_that_never_answers_is_given_up_on_with_the_reason(tmp_path: Path) -> None:
    with silent_endpoint() as endpoint:
        async with browx_server(tmp_path / "ws", "", "--cdp-timeout", "1") as client:
            refused = await fails(client, "open_session", {"session": "grid", "cdpEndpoint": endpoint}, "unavailable")
            assert "no DevTools endpoint answers" in refused["error"] and "within 1 s" in refused["error"]
            assert "--cdp-timeout" in refused["error"]
