"""A JPEG frame as ``frame`` lines of parts, and back: pure.

Why parts: the operator socket drops the connection on a line over 64 KiB, and the
JPEG of a busy page is often bigger than that. So a frame travels as up to
:data:`MAX_PARTS` lines that share its ``seq``. Each part carries the base64 of one
:data:`PART_BYTES`-byte slice of the JPEG (the last slice may be shorter). Because a
slice is a multiple of 3 bytes, its base64 is exactly :data:`PART_CHARS` characters
with no padding inside the frame, so every part decodes alone and a daemon can decode
and append as parts arrive. A frame that would need more parts is not worth the
socket: :func:`encode_frame` refuses it with :class:`FrameTooLarge`, which the stream
counts as a dropped frame.

Cost: CDP hands a screencast frame over as base64 already, and decoding it only to
encode it again would cost more than the rest of the frame's path.
:func:`encode_frame_base64` slices the text as it is and decodes only its head, for the
size; the lines are spliced, not passed through ``json.dumps``, since base64 needs no
escaping. Both give the same bytes (a test holds them to it).

``width`` and ``height`` are the JPEG's own, read from its SOFn marker by
:func:`jpeg_size`, not what the frame source claims: the daemon may size a canvas
from them before it decodes anything. The marker walk is written here rather than
borrowed from Pillow because Pillow's opener refuses headers it judges to be
decompression bombs and accepts every other image format, and this needs neither.

The way back is :class:`Reassembler`: the daemon's side, parts in, whole frames out,
refusing anything that does not follow the rules above.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Mapping

import attrs

from ..jsonsafe import JsonValue, first_surrogate
from ..operator_wire import MAX_LINE, LineTooLong, encode

__all__ = [
    "MAX_FRAME_BYTES",
    "MAX_PARTS",
    "PART_BYTES",
    "PART_CHARS",
    "BadPart",
    "EncodedFrame",
    "FrameRefused",
    "FrameTooLarge",
    "NotJpeg",
    "Reassembler",
    "ReceivedFrame",
    "encode_frame",
    "encode_frame_base64",
    "jpeg_size",
    "parts_needed",
]

#: JPEG bytes per part: the largest multiple of 3 whose base64 is at most PART_CHARS.
PART_BYTES = 30_720
#: Base64 characters per part, at most.
PART_CHARS = PART_BYTES // 3 * 4
#: A frame needing more parts than this is dropped.
MAX_PARTS = 16
MAX_FRAME_BYTES = PART_BYTES * MAX_PARTS

# Start-of-frame markers (baseline, extended, progressive, lossless; Huffman or
# arithmetic). 0xC4 (DHT), 0xC8 (JPG) and 0xCC (DAC) share the range but are not frames.
_SOF = frozenset({0xC0, 0xC1, 0xC2, 0xC3, 0xC5, 0xC6, 0xC7, 0xC9, 0xCA, 0xCB, 0xCD, 0xCE, 0xCF})
# Markers that stand alone, with no length field: TEM and RST0..RST7.
_STANDALONE = frozenset({0x01, *range(0xD0, 0xD8)})
_SOI, _EOI, _SOS = 0xD8, 0xD9, 0xDA
# Every byte base64 text may hold; whatever is left after deleting these is not base64.
_BASE64 = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/="
# Base64 characters to decode to reach the frame header of a screencast's JPEG (6 KiB).
_HEAD_CHARS = 8192


class FrameRefused(ValueError):
    """A frame that is not sent; the subclass says why."""


class NotJpeg(FrameRefused):
    """The bytes are not a JPEG whose size can be read."""


class FrameTooLarge(FrameRefused):
    """The JPEG needs more than :data:`MAX_PARTS` parts: the frame is dropped."""

    def __init__(self, size: int) -> None:
        super().__init__(f"a {size}-byte JPEG needs {parts_needed(size)} parts; the limit is {MAX_PARTS}")
        self.size = size


def jpeg_size(data: bytes) -> tuple[int, int]:
    """``(width, height)`` from the JPEG's SOFn marker; :class:`NotJpeg` otherwise."""
    size = _scan_for_size(data)
    if size is None:
        raise NotJpeg("truncated before the frame header")
    return size


