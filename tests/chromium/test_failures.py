"""How a failed chromium call is named (``failures.py``), pure: no browser needed."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest
from playwright.async_api import Error as PlaywrightError
from playwright.async_api import TimeoutError as PlaywrightTimeout

from browx_actors.errors import ToolError
from browx_actors.sessions.chromium.failures import is_selector_error, known_failure, selector_refusals
from browx_actors.sessions.chromium.table import TABLE
from browx_actors.tools import FIND, Runs, validate_args

#: What Playwright says, first line, for selectors it cannot parse (as recorded from it).
UNPARSABLE = (
    "Locator.count: SyntaxError: Failed to execute 'querySelectorAll' on 'Document': '[[[' is not a valid selector.",
    "Locator.count: Error: Unexpected token \"(\" while parsing css selector \"div:has(\". "
    "Did you mean to CSS.escape it?",
    "Locator.count: Unknown engine \"nosuchengine\" while parsing selector nosuchengine=x",
    "Locator.count: SyntaxError: Failed to execute 'evaluate' on 'Document': The string '//[' is not a valid XPath "
    "expression.",
)
#: Failures that are not the selector's doing, though they come from a locator call.
NOT_THE_SELECTOR = (
    PlaywrightTimeout("Locator.evaluate: Timeout 30000ms exceeded."),
    PlaywrightError("Locator.count: Execution context was destroyed, most likely because of a navigation"),
    PlaywrightError("Locator.count: Target page, context or browser has been closed"),
)


@pytest.mark.parametrize("message", UNPARSABLE)
def test_an_unparsable_selector_is_bad_arg_naming_the_argument_that_held_it(message: str) -> None:
    err = PlaywrightError(message)
    assert is_selector_error(err)
    found = known_failure("click", {"selector": "x"}, err)
    assert found is not None and found.code == "bad-arg" and found.details == {"field": "selector"}
    with pytest.raises(ToolError) as refused, selector_refusals("scope"):
        raise err
    assert refused.value.code == "bad-arg" and refused.value.details["field"] == "scope"
    assert refused.value.__cause__ is err


@pytest.mark.parametrize("err", NOT_THE_SELECTOR, ids=lambda e: type(e).__name__ + ":" + str(e)[:30])
def test_a_timeout_or_a_lost_page_passes_through_unchanged(err: PlaywrightError) -> None:
    """A busy page's timeout once came back as 'selector: ... Timeout exceeded', bad-arg:
    the agent was told to fix a selector that was fine."""
    assert not is_selector_error(err)
    with pytest.raises(type(err)) as passed, selector_refusals():
        raise err
    assert passed.value is err


def test_the_boundary_names_a_timeout_timeout_and_leaves_the_rest_to_the_dispatch() -> None:
    timed_out = known_failure("verify_text", {"selector": "#out"}, NOT_THE_SELECTOR[0])
    assert timed_out is not None and timed_out.code == "timeout" and "verify_text" in timed_out.message
    assert known_failure("verify_text", {"selector": "#out"}, NOT_THE_SELECTOR[1]) is None
    assert known_failure("verify_text", {}, ValueError("a bug")) is None


def test_the_field_is_the_argument_whose_text_the_message_quotes() -> None:
    message = "Locator.count: Unknown engine \"bad\" while parsing selector bad=x"
    assert known_failure("find", {"selector": "bad=x", "scope": "#list"}, PlaywrightError(message)).details == {
        "field": "selector"}
    assert known_failure("find", {"selector": "li", "scope": "bad=x"}, PlaywrightError(message)).details == {
        "field": "scope"}
    # What the session's boundary hands it: the tool's arguments by JSON name.
    typed = FIND.args.of(validate_args(FIND.params, {"text": "Save", "scope": "bad=x"}))
    found = known_failure("find", typed.json(), PlaywrightError(message))
    assert found is not None and found.details == {"field": "scope"}


class _TimingOutSession:
    """A session whose Playwright hop times out, as a saturated page's does."""

    page = SimpleNamespace(locator=lambda selector: SimpleNamespace(count=None))

    async def pw(self, fn: object, *args: object) -> object:
        raise NOT_THE_SELECTOR[0]


@pytest.mark.parametrize(("tool", "args"), [
    ("verify_text", {"selector": "#out", "text": "x"}),
    ("verify_visible", {"selector": "#out"}),
    ("verify_value", {"selector": "#out", "value": "x"}),
    ("verify_count", {"selector": "#out", "count": 1}),
])
async def test_a_read_that_times_out_is_not_blamed_on_its_selector(tool: str, args: dict[str, Any]) -> None:
    line = TABLE.entry(tool)
    assert isinstance(line, Runs), tool
    declared = line.tool
    checked = validate_args(declared.params, args)
    for rule in declared.rules:
        rule.check(checked)
    with pytest.raises(PlaywrightTimeout):
        await line.handler(_TimingOutSession(), declared.args.of(checked))
