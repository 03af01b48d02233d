"""The socket's close reason as a loss message, without a socket."""

from __future__ import annotations

from trio_websocket import CloseReason

from browx_actors.cdp.transport import closed_message

URL = "ws://127.0.0.1:9222/devtools/browser/x"


def test_a_close_without_a_reason_says_closed() -> None:
    assert closed_message(URL, None) == f"CDP connection to {URL} closed: closed"


def test_a_close_names_its_code_and_the_peer_reason() -> None:
    assert closed_message(URL, CloseReason(1000, "bye")) == (
        f"CDP connection to {URL} closed: NORMAL_CLOSURE (1000): bye"
    )


def test_an_abnormal_closure_says_the_browser_went_away() -> None:
    assert closed_message(URL, CloseReason(1006, None)) == (
        f"CDP connection to {URL} closed: ABNORMAL_CLOSURE (1006)"
        " - the browser went away without closing the socket"
    )
