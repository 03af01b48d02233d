"""Where a session is: navigate, history, and tabs.

:func:`url_to_load` is the one reading of a ``url`` argument every engine shares: a bare
host gets ``https://``, a web URL stays what it is, and an app's deep link
(``myapp://checkout/42``) is left for the native engines, which open it; a script URL, a
``file:`` URL or one of the browser's own pages is refused before anything runs.
"""

from __future__ import annotations

import re

from ..errors import ToolError
from .arguments import arg, arguments, param
from .contract import CHANGES, DESTROYS, OPENS, READS, SessionArgs, session_tool
from .params import MAX_ID, Param
from .rules import Check, JsonArgs

__all__ = ["WEB_SCHEMES", "url_to_load"]

#: What a browser session loads; anything else with a scheme is an app's deep link.
WEB_SCHEMES = ("http://", "https://", "about:", "data:")
#: Schemes no session navigates to: script URLs, the browser's own pages, and network
#: protocols that are no app's deep link.
_REFUSED_SCHEMES = frozenset({"javascript", "vbscript", "chrome", "chrome-extension", "chrome-untrusted",
                              "devtools", "view-source", "blob", "filesystem", "intent", "ftp", "ftps", "sftp",
                              "ws", "wss"})
_APP_LINK = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*)://\S+$")
#: A scheme, as opposed to a bare host with a port (``localhost:8080``).
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:(?!\d)")


def url_to_load(url: str) -> str:
    """The URL to load: a bare host gets ``https://``."""
    if not url.startswith(WEB_SCHEMES) and _SCHEME.match(url) is None:
        url = "https://" + url
    return url


def _check_url(args: JsonArgs) -> None:
    """A web URL, a bare host, or an app deep link (``myapp://checkout/42``) for a native
    session; never a script URL or one of the browser's own pages."""
    url = args.get("url")
    if url is None:
        return  # new_tab without a url: a blank tab
    if url[:5].lower() == "file:":
        raise ToolError("bad-arg", "file: URLs are refused: the server reads no file outside its workspace; serve "
                        "the page over http(s) instead", field="url")
    if url.startswith(WEB_SCHEMES) or _SCHEME.match(url) is None:
        return
    link = _APP_LINK.match(url)
    if link is None or link.group(1).lower() in _REFUSED_SCHEMES:
        raise ToolError("bad-arg", f"unsupported URL scheme in {url!r}", field="url")


_URL_RULE = Check(_check_url, "`url` is http(s), about or data (file: is refused; a bare host gets https://), or an "
                  "app deep link (`myapp://...`) on android-app and ios-app")
_WAIT_UNTIL = Param("waitUntil", "string", "", default="load",
                    enum=("load", "domcontentloaded", "networkidle", "commit"))
_NAVIGATION_TIMEOUT = Param("timeoutMs", "integer", "", default=30_000, minimum=0, maximum=120_000)


@arguments
class NavigateArgs(SessionArgs):
    """navigate's arguments."""

    url: str = param("url", "string", "URL (https:// if no scheme), or an app's deep link.", required=True)
    wait_until: str = arg(_WAIT_UNTIL)
    timeout_ms: int = arg(_NAVIGATION_TIMEOUT)


NAVIGATE = session_tool(
    "navigate", NavigateArgs,
    title="Navigate", capability="navigation", hints=OPENS,
    summary="Load a URL in the session's page and wait for it.",
    description="Load a URL in the session's page and wait for it: for the load state `waitUntil` names, within the "
        "navigation timeout `timeoutMs`. `url` is an absolute URL (https:// is assumed without a scheme); on "
        "android-app and ios-app, a deep link with the app's scheme (`myapp://checkout/42`).",
    rules=(_URL_RULE,),
)


GO_BACK = session_tool(
    "go_back", SessionArgs,
    title="Go back", capability="navigation", hints=OPENS,
    summary="Go back in the session's history.",
)


GO_FORWARD = session_tool(
    "go_forward", SessionArgs,
    title="Go forward", capability="navigation", hints=OPENS,
    summary="Go forward in the session's history.",
)


LIST_TABS = session_tool(
    "list_tabs", SessionArgs,
    title="List tabs", capability="read", hints=READS,
    summary="List the session's tabs, popups too: url, title, which is current, crashed, open dialog.",
    description="The session's tabs (pages a link or script opened included): id, url, title, which one is current, "
        "and whether its renderer crashed (navigate recovers a crashed tab), and the dialog open on it, if "
        "any (handle_dialog answers it once select_tab made it current). Tools act on the current tab.",
)


@arguments
class SelectTabArgs(SessionArgs):
    """select_tab's arguments."""

    tab: int = param("tab", "integer", "Tab id, from list_tabs or an action's opened.", required=True, minimum=1,
                     maximum=MAX_ID)


SELECT_TAB = session_tool(
    "select_tab", SelectTabArgs,
    title="Select tab", capability="navigation", hints=CHANGES,
    summary="Make a tab current: later tools act on it.",
    description="Make tab `tab` current: later tools act on it.",
)


@arguments
class NewTabArgs(SessionArgs):
    """new_tab's arguments."""

    url: str | None = param("url", "string", "URL, as for navigate; omit it for a blank tab.")
    wait_until: str = arg(_WAIT_UNTIL)
    timeout_ms: int = arg(_NAVIGATION_TIMEOUT)


NEW_TAB = session_tool(
    "new_tab", NewTabArgs,
    title="New tab", capability="navigation", hints=OPENS,
    summary="Open a new current tab (same cookies and storage), blank unless url is given.",
    description="Open a new tab in the session (same cookies and storage), make it current, and load `url` in it if "
        "given, as navigate does (`waitUntil` is the load state to wait for, `timeoutMs` the navigation timeout); "
        "without `url` the tab stays blank.",
    rules=(Check(_check_url, "`url` follows navigate's rules"),),
)


@arguments
class CloseTabArgs(SessionArgs):
    """close_tab's arguments."""

    tab: int | None = param("tab", "integer", "", minimum=1, maximum=MAX_ID)


CLOSE_TAB = session_tool(
    "close_tab", CloseTabArgs,
    title="Close tab", capability="navigation", hints=DESTROYS,
    summary="Close a tab (default: the current one).",
    description="Close a tab (`tab`, a tab id; default: the current one). The tab opened before it becomes "
        "current; closing the last one leaves a fresh blank tab.",
)
