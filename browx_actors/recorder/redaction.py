"""Structural redaction of tool arguments before they reach the diagnostics store.

A record keeps the *shape* of a call (keys, types, sizes) and short, harmless values,
so a curator can see what agents asked for without the store becoming a copy of what
they typed. The arguments arrive already masked (every registered secret rewritten to
its ``<NAME>`` alias by the dispatch path); this walk is the second line:

* ``None``, booleans and numbers are kept.
* A string is kept when it is at most :data:`MAX_INLINE_BYTES` UTF-8 bytes and its key
  is not sensitive. A string made only of ``<NAME>`` aliases is always kept: it is
  already the redacted form and says which secret the call used.
* A sensitive key is one whose lower-cased name contains ``value``, ``password``,
  ``passwd``, ``secret``, ``token``, ``cookie``, ``auth``, ``credential`` or
  ``apikey`` (``fill``'s typed text, a failed ``register_secret``'s raw value). The key
  stays sensitive for everything nested under it.
* A list of more than :data:`MAX_INLINE_ITEMS` items is redacted whole; shorter lists
  and all objects are walked.

Anything redacted becomes ``{"__redacted": true, "sha256": ..., "byteLength": ...}``
over its UTF-8 bytes (strings) or its compact, key-sorted JSON (other values), so two
calls with the same hidden value are still recognisably the same.
"""

from __future__ import annotations

import hashlib
import json
import re

from ..jsonsafe import JsonObject, JsonValue
from ..secret_book import SECRET_NAME

__all__ = ["MAX_INLINE_BYTES", "MAX_INLINE_ITEMS", "redact_args", "redacted"]

MAX_INLINE_BYTES = 256
MAX_INLINE_ITEMS = 32
_SENSITIVE = ("value", "password", "passwd", "secret", "token", "cookie", "auth", "credential", "apikey")
_ALIASES_ONLY = re.compile(rf"(?:<{SECRET_NAME.pattern.strip('^$')}>)+")


def redacted(value: object) -> JsonObject:
    """The placeholder for a value the store must not hold."""
    if isinstance(value, str):
        data = value.encode("utf-8", "surrogatepass")
    else:
        data = json.dumps(value, separators=(",", ":"), sort_keys=True, ensure_ascii=False,
                          default=str).encode("utf-8", "surrogatepass")
    return {"__redacted": True, "sha256": hashlib.sha256(data).hexdigest(), "byteLength": len(data)}


def _sensitive(key: object) -> bool:
    name = str(key).lower().replace("_", "").replace("-", "")
    return any(word in name for word in _SENSITIVE)


def redact_args(args: JsonValue, *, sensitive: bool = False) -> JsonValue:
    """``args`` with large or sensitive values replaced by :func:`redacted` markers."""
    if args is None or isinstance(args, (bool, int, float)):
        return args
    if isinstance(args, str):
        if _ALIASES_ONLY.fullmatch(args):
            return args
        if sensitive or len(args.encode("utf-8", "surrogatepass")) > MAX_INLINE_BYTES:
            return redacted(args)
        return args
    if isinstance(args, dict):
        return {str(k): redact_args(v, sensitive=sensitive or _sensitive(k)) for k, v in args.items()}
    if isinstance(args, (list, tuple)):
        if len(args) > MAX_INLINE_ITEMS:
            return redacted(list(args))
        return [redact_args(v, sensitive=sensitive) for v in args]
    return redacted(str(args))
