"""Which argument a selector refusal names, and what counts as one (``failures.py``), pure.

What Playwright says for a broken regular expression in a selector (``text=/[/``) carries
its injected script's frames; the same words thrown by a page's own script do not, and
stay the page's. A refusal raised deep in a handler names ``selector``; the boundary
names the argument the tool took it in (``from.selector``, ``fields[1].selector``, and
``scope`` from the page agent's CSS refusal). ``nth=`` bodies that are no index are
refused before anything is asked of the page.
"""

from __future__ import annotations

import pytest
from playwright.async_api import Error as PlaywrightError

from browx_actors.errors import ToolError
from browx_actors.sessions.chromium.failures import (
    is_selector_error,
    known_failure,
    nth_flaw,
    refuse_unusable_selectors,
    selector_paths,
    selector_refusal,
    selector_refusals,
)

#: Playwright's words for a selector engine compiling a pattern it cannot, as recorded.
REGEX_IN_SELECTOR = (
    "Locator.count: SyntaxError: Invalid regular expression: /[/: Unterminated character class\n"
    "    at new RegExp (<anonymous>)\n"
    "    at createTextMatcher (<anonymous>:8518:16)\n"
    "    at Object.queryAll (<anonymous>:7319:33)\n"
    "    at InjectedScript._queryEngineAll (<anonymous>:7292:49)\n"
    "    at InjectedScript.querySelectorAll (<anonymous>:7279:30)\n"
    "    at eval (eval at evaluate (:370:30), <anonymous>:2:42)"
)
BAD_FLAGS = ("Locator.wait_for: SyntaxError: Invalid flags supplied to RegExp constructor 'zz'\n"
             "    at new RegExp (<anonymous>)\n    at InjectedScript.querySelector (<anonymous>:7279:30)")
#: The same words from a script of the page's, through an evaluate.
PAGES_OWN = (
    "Page.evaluate: SyntaxError: Invalid regular expression: /[/: Unterminated character class\n"
    "    at new RegExp (<anonymous>)\n    at eval (eval at evaluate (:370:30), <anonymous>:1:1)",
    "Locator.evaluate: Error: Invalid flags supplied to RegExp constructor 'zz'",
)


@pytest.mark.parametrize("message", [REGEX_IN_SELECTOR, BAD_FLAGS])
def test_a_pattern_the_selector_engines_cannot_compile_is_the_selectors(message: str) -> None:
    err = PlaywrightError(message)
    assert is_selector_error(err)
    found = known_failure("click", {"selector": "text=/[/"}, err)
    assert found is not None and found.code == "bad-arg" and found.details == {"field": "selector"}
    assert found.message.startswith("selector is not a valid selector: Locator.") and "\n" not in found.message


@pytest.mark.parametrize("message", PAGES_OWN)
def test_the_same_words_from_the_page_are_not(message: str) -> None:
    err = PlaywrightError(message)
    assert not is_selector_error(err)
    assert known_failure("eval_js", {"expr": "x"}, err) is None
    with pytest.raises(PlaywrightError), selector_refusals():
        raise err


@pytest.mark.parametrize(("selector", "flawed"), [
    ("nth=abc", True), ("button >> nth=abc", True), ("nth=1.5", True), ("nth=-2", True), ("nth=", True),
    ("nth=0", False), ("nth=-1", False), ("div >> nth= 3 ", False), ("button", False),
    ('text="a >> nth=b"', False), ("text='nth=x'", False), ('[data-x="nth=q"]', False), ("css=a[nth=x]", False),
])
def test_an_nth_that_is_no_index(selector: str, flawed: bool) -> None:
    assert (nth_flaw(selector) is not None) is flawed


def test_every_selector_an_argument_list_holds_is_found_by_its_path() -> None:
    args = {"selector": "a", "scope": "b", "from": {"selector": "c"}, "to": {"x": 1, "y": 2},
            "fields": [{"ref": "e1", "value": "x"}, {"selector": "d", "value": "y"}], "text": "not one"}
    assert list(selector_paths(args)) == [("selector", "a"), ("scope", "b"), ("from.selector", "c"),
                                          ("fields[1].selector", "d")]


def test_an_unusable_nth_is_refused_naming_where_it_was() -> None:
    refuse_unusable_selectors({"selector": "button >> nth=0", "to": {"selector": "li"}})
    with pytest.raises(ToolError) as refused:
        refuse_unusable_selectors({"from": {"x": 1, "y": 1}, "to": {"selector": "li >> nth=last"}})
    assert refused.value.code == "bad-arg" and refused.value.details == {"field": "to.selector"}
    assert "nth='last' is not an index" in refused.value.message


def test_a_refusal_from_a_nested_target_names_the_argument_that_held_it() -> None:
    err = PlaywrightError('Locator.count: Unexpected token "" while parsing css selector "". Did you mean to '
                          "CSS.escape it?")
    with pytest.raises(ToolError) as raised, selector_refusals(selector=">>"):
        raise err
    args = {"fields": [{"selector": "#q", "value": "x"}, {"selector": ">>", "value": "y"}]}
    named = known_failure("fill_form", args, raised.value)
    assert named is not None and named.details == {"field": "fields[1].selector"}
    assert named.message.startswith("fields[1].selector is not a valid selector: Locator.count")
    # A tool that took it as `selector` already says so; other ToolErrors are left alone.
    assert known_failure("click", {"selector": ">>"}, raised.value) is None
    assert known_failure("click", {"selector": "x"}, ToolError("timeout", "late")) is None
    # Without the selector it refused, nothing is guessed.
    assert known_failure("fill_form", args, selector_refusal("selector", err)) is None


def test_the_page_agents_css_refusal_names_the_scope() -> None:
    refused = ToolError("bad-arg", 'invalid CSS selector "text=/[/"')
    named = known_failure("snapshot", {"scope": "text=/[/", "maxNodes": 10}, refused)
    assert named is not None and named.details == {"field": "scope"}
    assert named.message == 'scope is not a valid CSS selector: "text=/[/"; scope takes a ref or a CSS selector'
    assert known_failure("snapshot", {"scope": "other"}, refused) is None
