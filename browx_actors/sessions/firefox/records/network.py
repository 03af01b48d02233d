"""``network_read`` and ``network_body`` on firefox, from BiDi's ``network.*`` events.

Arguments, lines and fields are chromium's (:mod:`...chromium.network.handlers`). The
requests come from :class:`~.records.NetworkBook`; their type is Fetch's
``destination`` (or the ``initiatorType`` where there is none) named as chromium names
resource types, so ``types`` filters the same; ``preflight``, ``prefetch``,
``eventsource``, ``websocket`` and ``signedexchange`` have no BiDi equivalent and never
match (a read that asks for them says so). A request to a port Firefox bans (1, 25 and
the like) is refused before any BiDi event and never shows here, where chromium lists
it as failed.

Bodies: Firefox 153 has BiDi's data collectors. The session registers one for its user
context when it starts (:func:`.collector.collect`), so the browser keeps the bodies of its
requests (each up to :data:`BODY_MAX` bytes, the newest within the browser's own
budget), and ``network_body`` asks for one with ``network.getData``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ....bidi import BidiError
from ....errors import ToolError
from ....tools import Reply
from ....tools.network import NetworkBodyArgs, NetworkReadArgs
from ...chromium.network.handlers import _body, _url_matches
from ...chromium.network.log import SUMMARY_URL_MAX, size_text
from .books import KEEP, Request
from .console import tab_number, tabs_asked

if TYPE_CHECKING:
    from ..session import FirefoxSession

__all__ = ["network_body", "network_read", "summary_line"]

DEFAULT_LIMIT = 50
#: The largest body the browser keeps for a request (bytes, as encoded on the wire).
#: Chromium resource types BiDi cannot tell apart: a ``types`` filter of these matches nothing.
UNTYPED = frozenset({"preflight", "prefetch", "eventsource", "websocket", "signedexchange"})


def summary_line(entry: Request) -> str:
    """``#7 GET 200 fetch 1.2 kB 34 ms http://host/api/items``, as chromium prints it."""
    if entry.failure is not None:
        status = f"failed({entry.failure})"
    elif entry.status is None:
        status = "pending"
    else:
        status = str(entry.status)
    duration = "-" if entry.duration_ms is None else f"{entry.duration_ms:.0f} ms"
    url = entry.url if len(entry.url) <= SUMMARY_URL_MAX else entry.url[: SUMMARY_URL_MAX - 1] + "\u2026"
    cache = " (cache)" if entry.from_cache else ""
    redirect = f" -> {entry.redirected_to}" if entry.redirected_to else ""
    return f"#{entry.id} {entry.method} {status} {entry.type} {size_text(entry.size)} {duration}{cache} {url}{redirect}"


def _matches(entry: Request, args: NetworkReadArgs) -> bool:
    if args.since is not None and entry.id <= args.since:
        return False
    if args.filter is not None and not _url_matches(entry.url, args.filter):
        return False
    if args.types and entry.type not in args.types:
        return False
    if args.failed is not None and entry.failed != args.failed:
        return False
    return args.method is None or entry.method.upper() == args.method.upper()


def _find(session: FirefoxSession, entry_id: int) -> Request:
    found = session.network.get(entry_id)
    if found is None:
        raise ToolError("target-not-found", f"no request #{entry_id} is kept (the newest {KEEP:,} are)", field="id")
    return found


async def network_read(session: FirefoxSession, args: NetworkReadArgs) -> Reply:
    book = session.network
    if args.id is not None:
        entry = _find(session, args.id)
        details = entry.details()
        details["tab"] = tab_number(session, entry.context)
        return Reply.of(request=details)
    tabs = tabs_asked(session, args.tab, args.all_tabs)
    contexts = {t.context for t in tabs}
    entries = [r for r in book.requests if r.context in contexts]
    matched = [e for e in entries if _matches(e, args)]
    limit = args.limit or DEFAULT_LIMIT
    shown = matched[-limit:]
    several = len(tabs) > 1
    lines = [(f"[tab {tab_number(session, e.context)}] " if several else "") + summary_line(e) for e in shown]
    # Counted over the whole session: BiDi's ids and the book's bound are per session, not per tab.
    reply = Reply.of(requests=lines, shown=len(shown), matched=len(matched), last=book.last,
                     tabs=[t.id for t in tabs],
                     counts={"seen": book.total, "kept": len(book.requests), "dropped": book.dropped,
                             "pending": sum(1 for e in entries if not e.done)},
                     warnings=[])
    if len(matched) > len(shown):
        reply.warn(f"{len(matched) - len(shown)} older matching requests left out; raise limit or pass since")
    untyped = sorted(UNTYPED.intersection(args.types or ()))
    if untyped:
        reply.warn(f"Firefox's BiDi events do not tell {', '.join(untyped)} requests apart: those types match "
                   "nothing here (they are listed under their fetch destination, or as other)")
    return reply


async def network_body(session: FirefoxSession, args: NetworkBodyArgs) -> Reply:
    entry = _find(session, args.id)
    part = args.part
    if part == "request":
        if not entry.has_body:
            raise ToolError("target-not-found", f"request #{entry.id} ({entry.method}) sent no body", field="id")
        mime = next((v for k, v in entry.request_headers.items() if k.lower() == "content-type"), "")
    else:
        if not entry.done:
            raise ToolError("target-not-found", f"request #{entry.id} has not finished loading", field="id")
        mime = entry.mime or ""
    try:
        answer = await session.bidi.send("network.getData", {"dataType": part, "request": entry.request},
                                          timeout=session.left())
    except BidiError as err:
        raise ToolError("target-not-found", f"the browser no longer holds request #{entry.id}'s {part} body "
                        f"({err.error}: {err.message})", field="id") from err
    data = answer.get("bytes") or {}
    encoded = data.get("type") == "base64"
    # chromium's _body turns base64 into text for text types and clips either to maxBytes.
    text = str(data.get("value") or "")
    return Reply.of(id=entry.id, part=part, mimeType=mime or None, **_body(text, encoded, mime, args.max_bytes),
                    url=entry.url, status=entry.status)
