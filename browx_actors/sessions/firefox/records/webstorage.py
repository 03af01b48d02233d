"""localStorage and sessionStorage on firefox, and the whole storage state to a file and back.

Page storage is read and written in a sandbox realm of the frame that has the origin
(``script.callFunction`` with ``sandbox``): the sandbox sees the document's real
``Storage`` objects through Firefox's Xray wrappers, never whatever the page put in
its own ``localStorage`` global, which is what chromium's ``DOMStorage`` domain buys it.
Frames are found with ``browsingContext.getTree``.

``storage_state_save`` / ``storage_state_load`` write and read chromium's (and
Playwright's) file format with chromium's parser and the workspace's chokepoints
(``file_to_write`` / ``save_file``, ``file_to_read`` / ``load_file``). An origin in the
file that no frame of the current tab has is written through a helper tab of the
session's user context whose one request is intercepted (``network.addIntercept``) and
answered with a blank document (``network.provideResponse``), so nothing leaves for the
origin's server; the helper is closed again.
"""

from __future__ import annotations

import contextlib
import json

import trio

from ....bidi import BidiError, BidiFailure
from ....errors import ToolError
from ....jsonsafe import JsonObject, JsonValue
from ....tools import Reply
from ....tools.storage import StorageClearArgs, StorageGetArgs, StorageSetArgs, StorageStateArgs
from ....workspace import file_to_write, save_file
from ...chromium.losses import PageScriptError
from ...chromium.page.state_file import clip, origin_of, parse_state, public_cookie, read_state
from ..host import FirefoxHost
from .cookies import get_cookies, set_cookies

__all__ = ["load_at_start", "storage_clear", "storage_get", "storage_set", "storage_state_load", "storage_state_save"]

#: The sandbox realm storage is touched from (apart from the page agent's).
SANDBOX = "browx-storage"
#: ``(op) => ...``: one operation on ``localStorage`` / ``sessionStorage``; JSON text back.
_STORAGE = """(opText) => {
  const op = JSON.parse(opText);
  const store = op.kind === 'local' ? window.localStorage : window.sessionStorage;
  if (op.do === 'set') { for (const [k, v] of op.pairs) store.setItem(k, v); return 'null'; }
  if (op.do === 'remove') { store.removeItem(op.key); return 'null'; }
  if (op.do === 'clear') { store.clear(); return 'null'; }
  const out = [];
  for (let i = 0; i < store.length; i++) { const k = store.key(i); out.push([k, store.getItem(k)]); }
  return JSON.stringify(out);
}"""
_BLANK = "<!doctype html><title>storage</title>"


async def _run(session: FirefoxHost, context: str, op: JsonObject) -> JsonValue:
    answer = await session.bidi.send("script.callFunction", {
        "functionDeclaration": _STORAGE, "arguments": [{"type": "string", "value": json.dumps(op)}],
        "target": {"context": context, "sandbox": SANDBOX}, "awaitPromise": False}, timeout=session.left())
    if answer.get("type") == "exception":
        details = answer.get("exceptionDetails") or {}
        raise PageScriptError(str(details.get("text") or "page storage threw"))
    value = (answer.get("result") or {}).get("value")
    return json.loads(value) if isinstance(value, str) else None


async def frames(session: FirefoxHost, context: str) -> list[tuple[str, str]]:
    """``(context, origin)`` of every frame of a tab with an http(s) origin, the tab first."""
    tree = await session.bidi.send("browsingContext.getTree", {"root": context}, timeout=session.left())
    found: list[tuple[str, str]] = []
    stack = list(tree.get("contexts") or [])
    while stack:
        node = stack.pop(0)
        origin = origin_of(str(node.get("url") or ""))
        if origin is not None:
            found.append((str(node["context"]), origin))
        stack.extend(node.get("children") or [])
    return found


async def _frame_of(session: FirefoxHost, wanted: str | None) -> tuple[str, str]:
    found = await frames(session, session.tab.context)
    if not found:
        raise ToolError("target-not-found", "the current page has no http(s) origin with storage", field="origin")
    if wanted is None:
        return found[0]
    match = next((f for f in found if f[1] == wanted.rstrip("/")), None)
    if match is None:
        raise ToolError("target-not-found", f"no frame of the current tab has origin {wanted!r} (origins: "
                        f"{sorted({f[1] for f in found})})", field="origin")
    return match


async def storage_get(session: FirefoxHost, args: StorageGetArgs) -> Reply:
    context, origin = await _frame_of(session, args.origin)
    entries = await _run(session, context, {"do": "get", "kind": args.kind})
    pairs = [(str(k), str(v)) for k, v in entries] if isinstance(entries, list) else []
    if args.key is not None:
        value = next((v for k, v in pairs if k == args.key), None)
        return Reply.of(origin=origin, kind=args.kind, key=args.key, value=value, found=value is not None)
    return Reply.of(origin=origin, kind=args.kind, items=[f"{k} = {clip(v)}" for k, v in pairs], count=len(pairs))


