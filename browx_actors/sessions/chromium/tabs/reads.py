"""Reading the page over its event session, from the Playwright thread.

An action's settle runs on the Playwright thread as one hop, and its read of the page
(the changes since the action's mark) must travel on the tab's raw *event* session:
that session's events feed the counters settle compares (requests started, errors
logged, documents committed), and a reply on it comes after every event the browser
sent on it before. :func:`read_page` takes the read through the session's
:class:`~.bridge.portal.Portal` to Trio and back.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from playwright.async_api import Page

from ....cdp import CdpError, CdpTimeout, TargetLinkLost
from ....errors import ToolError
from ....jsonsafe import JsonValue
from ..losses import PageScriptError

if TYPE_CHECKING:
    from ..session import ChromiumSession

__all__ = ["READ_TIMEOUT_S", "PageGone", "read_page"]

#: Longest a read of the page may take (a page busy in a long script answers late).
READ_TIMEOUT_S = 30.0
#: CDP's words for an evaluate whose document went away under it.
_CONTEXT_GONE = ("Execution context was destroyed", "Inspected target navigated or closed",
                 "Cannot find context", "Cannot find default execution context")


class PageGone(Exception):
    """A read found its document replaced (``closed`` False) or its tab gone (True)."""

    def __init__(self, closed: bool, reason: str) -> None:
        super().__init__(reason)
        self.closed = closed


async def read_page(session: ChromiumSession, page: Page, expression: str) -> JsonValue:
    """On the Playwright thread: ``expression``'s value (a promise awaited) in ``page``,
    evaluated over its event session. Raises :class:`PageGone` when the document was
    replaced or the tab closed, :class:`~.losses.PageScriptError` if the script threw."""
    assert session.portal is not None
    return await session.portal.run(_read, session, page, expression)


async def _read(session: ChromiumSession, page: Page, expression: str) -> JsonValue:
    tab = session.tabs.of_page(page)
    if tab is None or tab.events is None:
        raise PageGone(True, "the tab closed")
    try:
        reply = await tab.events.send("Runtime.evaluate", {"expression": expression, "awaitPromise": True,
                                                           "returnByValue": True}, timeout=READ_TIMEOUT_S)
    except TargetLinkLost as exc:
        raise PageGone(True, str(exc)) from exc
    except CdpTimeout as exc:
        raise ToolError("timeout", f"the page did not answer within {READ_TIMEOUT_S:g}s") from exc
    except CdpError as exc:
        if any(marker in exc.message for marker in _CONTEXT_GONE):
            raise PageGone(False, exc.message) from exc
        raise
    if "exceptionDetails" in reply:
        details = reply["exceptionDetails"]
        raise PageScriptError(details.get("exception", {}).get("description") or details.get("text", ""))
    return reply["result"].get("value")
