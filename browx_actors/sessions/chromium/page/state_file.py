"""The storage-state file and the cookie and storage data rules both engines share.

What ``storage_state_save`` writes and ``storage_state_load`` (and open_session's
``storageState``) reads: Playwright's ``{cookies, origins: [{origin, localStorage: [{name,
value}]}]}``, checked whole before anything is put back (:func:`parse_state`), read
through the workspace's chokepoints (:func:`read_state`); and how a cookie is shown,
matched and kept. No session here: the engines' storage tools and session starts call it.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

from ....errors import ToolError
from ....jsonsafe import JsonObject
from ....origins import origin_of
from ....workspace import file_to_read, load_file

__all__ = ["COOKIE_FIELDS", "STATE_MAX_BYTES", "VALUE_MAX", "clip", "cookie_line", "domain_matches", "origin_of",
           "parse_state", "public_cookie", "read_state", "state_for_playwright"]

VALUE_MAX = 200
#: Largest storage-state file read back.
STATE_MAX_BYTES = 20 * 1024 * 1024
#: The fields of a cookie as the tools show and the state file keeps them.
COOKIE_FIELDS = ("name", "value", "domain", "path", "expires", "httpOnly", "secure", "sameSite")


def clip(value: str) -> str:
    return value if len(value) <= VALUE_MAX else value[: VALUE_MAX - 1] + "\u2026"


def cookie_line(cookie: JsonObject) -> str:
    """``sid=abc (127.0.0.1 /, session, HttpOnly, Secure, Lax)``."""
    expires = cookie.get("expires", -1)
    flags = [f"{cookie.get('domain')} {cookie.get('path', '/')}",
             "session" if cookie.get("session") or expires in (-1, None) else
             time.strftime("until %Y-%m-%d %H:%M:%S UTC", time.gmtime(expires))]
    flags += [name for name, key in (("HttpOnly", "httpOnly"), ("Secure", "secure")) if cookie.get(key)]
    if cookie.get("sameSite"):
        flags.append(str(cookie["sameSite"]))
    return f"{cookie.get('name')}={clip(str(cookie.get('value', '')))} ({', '.join(flags)})"


def public_cookie(cookie: JsonObject) -> JsonObject:
    return {key: cookie[key] for key in COOKIE_FIELDS if key in cookie}


def domain_matches(cookie: JsonObject, domain: str) -> bool:
    have = str(cookie.get("domain", "")).lstrip(".").lower()
    want = domain.lstrip(".").lower()
    return have == want or want.endswith("." + have) or have.endswith("." + want)


def parse_state(text: str) -> tuple[list[JsonObject], list[tuple[str, list[tuple[str, str]]]]]:
    """Cookies and ``(origin, [(key, value)])`` from a storage-state file; ``bad-arg``
    naming what is wrong with it."""
    try:
        state = json.loads(text)
    except ValueError as err:
        raise ToolError("bad-arg", f"the file is not JSON: {err}", field="path") from err
    except RecursionError:  # nested past what the decoder recurses into: no storage state is
        raise ToolError("bad-arg", "the file is not a storage state: its JSON nests far deeper than one does",
                        field="path") from None
    if not isinstance(state, dict) or not isinstance(state.get("cookies", []), list) \
            or not isinstance(state.get("origins", []), list):
        raise ToolError("bad-arg", "the file is not a storage state ({cookies: [...], origins: [...]})", field="path")
    cookies = []
    for i, cookie in enumerate(state.get("cookies", [])):
        if not isinstance(cookie, dict) or not isinstance(cookie.get("name"), str) \
                or not isinstance(cookie.get("value"), str) or not isinstance(cookie.get("domain"), str):
            raise ToolError("bad-arg", f"cookies[{i}] needs string name, value and domain", field="path")
        cookies.append({k: cookie[k] for k in COOKIE_FIELDS if k in cookie and cookie[k] is not None})
    origins = []
    for i, entry in enumerate(state.get("origins", [])):
        origin = entry.get("origin") if isinstance(entry, dict) else None
        items = entry.get("localStorage", []) if isinstance(entry, dict) else None
        if not isinstance(origin, str) or origin_of(origin) is None or not isinstance(items, list):
            raise ToolError("bad-arg", f"origins[{i}] needs an http(s) origin and a localStorage list", field="path")
        pairs = []
        for item in items:
            if not isinstance(item, dict) or not isinstance(item.get("name"), str) \
                    or not isinstance(item.get("value"), str):
                raise ToolError("bad-arg", f"origins[{i}].localStorage holds an entry without string name and "
                                "value", field="path")
            pairs.append((item["name"], item["value"]))
        origins.append((origin_of(origin) or origin, pairs))
    return cookies, origins


async def read_state(root: Path, relative: str, *, field: str = "path") -> tuple[Path, str]:
    """The storage-state file ``relative`` names, through the workspace's chokepoints,
    and its text, checked by :func:`parse_state`; ``bad-arg`` naming ``field`` (open_session's
    ``storageState`` reads the same file storage_state_load does)."""
    source = file_to_read(root, relative, field=field)
    data = await load_file(source, max_bytes=STATE_MAX_BYTES)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise ToolError("bad-arg", "the file is not UTF-8 text", field=field) from None
    try:
        parse_state(text)
    except ToolError as err:
        raise ToolError(err.code, err.message, **{**err.details, "field": field}) from None
    return source, text


async def state_for_playwright(root: Path, relative: str) -> JsonObject:
    """open_session's ``storageState`` as ``new_context(storage_state=...)`` takes it: the
    file checked as storage_state_load checks it, each cookie given the path ``/`` it
    defaults to there (Playwright wants a domain cookie's path spelled out)."""
    _source, text = await read_state(root, relative, field="storageState")
    state = json.loads(text)
    for cookie in state.get("cookies", []):
        cookie.setdefault("path", "/")
    return {"cookies": state.get("cookies", []), "origins": state.get("origins", [])}
