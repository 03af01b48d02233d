"""Refusing at once what cannot land (``input/reach.py``) and what a Playwright timeout
says it waited for (``failures.waited_on``), pure: no browser needed; time is MockClock's."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

import pytest
import trio
import trio.testing
from playwright.async_api import TimeoutError as PlaywrightTimeout

from browx_actors.jsonsafe import JsonObject
from browx_actors.sessions.chromium.failures import waited_on
from browx_actors.sessions.chromium.input.reach import GRACE_S, known_now, refusal, within_grace

COVERED: JsonObject = {"count": 1, "target": None, "wait": 'dialog "Cookies" is on top at its point',
                       "why": "covered", "coveredBy": 'dialog "Cookies"'}
READY: JsonObject = {"count": 1, "target": None, "ready": [10, 20]}
DISABLED: JsonObject = {"count": 1, "target": None, "wait": "not enabled", "why": "disabled"}


def _looks(answers: list[JsonObject], seen: list[float]) -> Callable[[], Awaitable[JsonObject]]:
    """A look that answers ``answers`` in turn, then COVERED, noting when it looked."""

    async def look() -> JsonObject:
        seen.append(trio.current_time())
        return answers.pop(0) if answers else COVERED

    return look


def test_what_is_known_in_one_look() -> None:
    assert known_now(COVERED)
    assert not known_now(READY) and not known_now(DISABLED)
    assert not known_now({"stale": True}) and not known_now({"notCss": True})


def test_a_cover_that_lifts_within_the_grace_is_waited_for() -> None:
    seen: list[float] = []

    async def main() -> JsonObject:
        return await within_grace(COVERED, _looks([COVERED, COVERED, READY], seen))

    found = trio.run(main, clock=trio.testing.MockClock(autojump_threshold=0))
    assert found is READY and len(seen) == 3


def test_a_cover_that_stays_is_given_up_on_after_the_grace() -> None:
    seen: list[float] = []

    async def main() -> tuple[JsonObject, float]:
        found = await within_grace(COVERED, _looks([], seen))
        return found, trio.current_time()

    found, ended = trio.run(main, clock=trio.testing.MockClock(autojump_threshold=0))
    assert found is COVERED and GRACE_S <= ended < GRACE_S + 0.1 and seen


def test_what_may_still_pass_is_not_looked_at_again() -> None:
    seen: list[float] = []

    async def main() -> JsonObject:
        return await within_grace(DISABLED, _looks([], seen))

    assert trio.run(main, clock=trio.testing.MockClock(autojump_threshold=0)) is DISABLED and not seen


@pytest.mark.parametrize(("found", "code"), [
    (COVERED, "action-failed"),
    ({"wait": "it takes no pointer events (pointer-events: none)", "why": "pointer-events-none"}, "action-failed"),
    ({"wait": "not visible", "why": "hidden"}, "not-visible"),
    ({"wait": "outside its scroll container: scrolling does not bring it into view",
      "why": "outside-scroll-container"}, "not-visible"),
])
def test_a_refusal_says_why_in_one_line_and_a_field(found: JsonObject, code: str) -> None:
    err = refusal("click", "ref e4", found)
    assert err.code == code and err.details["reason"] == found["why"]
    assert str(found["wait"]) in err.message and "\n" not in err.message
    assert err.details.get("coveredBy") == found.get("coveredBy")


#: A click's timeout as Playwright words it, call log and all.
_CALL_LOG = """Locator.click: Timeout 10000ms exceeded.
Call log:
  - waiting for locator('browxref=e5')
  -   locator resolved to <button id="covered">Under the banner</button>
  - attempting click action
  -   waiting for element to be visible, enabled and stable
  -   element is visible, enabled and stable
  -   scrolling into view if needed
  -   done scrolling
  -   <div id="banner" role="dialog">We use cookies</div> intercepts pointer events
  - retrying click action
"""


def test_a_playwright_timeout_says_what_it_waited_for() -> None:
    covered = waited_on(PlaywrightTimeout(_CALL_LOG))
    assert covered is not None and covered["reason"] == "covered"
    assert covered["coveredBy"] == '<div id="banner" role="dialog">We use cookies</div>'
    disabled = waited_on(PlaywrightTimeout("Locator.click: Timeout 10000ms exceeded.\nCall log:\n"
                                           "  - attempting click action\n  -   element is not enabled\n"))
    assert disabled is not None and disabled["reason"] == "disabled"
    assert disabled["waitedOn"] == "element is not enabled"
    assert waited_on(PlaywrightTimeout("Locator.click: Timeout 10000ms exceeded.")) is None
