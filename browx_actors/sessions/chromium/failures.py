"""What a failed chromium call tells its caller, pure: a known failure's code, or nothing.

The session actor is the boundary of a tool handler's failure (``session.py``): a
handler that raises fails its call and the session serves on. Before the failure
becomes an ``internal`` error, :func:`known_failure` recognises what Playwright says
about the caller's own input, so the agent hears which argument to fix:

- a selector Playwright cannot parse (CSS, XPath, an unknown engine, an empty
  ``role=``), raised wherever a locator is used, is ``bad-arg`` naming the argument
  that held it;
- a Playwright timeout is ``timeout``.

Anything else is for the dispatch to report as ``internal``, with the traceback in the
server's log.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import TimeoutError as PlaywrightTimeout

from ...errors import ToolError

__all__ = ["SELECTOR_MARKERS", "known_failure"]

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


def _first_line(err: BaseException) -> str:
    text = str(err).strip()
    return text.splitlines()[0] if text else type(err).__name__


def _selector_field(args: Mapping[str, Any], message: str) -> str:
    strings = {key: value for key, value in args.items() if isinstance(value, str) and value}
    for key, value in strings.items():
        if key in _SELECTOR_ARGS and value in message:
            return key
    return next((key for key in _SELECTOR_ARGS if key in strings), "selector")


def known_failure(tool: str, args: Mapping[str, Any], err: Exception) -> ToolError | None:
    """The ToolError a failed call of ``tool`` amounts to, or None when it is a bug."""
    if isinstance(err, PlaywrightTimeout):
        return ToolError("timeout", f"{tool}: {_first_line(err)}")
    if isinstance(err, PlaywrightError):
        message = _first_line(err)
        if any(marker in message for marker in SELECTOR_MARKERS):
            field = _selector_field(args, message)
            return ToolError("bad-arg", f"{field} is not a valid selector: {message}", field=field)
    return None
