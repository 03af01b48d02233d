"""Storage (capability ``storage``): cookies, localStorage and sessionStorage, and the
whole state to a workspace file and back, so a login is done once.

Cookies are the session's browser context's (``Storage.getCookies`` and kin, by context
id); page storage is read and written with the ``DOMStorage`` domain, by storage key,
never through the page's own ``localStorage`` object (a page can replace that). A value
that matches a registered secret comes back as its ``<NAME>``, like any result.

``storage_state_save`` writes what Playwright's ``storageState`` holds: ``{cookies,
origins: [{origin, localStorage: [{name, value}]}]}`` for the origins of the session's
open tabs and their frames, so the file also works with Playwright.
``storage_state_load`` puts it back: cookies at once, and each origin's storage through
the tab that has it open, or a helper page that loads a blank document at that origin
(answered by the session itself, so no request leaves) and closes again. The file's
format and the cookie rules are :mod:`.state_file`'s, which firefox shares.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from playwright.async_api import Route

from ....cdp import CdpError, CdpFailure, TargetLink
from ....errors import ToolError
from ....jsonsafe import JsonObject
from ....tools import Reply
from ....tools.contract import SessionArgs
from ....tools.storage import (
    CookiesDeleteArgs,
    CookiesListArgs,
    CookiesSetArgs,
    StorageClearArgs,
    StorageGetArgs,
    StorageSetArgs,
    StorageStateArgs,
)
from ....workspace import file_to_write, save_file
from ..tabs.tabset import Tab
from .state_file import (
    clip,
    cookie_line,
    domain_matches,
    origin_of,
    parse_state,
    public_cookie,
    read_state,
)

if TYPE_CHECKING:
    from ..session import ChromiumSession

__all__ = ["cookies_clear", "cookies_delete", "cookies_list", "cookies_set", "storage_clear", "storage_get",
           "storage_set",
           "storage_state_load", "storage_state_save"]

_SAME_SITE = ("Strict", "Lax", "None")


async def _cookies(session: ChromiumSession) -> list[JsonObject]:
    assert session.browser is not None
    reply = await session.browser.cdp.send("Storage.getCookies", _context(session))
    return list(reply.get("cookies") or [])


def _context(session: ChromiumSession) -> JsonObject:
    return {"browserContextId": session.context_id} if session.context_id else {}


async def cookies_list(session: ChromiumSession, args: CookiesListArgs) -> Reply:
    cookies = await _cookies(session)
    if args.domain:
        cookies = [c for c in cookies if domain_matches(c, args.domain)]
    if args.name is not None:
        chosen = [public_cookie(c) for c in cookies if c.get("name") == args.name]
        return Reply.of(cookies=chosen, count=len(chosen))
    return Reply.of(cookies=[cookie_line(c) for c in cookies], count=len(cookies))


async def cookies_set(session: ChromiumSession, args: CookiesSetArgs) -> Reply:
    cookie: JsonObject = {"name": args.name, "value": args.value}
    if args.domain:
        cookie.update(domain=args.domain, path=args.path or "/")
    else:
        url = args.url or (session.page.url if session.page is not None else "")
        if origin_of(url) is None:
            raise ToolError("bad-arg", "give an http(s) url or a domain for the cookie (the current page is "
                            f"{url or 'none'})", field="url")
        cookie["url"] = url
        if args.path:
            cookie["path"] = args.path
    # The protocol's cookie fields are spelled as the arguments are.
    flags = {"expires": args.expires, "httpOnly": args.http_only, "secure": args.secure, "sameSite": args.same_site}
    cookie.update({key: value for key, value in flags.items() if value is not None})
    assert session.browser is not None
    try:
        await session.browser.cdp.send("Storage.setCookies", {"cookies": [cookie], **_context(session)})
    except CdpError as err:
        raise ToolError("bad-arg", f"the browser refused the cookie: {err.message}", field="name") from err
    stored = [c for c in await _cookies(session) if c.get("name") == args.name]
    return Reply.of(set=args.name, cookies=[cookie_line(c) for c in stored])


async def cookies_delete(session: ChromiumSession, args: CookiesDeleteArgs) -> Reply:
    cookies = await _cookies(session)
    doomed = [c for c in cookies if c.get("name") == args.name
              and (not args.domain or domain_matches(c, args.domain))
              and (not args.url or domain_matches(c, urlsplit(args.url).hostname or ""))
              and (not args.path or c.get("path") == args.path)]
    await session.tab_lifecycle.attach_current()
    assert session.cdp is not None
    for cookie in doomed:
        await session.cdp.send("Network.deleteCookies", {"name": cookie["name"], "domain": cookie.get("domain"),
                                                          "path": cookie.get("path")})
    return Reply.of(deleted=len(doomed), count=len(await _cookies(session)))


async def cookies_clear(session: ChromiumSession, args: SessionArgs) -> Reply:
    before = len(await _cookies(session))
    assert session.browser is not None
    await session.browser.cdp.send("Storage.clearCookies", _context(session))
    return Reply.of(deleted=before)


# -- page storage ---------------------------------------------------------------------


async def _frames(session: ChromiumSession, tab: Tab | None = None) -> list[tuple[TargetLink, str, str]]:
    """``(session to ask, frame id, origin)`` of every frame of a tab (default the current one)."""
    if tab is None:
        await session.tab_lifecycle.attach_current()
        tab = session.tabs.current
    else:
        await session.tab_lifecycle.wire(tab)
    assert tab is not None and tab.cdp is not None and session.wiring is not None
    found: list[tuple[TargetLink, str, str]] = []

    async def walk(cdp: TargetLink) -> None:
        try:
            tree = (await cdp.send("Page.getFrameTree"))["frameTree"]
        except CdpFailure:
            return
        stack = [tree]
        while stack:
            node = stack.pop()
            frame = node.get("frame") or {}
            origin = origin_of(str(frame.get("url", "")))
            if origin is not None:
                found.append((cdp, str(frame.get("id")), origin))
            stack.extend(node.get("childFrames") or [])

    await walk(tab.cdp)
    for child, page in list(session.wiring.frames.values()):
        if page == tab.target_id and child.lost is None:
            await walk(child)
    return found


async def _storage_id(session: ChromiumSession, wanted: str | None,
                      kind: str) -> tuple[TargetLink, JsonObject, str]:
    """The session to ask, the ``DOMStorage`` storage id and the origin of the ``kind``
    storage (local or session) of the frame with origin ``wanted`` (default: the page's)."""
    frames = await _frames(session)
    if not frames:
        raise ToolError("target-not-found", "the current page has no http(s) origin with storage", field="origin")
    if wanted is None:
        cdp, frame_id, origin = frames[0]
    else:
        match = next((f for f in frames if f[2] == wanted.rstrip("/")), None)
        if match is None:
            raise ToolError("target-not-found", f"no frame of the current tab has origin {wanted!r} (origins: "
                            f"{sorted({f[2] for f in frames})})", field="origin")
        cdp, frame_id, origin = match
    key = (await cdp.send("Storage.getStorageKey", {"frameId": frame_id}))["storageKey"]
    return cdp, {"storageKey": key, "isLocalStorage": kind == "local"}, origin


async def storage_get(session: ChromiumSession, args: StorageGetArgs) -> Reply:
    cdp, storage_id, origin = await _storage_id(session, args.origin, args.kind)
    entries = (await cdp.send("DOMStorage.getDOMStorageItems", {"storageId": storage_id}))["entries"]
    if args.key is not None:
        value = next((v for k, v in entries if k == args.key), None)
        return Reply.of(origin=origin, kind=args.kind, key=args.key, value=value, found=value is not None)
    return Reply.of(origin=origin, kind=args.kind, items=[f"{k} = {clip(v)}" for k, v in entries],
                    count=len(entries))


async def storage_set(session: ChromiumSession, args: StorageSetArgs) -> Reply:
    cdp, storage_id, origin = await _storage_id(session, args.origin, args.kind)
    await cdp.send("DOMStorage.setDOMStorageItem",
                   {"storageId": storage_id, "key": args.key, "value": args.value})
    return Reply.of(origin=origin, kind=args.kind, set=args.key)


async def storage_clear(session: ChromiumSession, args: StorageClearArgs) -> Reply:
    cdp, storage_id, origin = await _storage_id(session, args.origin, args.kind)
    if args.key is not None:
        await cdp.send("DOMStorage.removeDOMStorageItem", {"storageId": storage_id, "key": args.key})
    else:
        await cdp.send("DOMStorage.clear", {"storageId": storage_id})
    return Reply.of(origin=origin, kind=args.kind, cleared=args.key or "all")


# -- the whole state ------------------------------------------------------------------


async def storage_state_save(session: ChromiumSession, args: StorageStateArgs) -> Reply:
    target = file_to_write(session.workspace, args.path)
    cookies = [public_cookie(c) for c in await _cookies(session)]
    origins: dict[str, list[dict[str, str]]] = {}
    for tab in list(session.tabs):
        try:
            frames = await _frames(session, tab)
        except ToolError:  # that tab closed meanwhile
            continue
        for cdp, frame_id, origin in frames:
            if origin in origins:
                continue
            try:
                key = (await cdp.send("Storage.getStorageKey", {"frameId": frame_id}))["storageKey"]
                entries = (await cdp.send("DOMStorage.getDOMStorageItems",
                                          {"storageId": {"storageKey": key, "isLocalStorage": True}}))["entries"]
            except CdpFailure:
                continue
            origins[origin] = [{"name": k, "value": v} for k, v in entries]
    state = {"cookies": cookies, "origins": [{"origin": o, "localStorage": items} for o, items in origins.items()]}
    data = json.dumps(state, indent=2, ensure_ascii=False).encode("utf-8")
    await save_file(target, data)
    return Reply.of(path=str(target), cookies=len(cookies), origins=sorted(origins), byteLength=len(data))


async def storage_state_load(session: ChromiumSession, args: StorageStateArgs) -> Reply:
    source, text = await read_state(session.workspace, args.path)
    cookies, origins = parse_state(text)
    assert session.browser is not None
    if cookies:
        try:
            await session.browser.cdp.send("Storage.setCookies", {"cookies": cookies, **_context(session)})
        except CdpError as err:
            raise ToolError("bad-arg", f"the browser refused the file's cookies: {err.message}", field="path") from err
    open_frames = {origin: (cdp, frame_id) for cdp, frame_id, origin in await _frames(session)}
    for origin, pairs in origins:
        if not pairs:
            continue
        if origin in open_frames:
            cdp, frame_id = open_frames[origin]
            key = (await cdp.send("Storage.getStorageKey", {"frameId": frame_id}))["storageKey"]
            for name, value in pairs:
                await cdp.send("DOMStorage.setDOMStorageItem", {
                    "storageId": {"storageKey": key, "isLocalStorage": True}, "key": name, "value": value})
        else:
            await _through_helper(session, origin, pairs)
    return Reply.of(path=str(source), cookies=len(cookies), origins=[o for o, _ in origins])


async def _through_helper(session: ChromiumSession, origin: str, pairs: list[tuple[str, str]]) -> None:
    """Write an origin's localStorage through a helper page on a blank document of it."""
    page = await session.tab_lifecycle.open_helper_page()

    async def fill() -> None:
        async def blank(route: Route) -> None:
            await route.fulfill(status=200, content_type="text/html", body="<!doctype html><title>storage</title>")

        try:
            await page.route("**/*", blank)
            await page.goto(origin + "/", wait_until="domcontentloaded", timeout=15_000)
            await page.evaluate("pairs => { for (const [k, v] of pairs) localStorage.setItem(k, v); }",
                                [list(p) for p in pairs])
        finally:
            await page.close()

    await session.pw(fill)


