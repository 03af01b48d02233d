"""``emulate`` and ``pdf_save`` on firefox: BiDi's ``emulation.*`` and ``browsingContext.print``.

Emulation is kept as chromium keeps it (each field by its JSON name; left out keeps,
``null`` clears, ``{}`` reports) and set for the session's whole user context
(``userContexts``), so a tab opened later has it too. BiDi (Firefox 153) carries the
locale, the time zone, the geolocation, the user agent and going offline; it has no
command for the ``prefers-*`` media features, network throttling or a CPU slowdown,
so those are refused naming the field, before anything changes. Permissions are granted
per origin (``permissions.setPermission``): to the current page's origin, which the
result names.

``pdf_save`` prints with the same paper sizes and defaults as chromium's, in
centimetres as BiDi takes them, and saves through the workspace chokepoint.
"""

from __future__ import annotations

import base64
import time
from urllib.parse import urlsplit

from ....bidi import BidiError
from ....errors import ToolError
from ....jsonsafe import JsonObject, JsonValue
from ....tools import Reply
from ....tools.page import EMULATED, EmulateArgs, PdfSaveArgs
from ....workspace import file_to_write, save_file
from ...chromium.page.pdf import PAPER, count_pages, default_path
from ...context_options import ContextOptions
from ..host import FirefoxHost

__all__ = ["UNSUPPORTED", "emulate", "pdf_save", "start_with"]

#: Fields BiDi has no command for, and why.
UNSUPPORTED = {
    "colorScheme": "WebDriver BiDi on Firefox 153 has no command for prefers-color-scheme",
    "reducedMotion": "WebDriver BiDi on Firefox 153 has no command for prefers-reduced-motion",
    "cpuSlowdown": "WebDriver BiDi has no CPU throttling",
    "networkConditions": "WebDriver BiDi's network conditions are offline or none: no throttling",
}
_CM_PER_INCH = 2.54


def _refuse_unsupported(given: JsonObject) -> None:
    for name, why in UNSUPPORTED.items():
        if given.get(name) is not None:
            raise ToolError("not-supported", f"{name}: {why}; a chromium session emulates it", field=name,
                            engine="firefox")
    if given.get("network") not in (None, "offline"):
        raise ToolError("not-supported", f"network {given['network']}: WebDriver BiDi can take a page offline but "
                        "not throttle it; a chromium session emulates it", field="network", engine="firefox")


async def _apply(session: FirefoxHost, name: str, value: JsonValue) -> None:
    scope: JsonObject = {"userContexts": [session.user_context]}
    send = session.bidi.send
    if name == "locale":
        await send("emulation.setLocaleOverride", {"locale": value, **scope})
    elif name == "timezone":
        await send("emulation.setTimezoneOverride", {"timezone": value, **scope})
    elif name == "userAgent":
        await send("emulation.setUserAgentOverride", {"userAgent": value, **scope})
    elif name == "geolocation":
        coordinates = None if not isinstance(value, dict) else {"accuracy": 1, **value}
        await send("emulation.setGeolocationOverride", {"coordinates": coordinates, **scope})
    elif name == "network":
        conditions = {"type": "offline"} if value == "offline" else None
        await send("emulation.setNetworkConditions", {"networkConditions": conditions, **scope})


async def start_with(session: FirefoxHost, context: ContextOptions) -> None:
    """What open_session asked for (user agent, locale, time zone), set on the new user
    context before its first tab and kept as emulate's state, so ``emulate {}`` reports
    it and emulate changes it like anything it set itself. Firefox refusing a value is
    ``bad-arg`` naming the field, and the session does not open."""
    for name, value in (("userAgent", context.user_agent), ("locale", context.locale),
                        ("timezone", context.timezone)):
        if value is None:
            continue
        try:
            await _apply(session, name, value)
        except BidiError as err:
            raise ToolError("bad-arg", f"Firefox refused {name}: {err.message or err.error}", field=name) from err
        session.emulation[name] = value


async def _grant(session: FirefoxHost, names: list[str], state: str) -> str | None:
    """Each permission set to ``state`` for the current page's origin; that origin, or
    None for a page without one (about:blank, data:)."""
    parts = urlsplit(session.tab.url)
    if parts.scheme not in ("http", "https"):
        return None
    origin = f"{parts.scheme}://{parts.netloc}"
    for name in names:
        await session.bidi.send("permissions.setPermission", {"descriptor": {"name": name}, "state": state,
                                                              "origin": origin, "userContext": session.user_context})
    return origin


async def emulate(session: FirefoxHost, args: EmulateArgs) -> Reply:
    given = args.json()
    _refuse_unsupported(given)
    asked = sorted(name for name in EMULATED if name in given)
    state = session.emulation
    reply = Reply(warnings=[])
    for name in asked:
        if name == "permissions":
            continue
        try:
            await _apply(session, name, given[name])
        except BidiError as err:
            raise ToolError("bad-arg", f"Firefox refused {name}: {err.message or err.error}", field=name) from err
        if given[name] is None:
            state.pop(name, None)
        else:
            state[name] = given[name]
    if "permissions" in asked:
        granted = list(given["permissions"] or [])
        revoked = [p for p in state.get("permissions") or [] if p not in granted]
        try:
            origin = await _grant(session, granted, "granted")
            await _grant(session, revoked, "prompt")
        except BidiError as err:
            raise ToolError("bad-arg", f"Firefox refused a permission: {err.message or err.error}",
                            field="permissions") from err
        if origin is None and granted:
            reply.warn("permissions are granted per origin on firefox and this page has none: open the site first")
        elif granted:
            reply.warn(f"permissions granted to {origin} only (firefox grants per origin)")
        if granted:
            state["permissions"] = granted
        else:
            state.pop("permissions", None)
    reply.fields.update(emulation=dict(state), changed=asked)
    if state.get("geolocation") and "geolocation" not in (state.get("permissions") or ()):
        reply.warn("pages read the emulated position only with the geolocation permission: add it to permissions")
    return reply


async def pdf_save(session: FirefoxHost, args: PdfSaveArgs) -> Reply:
    target = file_to_write(session.workspace, args.path or default_path(session.session_id, time.time()))
    width, height = PAPER[args.format]
    params: JsonObject = {"context": session.tab.context, "background": args.print_background,
                          "orientation": "landscape" if args.landscape else "portrait", "scale": args.scale,
                          "page": {"width": round(width * _CM_PER_INCH, 3), "height": round(height * _CM_PER_INCH, 3)}}
    if args.page_ranges:
        params["pageRanges"] = [part.strip() for part in args.page_ranges.split(",") if part.strip()]
    try:
        printed = await session.bidi.send("browsingContext.print", params, timeout=120)
    except BidiError as err:
        if err.error == "invalid argument" and args.page_ranges:
            raise ToolError("bad-arg", f"pageRanges: {err.message}", field="pageRanges") from err
        raise
    data = base64.b64decode(printed["data"])
    await save_file(target, data)
    return Reply.of(path=str(target), byteLength=len(data), pages=count_pages(data), format=args.format,
                    landscape=args.landscape)
