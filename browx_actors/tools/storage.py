"""Storage (capability ``storage``): cookies, localStorage and sessionStorage, and storage
state files (cookies and origins' storage, as Playwright writes them) in the workspace.

Values that match a registered secret come back masked.
"""

from __future__ import annotations

from .arguments import arg, arguments, param
from .contract import CHANGES, DESTROYS, READS, SessionArgs, session_tool
from .params import Param
from .rules import AtMostOne

DOMAIN = Param("domain", "string", "", max_length=255)
URL = Param("url", "string", "Page URL the cookie belongs to.", max_length=4000)
KIND = Param("kind", "string", "", default="local", enum=("local", "session"))
ORIGIN = Param("origin", "string", "A frame's origin in the current tab (default: the page's).", max_length=2000)
#: What kind says, for the page storage tools.
_KIND_NOTE = "kind is local for localStorage, session for sessionStorage."
PATH = Param("path", "string", "File under the workspace, e.g. state/login.json.", required=True, max_length=1024,
             secrets="mask")


@arguments
class CookiesListArgs(SessionArgs):
    """cookies_list's arguments."""

    name: str | None = param("name", "string", "Only cookies with this name, whole.", max_length=4096)
    domain: str | None = arg(DOMAIN)


COOKIES_LIST = session_tool(
    "cookies_list", CookiesListArgs,
    title="List cookies", capability="storage", hints=READS,
    summary="List the session's cookies, values clipped, or the cookies of one name whole.",
    description="The session's cookies, one line each (`name=value (domain path, expiry, flags)`), values clipped; "
        "`name` gives those cookies whole. `domain` narrows to a site.",
)


@arguments
class CookiesSetArgs(SessionArgs):
    """cookies_set's arguments."""

    name: str = param("name", "string", "", required=True, max_length=4096)
    value: str = param("value", "string", "Cookie value; <NAME> for a registered secret.", required=True,
                       max_length=4096, secrets="substitute")
    url: str | None = arg(URL)
    domain: str | None = arg(DOMAIN)
    path: str | None = param("path", "string", "Cookie path (with domain).", max_length=1024)
    expires: float | None = param("expires", "number",
                                  "Expiry, seconds since the epoch (none: a session cookie).", minimum=0,
                                  maximum=100000000000.0)
    http_only: bool | None = param("httpOnly", "boolean", "")
    secure: bool | None = param("secure", "boolean", "")
    same_site: str | None = param("sameSite", "string", "", enum=("Strict", "Lax", "None"))


COOKIES_SET = session_tool(
    "cookies_set", CookiesSetArgs,
    title="Set cookie", capability="storage", hints=CHANGES,
    summary="Set one cookie in the session, for a page URL or for a domain.",
    description="Set a cookie in the session (for `url`, default the current page, or for `domain` and `path`). "
        "`domain` (the cookie domain) is instead of `url`. `httpOnly` hides the cookie from page scripts; "
        "`secure` sends it over HTTPS only; `sameSite` is its SameSite policy.",
    rules=(AtMostOne(("url", "domain")),),
)


@arguments
class CookiesDeleteArgs(SessionArgs):
    """cookies_delete's arguments."""

    name: str = param("name", "string", "", required=True, max_length=4096)
    url: str | None = arg(URL)
    domain: str | None = arg(DOMAIN)
    path: str | None = param("path", "string", "Only cookies with this path.", max_length=1024)


COOKIES_DELETE = session_tool(
    "cookies_delete", CookiesDeleteArgs,
    title="Delete cookies", capability="storage", hints=DESTROYS,
    summary="Delete the session's cookies of one name, from every domain or from one.",
    description="Delete the session's cookies named `name` (for `url` or `domain`, default every domain; `path` "
        "narrows). `domain` is instead of `url`.",
    rules=(AtMostOne(("url", "domain")),),
)


COOKIES_CLEAR = session_tool(
    "cookies_clear", SessionArgs,
    title="Clear cookies", capability="storage", hints=DESTROYS,
    summary="Delete every cookie of the session.",
)


@arguments
class StorageGetArgs(SessionArgs):
    """storage_get's arguments."""

    kind: str = arg(KIND)
    key: str | None = param("key", "string", "One key, its value whole.", max_length=4096)
    origin: str | None = arg(ORIGIN)


STORAGE_GET = session_tool(
    "storage_get", StorageGetArgs,
    title="Read storage", capability="storage", hints=READS,
    summary="Read the page's localStorage or sessionStorage: every key, values clipped, or one key whole.",
    description="localStorage (or sessionStorage) of the current page's origin, or of a frame's `origin`: every key "
        f"with its value clipped, or one `key` whole. {_KIND_NOTE}",
)


@arguments
class StorageSetArgs(SessionArgs):
    """storage_set's arguments."""

    kind: str = arg(KIND)
    key: str = param("key", "string", "", required=True, max_length=4096)
    value: str = param("value", "string", "Value; <NAME> for a registered secret.", required=True, max_length=5000000,
                       secrets="substitute")
    origin: str | None = arg(ORIGIN)


STORAGE_SET = session_tool(
    "storage_set", StorageSetArgs,
    title="Write storage", capability="storage", hints=CHANGES,
    summary="Set one key of the page's localStorage or sessionStorage.",
    description=f"Set one key of localStorage (or sessionStorage) of the current page's origin. {_KIND_NOTE}",
)


@arguments
class StorageClearArgs(SessionArgs):
    """storage_clear's arguments."""

    kind: str = arg(KIND)
    key: str | None = param("key", "string", "Only this key.", max_length=4096)
    origin: str | None = arg(ORIGIN)


STORAGE_CLEAR = session_tool(
    "storage_clear", StorageClearArgs,
    title="Clear storage", capability="storage", hints=DESTROYS,
    summary="Remove one key, or every key, of the page's localStorage or sessionStorage.",
    description="Remove one key, or every key, of localStorage (or sessionStorage) of the current page's origin. "
        f"{_KIND_NOTE}",
)


@arguments
class StorageStateArgs(SessionArgs):
    """storage_state_save's arguments."""

    path: str = arg(PATH)


STORAGE_STATE_SAVE = session_tool(
    "storage_state_save", StorageStateArgs,
    title="Save storage state", capability="storage", hints=READS,
    summary="Save the session's cookies and localStorage to a workspace file, for storage_state_load.",
    description="Save the session's cookies and the localStorage of its open tabs' origins to a JSON file in the "
        "workspace (Playwright's storageState format), to load into a later session with storage_state_load.",
)


STORAGE_STATE_LOAD = session_tool(
    "storage_state_load", StorageStateArgs,
    title="Load storage state", capability="storage", hints=CHANGES,
    summary="Load cookies and localStorage from a storage-state file into the session.",
    description="Load cookies and localStorage from a storage-state file in the workspace (as storage_state_save or "
        "Playwright write it) into the session.",
)
