"""The pure part of open_session's further context options: what merge passes through
and what a session keeps of it, and the argument rules that refuse them where they
cannot apply."""

from __future__ import annotations

import pytest

from browx_actors.errors import ToolError
from browx_actors.sessions.context_options import ContextOptions, merge
from browx_actors.tools.rules import Check
from browx_actors.tools.sessions import OPEN_SESSION


def check(args: dict[str, object]) -> None:
    """open_session's argument rules over ``args``, as the dispatch runs them."""
    for rule in OPEN_SESSION.rules:
        if isinstance(rule, Check):
            rule.check(args)


def no_device(name: str) -> dict[str, object]:
    raise AssertionError(name)


def test_storage_state_is_passed_through_and_kept_but_not_given_to_playwright_as_is() -> None:
    merged = merge({"storageState": "state/login.json"}, no_device)
    assert merged["storageState"] == "state/login.json"
    kept = ContextOptions.of(merged)
    assert kept.storage_state == "state/login.json"
    assert "storage_state" not in kept.playwright()  # the session reads the file through the workspace


@pytest.mark.parametrize("engine", ["android-app", "ios-app"])
def test_storage_state_is_for_browser_engines(engine: str) -> None:
    with pytest.raises(ToolError) as caught:
        check({"session": "s", "engine": engine, "storageState": "a.json"})
    assert caught.value.details["field"] == "storageState"


def test_an_attached_session_refuses_a_storage_state() -> None:
    with pytest.raises(ToolError) as caught:
        check({"session": "s", "engine": "chromium", "cdpEndpoint": "ws://h:1/x", "storageState": "a"})
    assert caught.value.details["field"] == "storageState"
