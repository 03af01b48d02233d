"""The operator socket's framing and messages: JSON lines with ``"v": 1``, pure.

The socket to the host daemon carries one JSON object per ``\\n``-terminated line.
This module turns bytes into lines (:class:`LineBuffer`), lines into messages
(:func:`parse_line`) and messages into lines (:func:`encode`), with no I/O, so every
rule about garbage, versions and sizes is tested with hypothesis and reused by the
actor that owns the socket (``human/operator.py``), the live view's streams and the
reference daemon. It is a leaf: the messages of each feature (a prompt's line is in
``human/prompts.py``) are built from :func:`encode` where that feature lives.

Size: a line longer than :data:`MAX_LINE` bytes (64 KiB, newline excluded) is refused
in both directions. Incoming, the buffer reports :class:`Oversized` once it knows,
without holding more than one read beyond the limit; outgoing, :func:`encode` raises
:class:`LineTooLong` instead of writing a line the daemon would drop.

Text: JSON can carry a lone UTF-16 surrogate (``"ticket": "\\ud800"``), which Python
reads into a string no UTF-8 writer can write back, so an error line echoing it used to
raise in the operator channel. :func:`parse_line` refuses such a line (``bad-line``)
and :func:`encode` makes whatever it writes valid (lone surrogates as U+FFFD, NaN and
infinities as null), so no line in either direction can raise.
"""

from __future__ import annotations

import hmac
import json

import attrs

from .jsonsafe import JsonObject, JsonValue, finite_numbers, valid_unicode

__all__ = [
    "MAX_LINE",
    "VERSION",
    "LineBuffer",
    "LineTooLong",
    "Message",
    "Oversized",
    "WireError",
    "encode",
    "error_line",
    "is_valid_hello",
    "parse_line",
]

VERSION = 1
MAX_LINE = 64 * 1024


class LineTooLong(ValueError):
    """An outgoing message would not fit in one line."""


@attrs.frozen
class Oversized:
    """A line went past :data:`MAX_LINE`; its bytes were discarded."""

    size: int


class LineBuffer:
    """Bytes in, complete lines out; never holds more than ``limit`` bytes of a line."""

    def __init__(self, limit: int = MAX_LINE) -> None:
        self.limit = limit
        self._buffer = bytearray()
        self._skipping = False
        self._ready: list[bytes | Oversized] = []

    def feed(self, data: bytes) -> None:
        start = 0
        while True:
            newline = data.find(b"\n", start)
            end = len(data) if newline < 0 else newline
            piece = data[start:end]
            if not self._skipping:
                if len(self._buffer) + len(piece) > self.limit:
                    self._ready.append(Oversized(len(self._buffer) + len(piece)))
                    self._buffer.clear()
                    self._skipping = True
                else:
                    self._buffer += piece
            if newline < 0:
                return
            if self._skipping:
                self._skipping = False
            else:
                self._ready.append(bytes(self._buffer))
                self._buffer.clear()
            start = newline + 1

    def next(self) -> bytes | Oversized | None:
        """The next complete line (without its newline), an :class:`Oversized`, or None."""
        return self._ready.pop(0) if self._ready else None


@attrs.frozen
class Message:
    """A well-formed line: ``type`` plus the whole object."""

    type: str
    body: JsonObject


@attrs.frozen
class WireError:
    """A line that is not a message; ``code`` goes back to the daemon in an error line."""

    code: str
    message: str


def parse_line(raw: bytes) -> Message | WireError:
    """Classify one line. Never raises."""
    try:
        data = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        return WireError("bad-line", "not a JSON line")
    if not isinstance(data, dict):
        return WireError("bad-line", "a line must be a JSON object")
    if valid_unicode(data) is not data:  # the same object back: nothing to replace
        return WireError("bad-line", "a line must be valid Unicode text (it holds a lone surrogate escape)")
    version = data.get("v")
    if type(version) is not int or version != VERSION:
        return WireError("bad-version", f'every line needs "v": {VERSION}')
    kind = data.get("type")
    if not isinstance(kind, str) or not kind:
        return WireError("bad-message", 'every line needs a "type" string')
    return Message(kind, data)


def is_valid_hello(parsed: Message | WireError | Oversized | None, token: str) -> bool:
    """Is this the daemon's hello with our token? Compared in constant time."""
    if not isinstance(parsed, Message) or parsed.type != "hello":
        return False
    offered = parsed.body.get("token")
    if not isinstance(offered, str) or not token:
        return False
    return hmac.compare_digest(offered.encode("utf-8"), token.encode("utf-8"))


def encode(message_type: str, /, **fields: JsonValue) -> bytes:
    """One line for ``{"v": 1, "type": message_type, **fields}``; :class:`LineTooLong` past 64 KiB."""
    message = finite_numbers(valid_unicode({"v": VERSION, "type": message_type, **fields}))
    line = json.dumps(message, ensure_ascii=False, allow_nan=False, separators=(",", ":")).encode("utf-8")
    if len(line) > MAX_LINE:
        raise LineTooLong(f"a {message_type} line would be {len(line)} bytes; the limit is {MAX_LINE}")
    return line + b"\n"


def error_line(code: str, message: str, **fields: JsonValue) -> bytes:
    return encode("error", code=code, error=message, **fields)
