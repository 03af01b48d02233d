"""How the session classifies what a failed call lost, from the words the browser and
Playwright use and never from text a page can throw: no browser here."""

from __future__ import annotations

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import TimeoutError as PlaywrightTimeout

from browx_actors.cdp import CdpConnectionLost, CdpError, TargetLinkLost
from browx_actors.sessions.chromium.losses import (
    BrowserLost,
    PageScriptError,
    first_line,
    is_crash,
    tab_crashed,
    went_away,
)
from browx_actors.sessions.chromium.tabs.tabset import Tab


def _caused_by(cause: BaseException) -> Exception:
    """A failure raised ``from cause``, as the session's handlers chain them."""
    try:
        raise RuntimeError("Page.evaluate: the call failed") from cause
    except RuntimeError as exc:
        return exc


def test_a_flat_session_lost_to_a_crashed_target_is_a_crash() -> None:
    assert is_crash(TargetLinkLost("S1", "target crashed", "T1"))
    assert is_crash(TargetLinkLost("S1", "target crashed"))
    # Target.targetCrashed's reason carries the status and error code.
    assert is_crash(TargetLinkLost("S1", "target crashed (status 9, errorCode 139)", "T1"))
    assert not is_crash(TargetLinkLost("S1", "detached from its target"))


def test_a_crash_found_behind_the_error_that_reported_it() -> None:
    assert is_crash(_caused_by(TargetLinkLost("S1", "target crashed")))
    assert is_crash(_caused_by(_caused_by(PlaywrightError("Page.evaluate: Target crashed"))))


def test_playwrights_own_words_for_a_call_on_a_crashed_page_are_a_crash() -> None:
    assert is_crash(PlaywrightError("Page.evaluate: Target crashed"))
    assert is_crash(PlaywrightError("Locator.click: Page crashed"))
    assert is_crash(PlaywrightError("Page.goto: Target crashed \n=== logs ===\nnavigating"))


def test_page_text_that_says_crashed_is_not_a_crash() -> None:
    # A script that throws new Error("Target crashed"): over raw CDP the session raises
    # the page's description, through Playwright the words come after "Error: ".
    assert not is_crash(PageScriptError("Error: Target crashed"))
    assert not is_crash(PageScriptError("Page.evaluate: Target crashed"))
    assert not is_crash(PlaywrightError("Page.evaluate: Error: Target crashed\n    at eval (eval at evaluate)"))
    assert not is_crash(_caused_by(PageScriptError("Error: Target crashed")))
    assert not is_crash(RuntimeError("Page.evaluate: Target crashed"))  # not Playwright's


def test_other_losses_are_not_crashes() -> None:
    assert not is_crash(None)
    assert not is_crash(TargetLinkLost("S1", "detached from its target"))
    assert not is_crash(CdpConnectionLost("ws://127.0.0.1:9222 closed"))
    assert not is_crash(PlaywrightError("Target page, context or browser has been closed"))
    assert not is_crash(PlaywrightTimeout("Timeout 5000ms exceeded."))


def test_a_lost_socket_or_playwrights_words_for_a_closed_target_went_away() -> None:
    assert went_away(CdpConnectionLost("ws://127.0.0.1:9222 closed"))
    assert went_away(TargetLinkLost("S1", "detached from its target"))
    assert went_away(PlaywrightError("Target page, context or browser has been closed"))
    for words in ("Target closed", "Connection closed", "Browser closed"):
        assert went_away(PlaywrightError(f"Page.click: {words}"))


def test_other_failures_did_not_go_away() -> None:
    assert not went_away(CdpError("Runtime.evaluate", -32000, "Cannot find context with specified id"))
    assert not went_away(PlaywrightTimeout("Timeout 5000ms exceeded."))
    assert not went_away(PlaywrightError("Error: strict mode violation"))


def test_a_crashed_tab_error_names_the_tab_and_the_ways_out() -> None:
    err = tab_crashed(Tab(3, page=object()))
    assert err.code == "tab-crashed"
    assert err.details == {"tab": 3}
    assert "tab 3's renderer crashed" in err.message
    assert "navigate" in err.message and "close_tab" in err.message


def test_first_line_of_a_message_or_the_type_name() -> None:
    assert first_line(PlaywrightError("Page.click: Timeout\n=== logs ===\nwaiting")) == "Page.click: Timeout"
    assert first_line(PlaywrightError("  \n padded \n")) == "padded"
    assert first_line(PageScriptError()) == "PageScriptError"
    assert first_line(RuntimeError("   ")) == "RuntimeError"


def test_browser_lost_says_which_session_ended_and_why() -> None:
    lost = BrowserLost("default", "the browser process exited (code -9)")
    assert lost.session_id == "default" and lost.reason == "the browser process exited (code -9)"
    assert str(lost) == "session 'default' ended: the browser process exited (code -9)"
