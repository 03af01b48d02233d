"""JSON-RPC lines in and out of the stdio transport, pure: every request is answered.

The MCP SDK's own stdio transport parses each line with pydantic's JSON parser, which
refuses three kinds of valid-looking input outright: a lone surrogate escape
(``"\\ud800"``), an integer of more than 4,300 digits, and nesting past 200 levels. A
refused line becomes an exception the SDK logs at debug level and drops, so the request
in it is never answered and the client waits forever. On the way out, a result holding
a string that cannot be encoded as UTF-8 makes the SDK's writer task raise, which ends
the whole server.

:func:`decode_line` reads a line the SDK's way first (the fast path, for every normal
line) and, only when that fails, the lenient way: Python's ``json`` (which keeps lone
surrogates), with integers past the digit limit and structures nested past
:data:`WIRE_DEPTH` replaced by :class:`~browx_actors.tools.params.Unreadable` marks.
The request then reaches the dispatch, whose argument checks refuse the value with a
``bad-arg`` naming the field and the limit, as they would for a library caller. A line
that is not JSON at all, or not a JSON-RPC message, is answered here with JSON-RPC's
own error for it (parse error, invalid request), with its id when the
line has a readable one; notifications and responses are never answered.

:func:`encode_message` writes a message the SDK's way and, if that fails, writes it
made valid (lone surrogates replaced, non-finite numbers as null); a message that still
cannot be written is replaced: a tool result by an ``internal`` error result, anything
else by a JSON-RPC internal error. Nothing a handler returns can stop the writer.
"""

from __future__ import annotations

import json
import logging
import re
import secrets

import mcp.types as types
from pydantic import ValidationError

from ..jsonsafe import MAX_INT_DIGITS, JsonObject, JsonValue, finite_numbers, valid_unicode
from ..tools.params import Unreadable

__all__ = ["WIRE_DEPTH", "decode_line", "encode_message", "internal_tool_result"]

log = logging.getLogger("browx_actors.mcp")

#: Containers nested deeper than this (counting the JSON-RPC envelope) are cut from a
#: line read the lenient way, so Python's recursive parser never runs out of stack.
#: Far above the dispatch's own argument limit, which is what callers meet.
WIRE_DEPTH = 100

_TOKENS = re.compile(r'"(?:[^"\\]|\\.)*"|[\[\]{}]', re.DOTALL)
#: What a cut-out structure is replaced by before parsing: a string no client can
#: guess (a fresh random part per process), turned back into an Unreadable mark after.
_CUT = "\u0000browx-cut-" + secrets.token_hex(8)
_CUT_JSON = json.dumps(_CUT)
_TOO_DEEP = Unreadable(f"nested deeper than the {WIRE_DEPTH} levels the server reads")


def _encoded(message: types.JSONRPCMessage) -> bytes:
    return message.model_dump_json(by_alias=True, exclude_unset=True).encode("utf-8") + b"\n"


def _error_line(request_id: int | str | None, code: int, message: str) -> bytes:
    error = types.JSONRPCError(jsonrpc="2.0", id=request_id, error=types.ErrorData(code=code, message=message))
    return _encoded(error)


def decode_line(line: bytes) -> types.JSONRPCMessage | bytes | None:
    """One line from the client: the message to hand to the SDK, or the answer line
    to write back at once (a JSON-RPC error), or None (blank, or nothing to answer)."""
    if not line.strip():
        return None
    try:
        return types.jsonrpc_message_adapter.validate_json(line, by_name=False)
    except ValidationError:
        pass
    try:
        data = _lenient_json(line.decode("utf-8", "replace"))
    except (ValueError, RecursionError) as err:
        return _error_line(None, types.PARSE_ERROR, f"Parse error: the line is not JSON ({_reason(err)})")
    request_id = _request_id(data)
    try:
        message = types.jsonrpc_message_adapter.validate_python(data, by_name=False)
    except ValidationError as err:
        if _is_notification_or_response(data):
            return None  # JSON-RPC answers neither
        return _error_line(request_id, types.INVALID_REQUEST, f"Invalid Request: {_first_error(err)}")
    if isinstance(message, types.JSONRPCNotification) and isinstance(data.get("id"), Unreadable):
        # A request whose id could not be read would pass for a notification.
        return _error_line(None, types.INVALID_REQUEST, f"Invalid Request: id: {data['id'].why}")
    return message


def _reason(err: Exception) -> str:
    text = str(err).splitlines()[0] if str(err) else type(err).__name__
    return text[:200]


