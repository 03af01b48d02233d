"""BiDi remote values as JSON: pure, no I/O.

``script.evaluate`` answers a typed tree (``{"type": "object", "value": [[key, value],
...]}``); ``eval_js`` answers plain JSON, as Playwright's ``evaluate`` does on chromium:
objects and arrays as themselves, ``undefined`` as null, a date as its ISO text, a
regular expression as its source, a DOM node or a function as a short description of
what it was (such values do not cross into JSON).
"""

from __future__ import annotations

import math

from ..jsonsafe import JsonValue

__all__ = ["to_json"]

_NUMBERS = {"NaN": math.nan, "Infinity": math.inf, "-Infinity": -math.inf, "-0": -0.0}


def to_json(remote: object) -> JsonValue:
    """The JSON a remote value stands for (see the module notes)."""
    if not isinstance(remote, dict):
        return None
    kind, value = remote.get("type"), remote.get("value")
    if kind in ("undefined", "null"):
        return None
    if kind in ("string", "boolean"):
        return value
    if kind == "number":
        return _NUMBERS.get(value, value) if isinstance(value, str) else value
    if kind == "bigint":
        return str(value)
    if kind in ("array", "set"):
        return [to_json(item) for item in value or []]
    if kind in ("object", "map"):
        out: dict[str, JsonValue] = {}
        for key, item in value or []:
            out[key if isinstance(key, str) else str(to_json(key))] = to_json(item)
        return out
    if kind == "date":
        return value
    if kind == "regexp":
        return f"/{(value or {}).get('pattern', '')}/{(value or {}).get('flags', '')}"
    if kind == "node":
        local = ((value or {}).get("localName") or (value or {}).get("nodeName") or "node")
        return f"<{local}>"
    return f"[{kind}]"
