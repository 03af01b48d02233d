"""The per-session store behind ``captureId``: bounded, least-recently-used first out.

Shipping two 5 MB base64 captures back through an agent's context to ask "did the
stroke land?" costs far more than the question. So every capture is also kept here,
decoded, and ``canvas_diff`` can name captures by id instead.

Bounds (per session): at most :data:`MAX_ENTRIES` captures and :data:`MAX_BYTES`
bytes of pixel data. Eviction is least-recently-used: a capture counts as used when
it is stored and whenever a diff reads it, and the oldest-used captures go first until
both bounds hold again. A single capture larger than :data:`MAX_BYTES` is not stored
at all (its result says so). The cache is owned by the session actor and touched only
from inside it; it ends with the session.

Ids look like ``cap-3fa9c1-7``: a random tag per cache plus a counter, so an id from
another session (or an earlier run) is told apart from one this cache evicted.
"""

from __future__ import annotations

import secrets
from collections import OrderedDict

import attrs

from ..errors import ToolError
from ..jsonsafe import JsonObject
from ..tools.canvas import CACHE_BYTES, CACHE_ENTRIES

__all__ = ["MAX_BYTES", "MAX_ENTRIES", "Capture", "CaptureCache"]

#: The contract's bounds (``tools/canvas.py``), under this module's names.
MAX_ENTRIES = CACHE_ENTRIES
MAX_BYTES = CACHE_BYTES


@attrs.frozen
class Capture:
    """One stored capture: raw RGBA (row-major, top-left origin) or PNG file bytes."""

    id: str
    format: str
    width: int
    height: int
    data: bytes = attrs.field(repr=False)

    @property
    def is_png(self) -> bool:
        return self.format == "png"


class CaptureCache:
    def __init__(self, max_entries: int = MAX_ENTRIES, max_bytes: int = MAX_BYTES) -> None:
        self.max_entries = max_entries
        self.max_bytes = max_bytes
        self._tag = secrets.token_hex(3)
        self._counter = 0
        self._entries: OrderedDict[str, Capture] = OrderedDict()
        self.bytes = 0
        self.evicted = 0

    def __len__(self) -> int:
        return len(self._entries)

    def put(self, format: str, width: int, height: int, data: bytes) -> Capture | None:
        """Store a capture and return it with its id; None when it alone exceeds the byte cap."""
        if len(data) > self.max_bytes:
            return None
        self._counter += 1
        capture = Capture(f"cap-{self._tag}-{self._counter}", format, width, height, data)
        self._entries[capture.id] = capture
        self.bytes += len(data)
        while len(self._entries) > self.max_entries or self.bytes > self.max_bytes:
            _, old = self._entries.popitem(last=False)
            self.bytes -= len(old.data)
            self.evicted += 1
        return capture

    def get(self, capture_id: str, field: str) -> Capture:
        """The capture, marked as just used; a clear error for an evicted or unknown id."""
        capture = self._entries.get(capture_id)
        if capture is not None:
            self._entries.move_to_end(capture_id)
            return capture
        if self._issued_here(capture_id):
            raise ToolError(
                "capture-evicted",
                f"{field} {capture_id!r} was evicted: this session keeps its {self.max_entries} most "
                f"recently used captures (at most {self.max_bytes // (1024 * 1024)} MiB); capture again",
                field=field, captureId=capture_id,
            )
        raise ToolError(
            "unknown-capture",
            f"{field} {capture_id!r} is not a capture of this session; ids come from canvas_capture "
            "in the same session",
            field=field, captureId=capture_id,
        )

    def _issued_here(self, capture_id: str) -> bool:
        prefix = f"cap-{self._tag}-"
        if not capture_id.startswith(prefix):
            return False
        number = capture_id[len(prefix):]
        return number.isdigit() and 0 < int(number) <= self._counter

    def stats(self) -> JsonObject:
        return {"captures": len(self._entries), "bytes": self.bytes, "evicted": self.evicted,
                "maxCaptures": self.max_entries, "maxBytes": self.max_bytes}
