"""What a failed chromium call tells its caller, pure: a known failure's code, or nothing.

The session actor is the boundary of a tool handler's failure (``session.py``): a
handler that raises fails its call and the session serves on. Before the failure
becomes an ``internal`` error, :func:`known_failure` recognises what Playwright says
about the caller's own input, so the agent hears which argument to fix:

- a selector Playwright cannot parse (CSS, XPath, an unknown engine, an empty
  ``role=``), raised wherever a locator is used, is ``bad-arg`` naming the argument
  that held it;
- a Playwright timeout is ``timeout``.

A handler that knows which of its arguments holds the selector says so with
:func:`selector_refusals` around its locator calls. It turns only the parse error into
``bad-arg``: a timeout, a closed page or a navigation under the call is not the
selector's fault, and goes on to the boundary, which knows what each one is. (A
catch-all there once told an agent its selector was invalid when a busy page had made
the read time out.)

Anything else is for the dispatch to report as ``internal``, with the traceback in the
server's log.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import TimeoutError as PlaywrightTimeout

from ...errors import ToolError
from ...jsonsafe import JsonValue
from .losses import first_line

__all__ = ["SELECTOR_MARKERS", "is_selector_error", "known_failure", "selector_refusal", "selector_refusals"]

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
#: Arguments that hold a selector, in the order a message is most likely about them.
_SELECTOR_ARGS = ("selector", "scope")


def _selector_field(args: Mapping[str, JsonValue], message: str) -> str:
    strings = {key: value for key, value in args.items() if isinstance(value, str) and value}
    for key, value in strings.items():
        if key in _SELECTOR_ARGS and value in message:
            return key
    return next((key for key in _SELECTOR_ARGS if key in strings), "selector")


def is_selector_error(err: BaseException) -> bool:
    """Whether ``err`` is Playwright refusing to parse a selector (never a timeout)."""
    if not isinstance(err, PlaywrightError) or isinstance(err, PlaywrightTimeout):
        return False
    message = first_line(err)
    return any(marker in message for marker in SELECTOR_MARKERS)


def known_failure(tool: str, args: Mapping[str, JsonValue], err: Exception) -> ToolError | None:
    """The ToolError a failed call of ``tool`` amounts to, or None when it is a bug."""
    if isinstance(err, PlaywrightTimeout):
        return ToolError("timeout", f"{tool}: {first_line(err)}")
    if is_selector_error(err):
        return selector_refusal(_selector_field(args, first_line(err)), err)
    return None


def selector_refusal(field: str, err: BaseException) -> ToolError:
    """``bad-arg`` naming ``field``, whose selector Playwright could not parse (``err``)."""
    return ToolError("bad-arg", f"{field} is not a valid selector: {first_line(err)}", field=field)


@contextmanager
def selector_refusals(field: str = "selector") -> Iterator[None]:
    """Inside: a selector Playwright cannot parse is ``bad-arg`` naming ``field``; every
    other error passes through unchanged, for the call boundary to classify."""
    try:
        yield
    except PlaywrightError as err:
        if not is_selector_error(err):
            raise
        raise selector_refusal(field, err) from err
