"""What a failed chromium call tells its caller, pure: a known failure's code, or nothing.

The session actor is the boundary of a tool handler's failure (``session.py``): a
handler that raises fails its call and the session serves on. Before the failure
becomes an ``internal`` error, :func:`known_failure` recognises what Playwright says
about the caller's own input, so the agent hears which argument to fix:

- a selector Playwright cannot parse (CSS, XPath, an unknown engine, an empty
  ``role=``), raised wherever a locator is used, is ``bad-arg`` naming the argument
  that held it; so is a regular expression in one that JavaScript cannot compile
  (``text=/[/``, ``internal:label=/(/``), which Playwright's engines only find out
  while they query, in the page: that error is told from a page's own by the stack it
  carries, which runs through Playwright's injected script (:func:`is_selector_error`);
- a Playwright timeout is ``timeout``; when its call log says what the actionability
  wait waited for (:func:`waited_on`), the error carries it as ``reason`` (and the
  cover as ``coveredBy``), so a timeout is never silent about why.

A handler that knows which of its arguments holds the selector says so with
:func:`selector_refusals` around its locator calls. It turns only the parse error into
``bad-arg``: a timeout, a closed page or a navigation under the call is not the
selector's fault, and goes on to the boundary, which knows what each one is. (A
catch-all there once told an agent its selector was invalid when a busy page had made
the read time out.) A refusal raised that way deep in a handler names ``selector``;
the boundary names the argument the tool took it in when that is another
(:func:`known_failure` on a ToolError): drag's ``from.selector``, fill_form's
``fields[1].selector`` (found by the selector the refusal carries,
:class:`SelectorRefused`), and the ``scope`` of snapshot and find, which the page agent
refuses as CSS without naming it.

One mistake Playwright never reports: an ``nth=`` part that is not an index
(``nth=abc``, ``nth=1.5``) matches nothing, so the call would answer that no element
matches. :func:`refuse_unusable_selectors` refuses it before the call, as ``bad-arg``
naming the argument.

Anything else is for the dispatch to report as ``internal``, with the exception's type
and message on one line in the server's log.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping
from contextlib import contextmanager

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import TimeoutError as PlaywrightTimeout

from ...errors import ToolError
from ...jsonsafe import JsonValue
from .losses import first_line

__all__ = [
    "SELECTOR_MARKERS",
    "SelectorRefused",
    "is_selector_error",
    "known_failure",
    "nth_flaw",
    "refuse_unusable_selectors",
    "selector_paths",
    "selector_refusal",
    "selector_refusals",
    "waited_on",
]

#: Phrases Playwright (and the browser under it) use for a selector it cannot parse.
SELECTOR_MARKERS = (
    "while parsing css selector",
    "while parsing selector",
    "InvalidSelectorError",
    "is not a valid selector",
    "is not a valid XPath expression",
    "Unknown engine",
    "Selector cannot",
)
#: What V8 says of a regular expression it cannot compile (a pattern, or its flags).
_REGEX_MARKERS = ("SyntaxError: Invalid regular expression", "Invalid flags supplied to RegExp constructor")
#: A frame of Playwright's injected script, which runs the selector engines in the page.
_ENGINE_FRAME = re.compile(r"^\s*at InjectedScript\.", re.MULTILINE)
#: Arguments that hold a selector, in the order a message is most likely about them.
_SELECTOR_ARGS = ("selector", "scope")
#: The page agent's refusal of a selector it runs as CSS (agent/reading.js, refs.js).
_AGENT_CSS = re.compile(r'^invalid CSS selector (".*")$', re.DOTALL)
#: An ``nth=`` index as Playwright takes it: an integer, -1 for the last.
_INDEX = re.compile(r"^\s*-?\d+\s*$")


def _selector_field(args: Mapping[str, JsonValue], message: str) -> str:
    strings = {key: value for key, value in args.items() if isinstance(value, str) and value}
    for key, value in strings.items():
        if key in _SELECTOR_ARGS and value in message:
            return key
    return next((key for key in _SELECTOR_ARGS if key in strings), "selector")


#: What Playwright's call log says an actionability wait is waiting for, and its code
#: (the codes of ``agent/reach.js``).
_WAITED_ON = (
    ("intercepts pointer events", "covered"),
    ("element is not visible", "hidden"),
    ("element is not enabled", "disabled"),
    ("element is not stable", "animating"),
    ("element is outside of the viewport", "outside-viewport"),
    ("element is not editable", "read-only"),
    ("element is not attached", "detached"),
)
_COVER_MAX = 120


def waited_on(err: BaseException) -> dict[str, JsonValue] | None:
    """What a Playwright timeout's call log says the action waited for, its last word
    on it: ``{reason: code, waitedOn: the line, coveredBy?: the cover's markup}``."""
    text = str(getattr(err, "message", None) or err)
    _, marker, log = text.partition("Call log:")
    if not marker:
        return None
    for line in reversed(log.splitlines()):
        said = line.strip().lstrip("-").strip()
        for phrase, code in _WAITED_ON:
            if phrase not in said:
                continue
            found: dict[str, JsonValue] = {"reason": code, "waitedOn": said[:_COVER_MAX + 40]}
            if code == "covered":
                found["coveredBy"] = said.split(" intercepts pointer events")[0].split(" from ")[0][:_COVER_MAX]
            return found
    return None


def is_selector_error(err: BaseException) -> bool:
    """Whether ``err`` is Playwright refusing to parse a selector (never a timeout).

    A broken regular expression is only the selector's when the stack shows
    Playwright's selector engines compiling it: a page's script can throw the same words.
    """
    if not isinstance(err, PlaywrightError) or isinstance(err, PlaywrightTimeout):
        return False
    message = first_line(err)
    if any(marker in message for marker in SELECTOR_MARKERS):
        return True
    return any(marker in message for marker in _REGEX_MARKERS) and _ENGINE_FRAME.search(str(err)) is not None


def selector_paths(args: Mapping[str, JsonValue]) -> Iterator[tuple[str, str]]:
    """Every selector a tool's arguments (by JSON name) hold, with the path that names it:
    ``selector`` and ``scope``, a point target's ``from.selector``, a list item's
    ``fields[1].selector``."""
    for key, value in args.items():
        if key in _SELECTOR_ARGS and isinstance(value, str):
            yield key, value
        elif isinstance(value, Mapping) and isinstance(value.get("selector"), str):
            yield f"{key}.selector", value["selector"]
        elif isinstance(value, list):
            for index, item in enumerate(value):
                if isinstance(item, Mapping) and isinstance(item.get("selector"), str):
                    yield f"{key}[{index}].selector", item["selector"]


def _parts(selector: str) -> Iterator[str]:
    """The ``>>``-separated parts of a selector, split as Playwright splits them: not
    inside quotes, a backslash escaping the character after it."""
    start = index = 0
    quote: str | None = None
    while index < len(selector):
        char = selector[index]
        if char == "\\" and index + 1 < len(selector):
            index += 2
        elif char == quote:
            quote = None
            index += 1
        elif quote is None and char in "\"'`":
            quote = char
            index += 1
        elif quote is None and selector.startswith(">>", index):
            yield selector[start:index]
            index += 2
            start = index
        else:
            index += 1
    yield selector[start:]


def nth_flaw(selector: str) -> str | None:
    """What is wrong with an ``nth=`` part of ``selector`` (it takes an index: 0, 1, ...,
    or -1 for the last), or None. Playwright reads any other body as no index at all and
    matches nothing, so the mistake would come back as a missing element."""
    for part in _parts(selector):
        name, equals, body = part.partition("=")
        if not equals or name.strip() != "nth":
            continue
        if not _INDEX.match(body) or int(body) < -1:
            return f"nth={body.strip()!r} is not an index: nth= takes 0, 1, 2 ... or -1 for the last match"
    return None


def refuse_unusable_selectors(args: Mapping[str, JsonValue]) -> None:
    """``bad-arg`` naming the first selector in ``args`` (by JSON name) that Playwright
    would take without complaint and never match (see :func:`nth_flaw`)."""
    for path, selector in selector_paths(args):
        flaw = nth_flaw(selector)
        if flaw is not None:
            raise ToolError("bad-arg", f"{path} is not a valid selector: {flaw}", field=path)


def known_failure(tool: str, args: Mapping[str, JsonValue], err: Exception) -> ToolError | None:
    """The ToolError a failed call of ``tool`` amounts to, or None when it is a bug (or,
    for a ToolError, when it already says what it should)."""
    if isinstance(err, ToolError):
        return _renamed(args, err)
    if isinstance(err, PlaywrightTimeout):
        return ToolError("timeout", f"{tool}: {first_line(err)}")
    if is_selector_error(err):
        return selector_refusal(_selector_field(args, first_line(err)), err)
    return None


def _renamed(args: Mapping[str, JsonValue], err: ToolError) -> ToolError | None:
    """A selector refusal named after the argument that held the selector, when the
    handler that raised it could not say which (see the module notes)."""
    if err.code != "bad-arg":
        return None
    field = err.details.get("field")
    held = dict(selector_paths(args))
    if field is None:
        found = _AGENT_CSS.match(err.message)
        if found is None:
            return None
        try:
            quoted = json.loads(found.group(1))
        except ValueError:
            return None
        path = next((path for path, selector in held.items() if selector == quoted), None)
        if path is None:
            return None
        return ToolError("bad-arg", f"{path} is not a valid CSS selector: {found.group(1)}; {path} takes a ref or "
                         "a CSS selector", **{**err.details, "field": path})
    if field != "selector" or "selector" in held or not isinstance(err, SelectorRefused):
        return None
    path = next((path for path, selector in held.items() if selector == err.selector), None)
    if path is None or not err.message.startswith("selector "):
        return None
    return ToolError("bad-arg", f"{path}{err.message[len('selector'):]}", **{**err.details, "field": path})


class SelectorRefused(ToolError):
    """A selector refusal that knows the selector it refused (``selector``, not sent to
    the caller), so the boundary can name the argument that held it."""

    def __init__(self, field: str, message: str, selector: str | None) -> None:
        super().__init__("bad-arg", message, field=field)
        self.selector = selector


def selector_refusal(field: str, err: BaseException, selector: str | None = None) -> ToolError:
    """``bad-arg`` naming ``field``, whose selector (``selector``, when the caller knows
    it) Playwright could not parse (``err``)."""
    return SelectorRefused(field, f"{field} is not a valid selector: {first_line(err)}", selector)


@contextmanager
def selector_refusals(field: str = "selector", *, selector: str | None = None) -> Iterator[None]:
    """Inside: a selector Playwright cannot parse is ``bad-arg`` naming ``field``; every
    other error passes through unchanged, for the call boundary to classify. A caller
    that aims at a target it was handed (a point of a gesture, a form field) passes the
    ``selector`` it is using, so the boundary can name the argument that held it."""
    try:
        yield
    except PlaywrightError as err:
        if not is_selector_error(err):
            raise
        raise selector_refusal(field, err, selector) from err