def _first_error(err: ValidationError) -> str:
    errors = err.errors()
    if not errors:
        return "not a JSON-RPC 2.0 message"
    first = errors[0]
    where = ".".join(str(part) for part in first.get("loc", ()))
    return f"{where}: {first.get('msg', 'invalid')}"[:200]


def _request_id(data: JsonValue) -> int | str | None:
    """The id to answer a broken request with: its own when it is a usable id."""
    if isinstance(data, dict):
        found = data.get("id")
        if isinstance(found, str):
            return str(valid_unicode(found))
        if isinstance(found, int) and not isinstance(found, bool):
            return found
    return None


def _is_notification_or_response(data: JsonValue) -> bool:
    if not isinstance(data, dict):
        return False
    if "method" in data:
        return "id" not in data
    return "result" in data or "error" in data


def _lenient_json(text: str) -> JsonValue:
    """Parse like ``json.loads``, but never refuse a number for its digits or a
    structure for its depth: those become :class:`Unreadable` marks."""
    cut = _cut_deep(text, WIRE_DEPTH)
    data = json.loads(cut, parse_int=_integer)
    return _restore_cuts(data, 0) if cut is not text else data


def _integer(digits: str) -> int | Unreadable:
    count = len(digits.lstrip("-"))
    if count > MAX_INT_DIGITS:
        return Unreadable(f"an integer of {count:,} digits is longer than the {MAX_INT_DIGITS:,} digits allowed")
    return int(digits)


def _cut_deep(text: str, limit: int) -> str:
    """``text`` with every array or object that opens below ``limit`` levels replaced by
    the cut mark; ``text`` itself when nothing is that deep."""
    depth = 0
    pieces: list[str] = []
    kept = 0  # text[kept:] has not been copied to pieces yet
    cut_from = -1
    for token in _TOKENS.finditer(text):
        char = token.group()
        if char in "[{":
            depth += 1
            if depth == limit + 1 and cut_from < 0:
                cut_from = token.start()
        elif char in "]}":
            if depth == limit + 1 and cut_from >= 0:
                pieces.append(text[kept:cut_from])
                pieces.append(_CUT_JSON)
                kept = token.end()
                cut_from = -1
            depth -= 1
    if not pieces:
        return text
    pieces.append(text[kept:])
    return "".join(pieces)


def _restore_cuts(data: JsonValue, depth: int) -> JsonValue:
    if isinstance(data, str):
        return _TOO_DEEP if data == _CUT else data
    if depth > WIRE_DEPTH:
        return data
    if isinstance(data, dict):
        return {key: _restore_cuts(value, depth + 1) for key, value in data.items()}
    if isinstance(data, list):
        return [_restore_cuts(value, depth + 1) for value in data]
    return data


def internal_tool_result(why: str) -> JsonObject:
    """A tool result (as wire JSON) for a result that could not be written."""
    envelope = {"ok": False, "code": "internal", "error": f"the result could not be written: {why}"}
    return {"content": [{"type": "text", "text": json.dumps(envelope, separators=(",", ":"))}],
            "structuredContent": envelope, "isError": True}


def encode_message(message: types.JSONRPCMessage) -> bytes:
    """The line for ``message``; never raises (see the module notes)."""
    try:
        return _encoded(message)
    except (ValueError, TypeError, UnicodeError) as err:  # PydanticSerializationError is a ValueError
        first_failure = _reason(err)
    try:
        data = message.model_dump(by_alias=True, exclude_unset=True, mode="python")
        line = json.dumps(finite_numbers(valid_unicode(data)), ensure_ascii=False, allow_nan=False,
                          separators=(",", ":"))
        return line.encode("utf-8") + b"\n"
    except (ValueError, TypeError, UnicodeError, RecursionError) as err:
        log.error("an outgoing message could not be written (%s; then %s); answering with an error instead",
                  first_failure, _reason(err))
    if isinstance(message, types.JSONRPCResponse):
        result = message.result if isinstance(message.result, dict) else {}
        if "content" in result:
            replaced = types.JSONRPCResponse(jsonrpc="2.0", id=message.id,
                                             result=internal_tool_result(first_failure))
            return _encoded(replaced)
        return _error_line(message.id, types.INTERNAL_ERROR, f"Internal error: the result could not be written "
                           f"({first_failure})")
    if isinstance(message, types.JSONRPCError):
        return _error_line(message.id if isinstance(message.id, (int, str)) else None, message.error.code,
                           "the error could not be written")
    return b""  # a notification or a request of ours that cannot be written is dropped (logged above)
