"""Routes as data: URL globs, what a matching request gets, and the Fetch commands for it.

A route's ``pattern`` is a glob over the whole URL, as Playwright's routes take them:
``**`` matches anything, ``*`` anything but ``/``, ``{a,b}`` one of the alternatives;
every other character is itself (``?`` too: URLs are full of them). The browser is told
a looser pattern (``Fetch.enable`` knows only ``*``), so it pauses only requests that
may match; the exact glob then decides.

Pure: no I/O.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Mapping
from typing import Protocol, TypeVar

from ....errors import ToolError
from ....jsonsafe import JsonObject, JsonValue

__all__ = ["continue_params", "fetch_pattern", "fulfill_params", "kept_routes", "take_paused"]


def fetch_pattern(pattern: str) -> str:
    """A ``Fetch.enable`` urlPattern that every URL the glob matches also matches."""
    out: list[str] = []
    i = 0
    while i < len(pattern):
        ch = pattern[i]
        if ch == "*" or ch == "{":
            if ch == "{":
                i = pattern.find("}", i)
            if not out or out[-1] != "*":
                out.append("*")
        elif ch in "?\\":
            out.append("\\" + ch)
        else:
            out.append(ch)
        i += 1
    return "".join(out)


def _header_list(headers: Mapping[str, str]) -> list[dict[str, str]]:
    return [{"name": str(k), "value": str(v)} for k, v in headers.items()]


def _has(headers: Mapping[str, str], name: str) -> bool:
    return any(k.lower() == name for k in headers)


def guess_content_type(body: str) -> str:
    try:
        json.loads(body)
    except ValueError:
        return "text/plain; charset=utf-8"
    return "application/json"


def fulfill_params(request_id: str, *, status: int | None, headers: Mapping[str, str] | None,
                   body: str | None, content_type: str | None) -> JsonObject:
    """``Fetch.fulfillRequest``: status (200), headers with a content type, the body."""
    text = body or ""
    all_headers = dict(headers or {})
    if content_type is not None:
        all_headers = {k: v for k, v in all_headers.items() if k.lower() != "content-type"}
        all_headers["Content-Type"] = content_type
    elif text and not _has(all_headers, "content-type"):
        all_headers["Content-Type"] = guess_content_type(text)
    return {
        "requestId": request_id,
        "responseCode": status or 200,
        "responseHeaders": _header_list(all_headers),
        "body": base64.b64encode(text.encode("utf-8")).decode("ascii"),
    }


def continue_params(request_id: str, original: Mapping[str, JsonValue],
                    headers: Mapping[str, str] | None) -> JsonObject:
    """``Fetch.continueRequest``, with ``headers`` set over the request's own (a header
    set to the empty string is removed)."""
    params: JsonObject = {"requestId": request_id}
    if headers:
        merged = {k: str(v) for k, v in original.items() if not any(k.lower() == h.lower() for h in headers)}
        merged.update({k: v for k, v in headers.items() if v != ""})
        params["headers"] = _header_list(merged)
    return params


class _Numbered(Protocol):
    @property
    def id(self) -> int: ...

    @property
    def pattern(self) -> str: ...


R = TypeVar("R", bound=_Numbered)
Q = TypeVar("Q")


def kept_routes(routes: list[R], route_id: int | None, pattern: str | None) -> list[R]:
    """The routes ``unroute`` leaves: all but route ``route_id``, or all but those with
    ``pattern``, or none; an id that names no route is ``target-not-found``."""
    if route_id is not None:
        if not any(r.id == route_id for r in routes):
            raise ToolError("target-not-found", f"no route {route_id} (routes: {[r.id for r in routes] or 'none'})",
                            field="id")
        return [r for r in routes if r.id != route_id]
    if pattern is not None:
        return [r for r in routes if r.pattern != pattern]
    return []


def take_paused(queue: dict[int, Q], paused_id: int) -> Q:
    """The paused request ``paused_id``, out of the queue; ``target-not-found`` naming
    the ones there when it is not."""
    paused = queue.pop(paused_id, None)
    if paused is None:
        raise ToolError("target-not-found", f"no paused request q{paused_id} (paused: "
                        f"{['q' + str(i) for i in queue] or 'none'})", field="id")
    return paused