def _scan_for_size(data: bytes) -> tuple[int, int] | None:
    """Walk the markers to the first SOFn: its size, or None if ``data`` ends first."""
    if data[:2] != b"\xff\xd8":
        raise NotJpeg("no JPEG start-of-image marker")
    end = len(data)
    at = 2
    while True:
        if at >= end:
            return None
        if data[at] != 0xFF:
            raise NotJpeg(f"no marker at byte {at}")
        while at < end and data[at] == 0xFF:  # fill bytes may pad a marker
            at += 1
        if at >= end:
            return None
        marker = data[at]
        at += 1
        if marker in _STANDALONE:
            continue
        if marker in (0x00, _SOI, _EOI, _SOS):
            raise NotJpeg("no frame header (SOFn) before the image data")
        if at + 2 > end:
            return None
        length = int.from_bytes(data[at:at + 2], "big")
        if length < 2 or (marker in _SOF and length < 8):
            raise NotJpeg(f"a marker segment of length {length}")
        if marker in _SOF:
            if at + 7 > end:
                return None
            height = int.from_bytes(data[at + 3:at + 5], "big")
            width = int.from_bytes(data[at + 5:at + 7], "big")
            if not width or not height:
                raise NotJpeg("the frame header gives no size")
            return width, height
        at += length


