"""JSON that can always be written: valid Unicode text and finite numbers, pure.

Text from a page is JavaScript text, and JavaScript strings may hold lone UTF-16
surrogates (``document.title = '\\ud800'``); CDP and Playwright hand them over as
they are. A Python ``str`` holding one cannot be encoded as UTF-8, so the first
writer that tries (the MCP stdout writer, the operator socket, a JSONL store) raises,
and a writer task that raises takes its process or link down with it. Numbers have
the same trap: ``NaN`` and ``Infinity`` are not JSON (``json.dumps`` writes them bare
and strict readers refuse the line), and Python refuses to write an integer of more
than 4,300 digits as text at all.

These walks make data writable: :func:`valid_unicode` replaces every surrogate code
point (in values and in keys) with U+FFFD, :func:`finite_numbers` turns non-finite
floats into ``null``. Both return their input object itself when it needs no change
(the common case costs one walk and no copy), and copy only the containers on the
path to a change. A Python string never holds a valid surrogate *pair*: decoders
join a pair into one code point, so every surrogate left in a ``str`` is lone.

This is a leaf module: it imports nothing from the package.
"""

from __future__ import annotations

import datetime
import json
import math
import re
import sys
from collections.abc import Callable
from typing import Any

__all__ = [
    "MAX_INT_DIGITS",
    "REPLACEMENT",
    "JsonObject",
    "JsonValue",
    "compact_json",
    "dates_as_text",
    "finite_numbers",
    "first_surrogate",
    "valid_text",
    "valid_unicode",
]

#: JSON that crosses a wire: what comes in (CDP replies and events, the page agent's
#: answers, WebDriverAgent's and adb's replies, MCP arguments, JSONL records) and what goes
#: out (a tool's envelope, a status, a record). Its shape is the protocol's or the tool's
#: reference, not a Python type, so it stays loosely typed here and each field is checked
#: where it is read.
JsonValue = Any
#: A JSON object from the wire (see :data:`JsonValue`).
JsonObject = dict[str, Any]

REPLACEMENT = "\ufffd"
_SURROGATE = re.compile("[\ud800-\udfff]")
#: The longest integer Python writes as text (``sys.int_info.default_max_str_digits``).
MAX_INT_DIGITS: int = getattr(sys.int_info, "default_max_str_digits", 4300) or 4300


def first_surrogate(text: str) -> int:
    """Index of the first surrogate code point in ``text``, or -1 if it is valid text."""
    if text.isascii():  # O(1) in CPython: the string knows it is ASCII
        return -1
    found = _SURROGATE.search(text)
    return -1 if found is None else found.start()


def valid_text(text: str) -> str:
    """``text`` with every surrogate code point replaced by U+FFFD."""
    if first_surrogate(text) < 0:
        return text
    return _SURROGATE.sub(REPLACEMENT, text)


def _walk(data: JsonValue, leaf: Callable[[object], object], keys: bool) -> JsonValue:
    """``data`` with ``leaf`` applied to every scalar (and every key when ``keys``);
    the very same objects wherever nothing changed."""
    if isinstance(data, dict):
        out: dict[object, object] | None = None
        for i, (key, value) in enumerate(data.items()):
            new_key = leaf(key) if keys else key
            new_value = _walk(value, leaf, keys)
            if out is None and (new_key is not key or new_value is not value):
                out = dict(list(data.items())[:i])
            if out is not None:
                out[new_key] = new_value
        return data if out is None else out
    if isinstance(data, (list, tuple)):
        items: list[object] | None = None
        for i, value in enumerate(data):
            new_value = _walk(value, leaf, keys)
            if items is None and new_value is not value:
                items = list(data[:i])
            if items is not None:
                items.append(new_value)
        return data if items is None else items
    return leaf(data)


def _text_leaf(value: object) -> object:
    return valid_text(value) if isinstance(value, str) else value


def valid_unicode(data: JsonValue) -> JsonValue:
    """Every string (and dict key) in ``data`` made valid Unicode (lone surrogates
    become U+FFFD), so any UTF-8 writer can write it."""
    return _walk(data, _text_leaf, keys=True)


def _number_leaf(value: object) -> object:
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def compact_json(data: object) -> str:
    """``data`` as the server writes JSON text: no spaces, non-ASCII as itself, and no
    bare ``NaN`` (``ValueError``: :func:`finite_numbers` first). One spelling for every
    writer that shares a text, so text made once can be reused as is."""
    return json.dumps(data, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def _date_leaf(value: object) -> object:
    if isinstance(value, datetime.datetime):
        moment = value if value.tzinfo is not None else value.replace(tzinfo=datetime.UTC)
        return moment.astimezone(datetime.UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")
    return value


def dates_as_text(data: JsonValue) -> JsonValue:
    """Every ``datetime`` in ``data`` as its ISO 8601 text in UTC (``2026-12-06T21:00:00.000Z``,
    how a page's ``Date`` reads as JSON): Playwright hands a page's ``Date`` over as a
    ``datetime``, which no JSON writer takes."""
    return _walk(data, _date_leaf, keys=False)


def finite_numbers(data: JsonValue) -> JsonValue:
    """Every NaN or infinite float in ``data`` made ``null``: JSON has no such numbers."""
    return _walk(data, _number_leaf, keys=False)
