"""Cookies on firefox: ``storage.getCookies`` / ``setCookie`` / ``deleteCookies`` in the
session's own partition.

Every call names ``partition: {type: storageKey, userContext}``: the session's user
context is its cookie jar, so a session sees, sets and clears only its own cookies (a
call without it would reach the default user context, shared by nobody's pages but
visible to every session). Cookies go in and out in chromium's shape (``name, value,
domain, path, expires, httpOnly, secure, sameSite``) and are listed with chromium's
:func:`~...chromium.page.state_file.cookie_line`.
"""

from __future__ import annotations

import base64
from urllib.parse import urlsplit

from ....bidi import BidiError
from ....errors import ToolError
from ....jsonsafe import JsonObject
from ....tools import Reply
from ....tools.contract import SessionArgs
from ....tools.storage import CookiesDeleteArgs, CookiesListArgs, CookiesSetArgs
from ...chromium.page.state_file import cookie_line, domain_matches, origin_of, public_cookie
from ..host import FirefoxHost

__all__ = ["cookies_clear", "cookies_delete", "cookies_list", "cookies_set", "get_cookies", "set_cookies"]

#: BiDi's sameSite -> chromium's (``default``: the browser's own default, which chromium leaves out).
_SAME_SITE = {"strict": "Strict", "lax": "Lax", "none": "None"}


def partition(session: FirefoxHost) -> JsonObject:
    assert session.user_context is not None, "the session has not started"
    return {"type": "storageKey", "userContext": session.user_context}


def from_bidi(cookie: JsonObject) -> JsonObject:
    """A BiDi cookie as chromium's: value as text, ``expires`` -1 for a session cookie."""
    raw = cookie.get("value") or {}
    value = str(raw.get("value") or "")
    if raw.get("type") == "base64":
        value = base64.b64decode(value).decode("utf-8", "replace")
    expiry = cookie.get("expiry")
    out: JsonObject = {"name": cookie.get("name"), "value": value, "domain": cookie.get("domain"),
                       "path": cookie.get("path") or "/", "expires": expiry if isinstance(expiry, (int, float)) else -1,
                       "httpOnly": bool(cookie.get("httpOnly")), "secure": bool(cookie.get("secure")),
                       "session": not isinstance(expiry, (int, float))}
    same_site = _SAME_SITE.get(str(cookie.get("sameSite")))
    if same_site:
        out["sameSite"] = same_site
    return out


def to_bidi(cookie: JsonObject) -> JsonObject:
    """Chromium's cookie fields (a storage-state file's) as BiDi's ``PartialCookie``."""
    out: JsonObject = {"name": cookie["name"], "value": {"type": "string", "value": cookie["value"]},
                       "domain": cookie["domain"], "path": cookie.get("path") or "/"}
    expires = cookie.get("expires")
    if isinstance(expires, (int, float)) and expires > 0:
        out["expiry"] = int(expires)
    for key in ("httpOnly", "secure"):
        if cookie.get(key) is not None:
            out[key] = bool(cookie[key])
    if cookie.get("sameSite"):
        out["sameSite"] = str(cookie["sameSite"]).lower()
    return out


async def get_cookies(session: FirefoxHost) -> list[JsonObject]:
    answer = await session.bidi.send("storage.getCookies", {"partition": partition(session)}, timeout=session.left())
    return [from_bidi(c) for c in answer.get("cookies") or []]


async def set_cookies(session: FirefoxHost, cookies: list[JsonObject]) -> None:
    """Set each cookie (chromium's fields) in the session's partition; BidiError if one is refused."""
    for cookie in cookies:
        await session.bidi.send("storage.setCookie", {"cookie": to_bidi(cookie), "partition": partition(session)},
                                timeout=session.left())


async def cookies_list(session: FirefoxHost, args: CookiesListArgs) -> Reply:
    cookies = await get_cookies(session)
    if args.domain:
        cookies = [c for c in cookies if domain_matches(c, args.domain)]
    if args.name is not None:
        chosen = [public_cookie(c) for c in cookies if c.get("name") == args.name]
        return Reply.of(cookies=chosen, count=len(chosen))
    return Reply.of(cookies=[cookie_line(c) for c in cookies], count=len(cookies))


async def cookies_set(session: FirefoxHost, args: CookiesSetArgs) -> Reply:
    cookie: JsonObject = {"name": args.name, "value": args.value}
    if args.domain:
        cookie.update(domain=args.domain, path=args.path or "/")
    else:
        url = args.url or session.tab.url
        if origin_of(url) is None:
            raise ToolError("bad-arg", "give an http(s) url or a domain for the cookie (the current page is "
                            f"{url or 'none'})", field="url")
        parts = urlsplit(url)
        # BiDi has no url field: the url's host is the cookie's host, as CDP makes it.
        cookie.update(domain=parts.hostname or "", path=args.path or "/")
    flags = {"expires": args.expires, "httpOnly": args.http_only, "secure": args.secure, "sameSite": args.same_site}
    cookie.update({key: value for key, value in flags.items() if value is not None})
    try:
        await set_cookies(session, [cookie])
    except BidiError as err:
        raise ToolError("bad-arg", f"the browser refused the cookie: {err.message or err.error}",
                        field="name") from err
    stored = [c for c in await get_cookies(session) if c.get("name") == args.name]
    return Reply.of(set=args.name, cookies=[cookie_line(c) for c in stored])


async def cookies_delete(session: FirefoxHost, args: CookiesDeleteArgs) -> Reply:
    cookies = await get_cookies(session)
    doomed = [c for c in cookies if c.get("name") == args.name
              and (not args.domain or domain_matches(c, args.domain))
              and (not args.url or domain_matches(c, urlsplit(args.url).hostname or ""))
              and (not args.path or c.get("path") == args.path)]
    for cookie in doomed:
        await session.bidi.send("storage.deleteCookies", {
            "filter": {"name": cookie["name"], "domain": cookie["domain"], "path": cookie["path"]},
            "partition": partition(session)}, timeout=session.left())
    return Reply.of(deleted=len(doomed), count=len(await get_cookies(session)))


async def cookies_clear(session: FirefoxHost, args: SessionArgs) -> Reply:
    before = len(await get_cookies(session))
    await session.bidi.send("storage.deleteCookies", {"partition": partition(session)}, timeout=session.left())
    return Reply.of(deleted=before)
