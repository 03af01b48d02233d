"""How a chromium session tells what a failed call lost, pure: the page, the browser, a renderer.

The session is the boundary of a tool handler's failure (``session.py``); before it
turns an exception into the call's error it asks what the exception means, and the
answer must come from what the browser or Playwright said, never from text a page
could put in an error of its own:

- :func:`went_away`: the page, its context or the browser went away under the call
  (a socket lost, or Playwright's words for a closed target). The session then asks
  the browser whether it still answers: a closed tab is ``tab-closed``, a dead browser
  ends the session with :class:`BrowserLost`;
- :func:`is_crash`: the tab's renderer crashed (CDP's flat session lost with
  ``target crashed``, or Playwright's ``Page.evaluate: Target crashed``); the call
  fails with :func:`tab_crashed`, which says how the agent gets the tab back.

Playwright's words can still be a page's: a script that throws the string ``'Target
crashed'`` comes back as exactly Playwright's message. So these answer what an error
*says*; the session asks the tab's renderer before it believes a crash or a closed tab
(:meth:`~.tabset.Tab.renderer_answers`).

:class:`PageScriptError` is the page's own script throwing, whose message is the
page's; :func:`first_line` is how every message here is cut to one line.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import TimeoutError as PlaywrightTimeout

from ...cdp import CdpConnectionLost, CdpTimeout, TargetLinkLost
from ...errors import ToolError

if TYPE_CHECKING:
    from .tabs.tabset import Tab

__all__ = ["CLOSED_MARKERS", "BrowserLost", "PageScriptError", "first_line", "is_crash", "tab_crashed",
           "timed_out", "went_away"]

#: Phrases in Playwright errors that mean the page, context or browser went away.
CLOSED_MARKERS = ("has been closed", "Target closed", "Connection closed", "Browser closed")
#: Playwright's own words for a call on a crashed page (``Page.evaluate: Target
#: crashed``); a page's script that throws the same words says ``Error: ...`` first.
_PLAYWRIGHT_CRASH = re.compile(r"^[\w.]+: (Target|Page) crashed\s*$")


def first_line(err: BaseException) -> str:
    """The first line of an error's message (its type name when it has none)."""
    return str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__


class PageScriptError(Exception):
    """A script the session evaluated in the page threw; the message is the page's."""


class BrowserLost(Exception):
    """The session's browser died; ``reason`` says how."""

    def __init__(self, session_id: str, reason: str) -> None:
        super().__init__(f"session {session_id!r} ended: {reason}")
        self.session_id = session_id
        self.reason = reason


def went_away(exc: BaseException) -> bool:
    """Whether ``exc`` says the page, its context or the browser went away (which of
    them, only asking the browser tells)."""
    return isinstance(exc, CdpConnectionLost) or any(m in str(exc) for m in CLOSED_MARKERS)


def is_crash(exc: BaseException | None) -> bool:
    """Whether ``exc`` (or what caused it) is the renderer crashing, as the browser or
    Playwright reports it, never as page text could."""
    while exc is not None:
        # Both of CDP's crash events: Inspector's "target crashed", and Target's with the
        # status and error code after it (the reasons are ours, never the page's).
        if isinstance(exc, TargetLinkLost) and exc.reason.startswith("target crashed"):
            return True
        if isinstance(exc, PlaywrightError) and _PLAYWRIGHT_CRASH.match(first_line(exc)):
            return True
        exc = exc.__cause__
    return False


def timed_out(exc: BaseException | None) -> bool:
    """Whether ``exc`` (or what caused it) is a command or a wait that got no answer in
    time: the session then asks the renderer whether its page is busy."""
    while exc is not None:
        if isinstance(exc, CdpTimeout | PlaywrightTimeout) or (isinstance(exc, ToolError) and exc.code == "timeout"):
            return True
        exc = exc.__cause__
    return False


def tab_crashed(tab: Tab) -> ToolError:
    """``tab-crashed`` for a call on ``tab``, naming the ways out."""
    return ToolError("tab-crashed", f"tab {tab.id}'s renderer crashed; navigate loads a fresh page in its place, "
                     "close_tab discards it", tab=tab.id)