async def storage_set(session: FirefoxHost, args: StorageSetArgs) -> Reply:
    context, origin = await _frame_of(session, args.origin)
    await _run(session, context, {"do": "set", "kind": args.kind, "pairs": [[args.key, args.value]]})
    return Reply.of(origin=origin, kind=args.kind, set=args.key)


async def storage_clear(session: FirefoxHost, args: StorageClearArgs) -> Reply:
    context, origin = await _frame_of(session, args.origin)
    if args.key is not None:
        await _run(session, context, {"do": "remove", "kind": args.kind, "key": args.key})
    else:
        await _run(session, context, {"do": "clear", "kind": args.kind})
    return Reply.of(origin=origin, kind=args.kind, cleared=args.key or "all")


# -- the whole state ------------------------------------------------------------------


async def storage_state_save(session: FirefoxHost, args: StorageStateArgs) -> Reply:
    target = file_to_write(session.workspace, args.path)
    cookies = [public_cookie(c) for c in await get_cookies(session)]
    origins: dict[str, list[dict[str, str]]] = {}
    for tab in list(session.tabs):
        try:
            found = await frames(session, tab.context)
        except BidiError:  # that tab closed meanwhile
            continue
        for context, origin in found:
            if origin in origins:
                continue
            try:
                entries = await _run(session, context, {"do": "get", "kind": "local"})
            except (BidiFailure, PageScriptError):  # the frame went, or its storage is off limits
                continue
            origins[origin] = [{"name": str(k), "value": str(v)} for k, v in entries] \
                if isinstance(entries, list) else []
    state = {"cookies": cookies, "origins": [{"origin": o, "localStorage": items} for o, items in origins.items()]}
    data = json.dumps(state, indent=2, ensure_ascii=False).encode("utf-8")
    await save_file(target, data)
    return Reply.of(path=str(target), cookies=len(cookies), origins=sorted(origins), byteLength=len(data))


async def storage_state_load(session: FirefoxHost, args: StorageStateArgs) -> Reply:
    source, text = await read_state(session.workspace, args.path)
    cookies, origins = await _load(session, text, field="path")
    return Reply.of(path=str(source), cookies=len(cookies), origins=origins)


async def load_at_start(session: FirefoxHost, relative: str) -> None:
    """open_session's ``storageState``: the file loaded into the new user context as
    storage_state_load would (its first tab is still blank, so every origin's storage
    goes through a helper tab); ``bad-arg`` naming storageState, and the session does
    not open."""
    _source, text = await read_state(session.workspace, relative, field="storageState")
    await _load(session, text, field="storageState")


async def _load(session: FirefoxHost, text: str, *, field: str) -> tuple[list[JsonObject], list[str]]:
    cookies, origins = parse_state(text)
    try:
        await set_cookies(session, cookies)
    except BidiError as err:
        raise ToolError("bad-arg", f"the browser refused the file's cookies: {err.message or err.error}",
                        field=field) from err
    open_frames = {origin: context for context, origin in await frames(session, session.tab.context)}
    for origin, pairs in origins:
        if not pairs:
            continue
        op: JsonObject = {"do": "set", "kind": "local", "pairs": [list(p) for p in pairs]}
        if origin in open_frames:
            await _run(session, open_frames[origin], op)
        else:
            await _through_helper(session, origin, op)
    return cookies, [o for o, _ in origins]


async def _through_helper(session: FirefoxHost, origin: str, op: JsonObject) -> None:
    """Write an origin's storage through a background helper tab whose document is a
    blank one this session answers itself."""
    bidi = session.bidi
    created = await bidi.send("browsingContext.create", {"type": "tab", "userContext": session.user_context,
                                                         "background": True}, timeout=session.left())
    helper = str(created["context"])
    send, receive = trio.open_memory_channel[str](16)

    def blocked(method: str, params: JsonObject) -> None:
        if method == "network.beforeRequestSent" and params.get("context") == helper and params.get("isBlocked"):
            send.send_nowait(str((params.get("request") or {}).get("request")))

    stop = bidi.listen(blocked)
    intercept = None
    try:
        intercept = (await bidi.send("network.addIntercept", {"phases": ["beforeRequestSent"], "contexts": [helper]},
                                     timeout=session.left()))["intercept"]
        async with trio.open_nursery() as nursery:
            async def answer() -> None:
                async for request in receive:
                    await bidi.send("network.provideResponse", {
                        "request": request, "statusCode": 200, "reasonPhrase": "OK",
                        "headers": [{"name": "Content-Type", "value": {"type": "string", "value": "text/html"}}],
                        "body": {"type": "string", "value": _BLANK}}, timeout=session.left())

            nursery.start_soon(answer)
            await bidi.send("browsingContext.navigate", {"context": helper, "url": origin + "/", "wait": "interactive"},
                            timeout=session.left())
            nursery.cancel_scope.cancel()
        await _run(session, helper, op)
    finally:
        stop()
        with trio.CancelScope(shield=True), trio.move_on_after(5), contextlib.suppress(BidiFailure):
            if intercept is not None:
                await bidi.send("network.removeIntercept", {"intercept": intercept}, timeout=5)
            await bidi.send("browsingContext.close", {"context": helper}, timeout=5)
