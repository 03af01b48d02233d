"""Storage (capability ``storage``): cookies, localStorage and sessionStorage, and storage
state files (cookies and origins' storage, as Playwright writes them) in the workspace.

Values that match a registered secret come back masked.
"""

from __future__ import annotations

from .arguments import arg, arguments, param
from .contract import CHANGES, DESTROYS, READS, SessionArgs, session_tool
from .params import Param
from .rules import AtMostOne

DOMAIN = Param("domain", "string", "Cookie domain (instead of url).", max_length=255)
URL = Param("url", "string", "Page URL the cookie belongs to (default: the current page's).", max_length=4000)
KIND = Param("kind", "string", "localStorage or sessionStorage.", default="local", enum=("local", "session"))
ORIGIN = Param("origin", "string", "Origin of a frame in the current tab (default: the page's own).", max_length=2000)
PATH = Param("path", "string", "File under the workspace, e.g. state/login.json.", required=True, max_length=1024)


@arguments
class CookiesListArgs(SessionArgs):
    """cookies_list's arguments."""

    name: str | None = param("name", "string", "Only cookies with this name, whole.", max_length=4096)
    domain: str | None = arg(DOMAIN)


COOKIES_LIST = session_tool(
    "cookies_list", CookiesListArgs,
    title="List cookies", capability="storage", hints=READS,
    summary="The session's cookies, one line each (`name=value (domain path, expiry, flags)`), values clipped; `name`"
        " gives those cookies whole.",
    description="The session's cookies, one line each (`name=value (domain path, expiry, flags)`), values clipped; "
        "`name` gives those cookies whole. `domain` narrows to a site.",
)


@arguments
class CookiesSetArgs(SessionArgs):
    """cookies_set's arguments."""

    name: str = param("name", "string", "Cookie name.", required=True, max_length=4096)
    value: str = param("value", "string", "Cookie value; <NAME> for a registered secret.", required=True,
                       max_length=4096)
    url: str | None = arg(URL)
    domain: str | None = arg(DOMAIN)
    path: str | None = param("path", "string", "Cookie path (with domain).", max_length=1024)
    expires: float | None = param("expires", "number",
                                  "Expiry in seconds since the epoch (default: a session cookie).", minimum=0,
                                  maximum=100000000000.0)
    http_only: bool | None = param("httpOnly", "boolean", "Hidden from page scripts.")
    secure: bool | None = param("secure", "boolean", "Sent over HTTPS only.")
    same_site: str | None = param("sameSite", "string", "SameSite policy.", enum=("Strict", "Lax", "None"))


COOKIES_SET = session_tool(
    "cookies_set", CookiesSetArgs,
    title="Set cookie", capability="storage", hints=CHANGES,
    summary="Set a cookie in the session (for `url`, default the current page, or for `domain` and `path`).",
    rules=(AtMostOne(("url", "domain")),),
)


@arguments
class CookiesDeleteArgs(SessionArgs):
    """cookies_delete's arguments."""

    name: str = param("name", "string", "Cookie name.", required=True, max_length=4096)
    url: str | None = arg(URL)
    domain: str | None = arg(DOMAIN)
    path: str | None = param("path", "string", "Only cookies with this path.", max_length=1024)


COOKIES_DELETE = session_tool(
    "cookies_delete", CookiesDeleteArgs,
    title="Delete cookies", capability="storage", hints=DESTROYS,
    summary="Delete the session's cookies named `name` (for `url` or `domain`, default every domain; `path` narrows).",
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
    summary="localStorage (or sessionStorage) of the current page's origin, or of a frame's `origin`: every key with "
        "its value clipped, or one `key` whole.",
)


@arguments
class StorageSetArgs(SessionArgs):
    """storage_set's arguments."""

    kind: str = arg(KIND)
    key: str = param("key", "string", "Key.", required=True, max_length=4096)
    value: str = param("value", "string", "Value; <NAME> for a registered secret.", required=True, max_length=5000000)
    origin: str | None = arg(ORIGIN)


STORAGE_SET = session_tool(
    "storage_set", StorageSetArgs,
    title="Write storage", capability="storage", hints=CHANGES,
    summary="Set one key of localStorage (or sessionStorage) of the current page's origin.",
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
    summary="Remove one key, or every key, of localStorage (or sessionStorage) of the current page's origin.",
)


@arguments
class StorageStateArgs(SessionArgs):
    """storage_state_save's arguments."""

    path: str = arg(PATH)


STORAGE_STATE_SAVE = session_tool(
    "storage_state_save", StorageStateArgs,
    title="Save storage state", capability="storage", hints=READS,
    summary="Save the session's cookies and the localStorage of its open tabs' origins to a JSON file in the "
        "workspace (Playwright's storageState format), to load into a later session with storage_state_load.",
)


STORAGE_STATE_LOAD = session_tool(
    "storage_state_load", StorageStateArgs,
    title="Load storage state", capability="storage", hints=CHANGES,
    summary="Load cookies and localStorage from a storage-state file in the workspace (as storage_state_save or "
        "Playwright write it) into the session.",
)