def parts_needed(size: int) -> int:
    """How many parts a JPEG of ``size`` bytes takes (at least one)."""
    return max(1, -(-size // PART_BYTES))


@attrs.frozen
class EncodedFrame:
    """One frame's lines, ready to be written together, in order."""

    seq: int
    width: int
    height: int
    size: int  # JPEG bytes
    lines: tuple[bytes, ...]

    @property
    def wire(self) -> bytes:
        """Every line, joined: one write puts the whole frame on the socket."""
        return b"".join(self.lines)


def encode_frame(session: str, seq: int, at: int, jpeg: bytes) -> EncodedFrame:
    """The ``frame`` lines of one JPEG.

    ``at`` is the capture time in epoch milliseconds. Raises :class:`NotJpeg`,
    :class:`FrameTooLarge` (drop the frame), or :class:`LineTooLong` when the session
    name would push a line to 64 KiB: nothing is emitted that the daemon would drop.
    """
    width, height = jpeg_size(jpeg)
    if len(jpeg) > MAX_FRAME_BYTES:
        raise FrameTooLarge(len(jpeg))
    return _frame(session, seq, at, width, height, len(jpeg), base64.b64encode(jpeg))


def encode_frame_base64(session: str, seq: int, at: int, data: str) -> EncodedFrame:
    """:func:`encode_frame` for a JPEG already in base64, as CDP's screencast hands it over.

    The text is checked (base64 alphabet, padding only at the end) and sliced as it
    is. Only its head is decoded, to read the size (all of it only when a large segment
    comes before the frame header). Slicing at multiples of :data:`PART_CHARS` gives
    exactly the parts :func:`encode_frame` would.
    """
    raw = data.encode("ascii", "replace")
    if not _is_base64(raw):
        raise NotJpeg("not base64 text")
    size = len(raw) // 4 * 3 - raw[-2:].count(b"=")
    dimensions = _scan_for_size(base64.b64decode(raw[:_HEAD_CHARS]))
    if dimensions is None and len(raw) > _HEAD_CHARS:
        dimensions = _scan_for_size(base64.b64decode(raw))  # a large segment before the frame header
    if dimensions is None:
        raise NotJpeg("truncated before the frame header")
    if size > MAX_FRAME_BYTES:
        raise FrameTooLarge(size)
    return _frame(session, seq, at, *dimensions, size, raw)


def _is_base64(raw: bytes) -> bool:
    """Standard base64 with padding only at its end: safe to splice into JSON, safe to slice."""
    body, tail = raw[:-2], raw[-2:]
    return (not len(raw) % 4 and not raw.translate(None, _BASE64) and b"=" not in body
            and not (tail[:1] == b"=" and tail != b"=="))


def _frame(session: str, seq: int, at: int, width: int, height: int, size: int, text: bytes) -> EncodedFrame:
    """Splice the base64 ``text`` into lines: ``data`` is plain ASCII, so it needs no JSON escaping."""
    if not isinstance(session, str) or not session:
        raise ValueError("session must be a non-empty string")
    for name, value in (("seq", seq), ("at", at)):
        if type(value) is not int or value < 0:
            raise ValueError(f"{name} must be a whole number >= 0")
    if first_surrogate(session) >= 0:
        # The wire would write it as U+FFFD: the daemon would hear of another session.
        raise ValueError("session is not valid Unicode")
    head = encode("frame", session=session, seq=seq, at=at, format="jpeg", width=width, height=height)
    head = head[:-2]  # the closing brace and newline: the part fields follow
    parts = parts_needed(size)
    lines = []
    for part in range(parts):
        line = b'%s,"part":%d,"parts":%d,"data":"%s"}\n' % (
            head, part, parts, text[part * PART_CHARS:(part + 1) * PART_CHARS])
        if len(line) > MAX_LINE:  # the newline is in ``line``: the line itself reached 64 KiB
            raise LineTooLong(f"a frame line would be {len(line) - 1} bytes; it must stay under {MAX_LINE}")
        lines.append(line)
    return EncodedFrame(seq, width, height, size, tuple(lines))


# -- the daemon's side --------------------------------------------------------------------


class BadPart(ValueError):
    """A ``frame`` line that breaks the framing rules; the frame it belonged to is discarded."""


@attrs.frozen
class ReceivedFrame:
    """A whole frame, its parts joined."""

    session: str
    seq: int
    at: int
    width: int
    height: int
    jpeg: bytes


class Reassembler:
    """``frame`` lines of one stream in, whole frames out.

    Parts must come in order, ``part`` 0 to ``parts - 1``, all with the same ``seq``;
    each is decoded as it arrives. A part 0 while a frame is incomplete starts the new
    frame; any other break raises :class:`BadPart`. Either way the incomplete frame is
    discarded and counts in :attr:`torn`.
    """

    def __init__(self) -> None:
        self.torn = 0
        self._head: Mapping[str, JsonValue] | None = None
        self._chunks: list[bytes] = []

    @property
    def pending(self) -> bool:
        """Is a frame half in?"""
        return self._head is not None

    def feed(self, body: Mapping[str, JsonValue]) -> ReceivedFrame | None:
        """Take one ``frame`` message; the frame once its last part is in."""
        try:
            part, parts, chunk = _check_part(body)
        except BadPart:
            self._discard()
            raise
        if part == 0:
            self._discard()
            self._head = body
        elif not self._follows(body, part):
            self._discard()
            raise BadPart(f"part {part} of seq {body['seq']} does not follow the parts before it")
        self._chunks.append(chunk)
        head, chunks = self._head, self._chunks
        if head is None or len(chunks) < parts:
            return None
        self._head, self._chunks = None, []
        return ReceivedFrame(head["session"], head["seq"], head["at"], head["width"], head["height"],
                             b"".join(chunks))

    def _follows(self, body: Mapping[str, JsonValue], part: int) -> bool:
        head = self._head
        return (head is not None and part == len(self._chunks)
                and all(body[key] == head[key] for key in ("seq", "session", "parts", "at", "width", "height")))

    def _discard(self) -> None:
        """Drop the incomplete frame, if any (it counts as torn)."""
        if self._head is not None:
            self.torn += 1
        self._head, self._chunks = None, []


def _check_part(body: Mapping[str, JsonValue]) -> tuple[int, int, bytes]:
    for name in ("seq", "at", "width", "height", "part", "parts"):
        value = body.get(name)
        if type(value) is not int or value < 0:
            raise BadPart(f"{name} must be a whole number >= 0")
    part, parts = body["part"], body["parts"]
    if not 1 <= parts <= MAX_PARTS or part >= parts:
        raise BadPart(f"part {part} of {parts} is outside 0..{MAX_PARTS - 1}")
    if not isinstance(body.get("session"), str) or body.get("format") != "jpeg":
        raise BadPart("a frame needs a session string and format jpeg")
    data = body.get("data")
    if not isinstance(data, str) or not data or len(data) > PART_CHARS:
        raise BadPart(f"data must be 1 to {PART_CHARS} base64 characters")
    try:
        chunk = base64.b64decode(data, validate=True)
    except (binascii.Error, ValueError):
        raise BadPart("data is not base64") from None
    if part < parts - 1 and len(chunk) != PART_BYTES:
        raise BadPart(f"every part but the last carries {PART_BYTES} bytes")
    return part, parts, chunk
