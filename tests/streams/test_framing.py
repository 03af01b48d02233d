"""Framing: a JPEG into ``frame`` lines of parts and back, and the JPEG's own size."""

from __future__ import annotations

import base64
import io
import json
import random
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from PIL import Image

from browx_actors.operator_wire import MAX_LINE, LineTooLong, encode
from browx_actors.streams.framing import (
    MAX_FRAME_BYTES,
    MAX_PARTS,
    PART_BYTES,
    PART_CHARS,
    BadPart,
    FrameTooLarge,
    NotJpeg,
    Reassembler,
    encode_frame,
    encode_frame_base64,
    jpeg_size,
    parts_needed,
)
from browx_actors.streams.request import MAX_SESSION_CHARS, parse_view_start

AT = 1_790_000_000_000


def fake_jpeg(size: int, width: int = 960, height: int = 540, seed: int = 0) -> bytes:
    """``size`` bytes that start like a baseline JPEG (SOI, APP0, SOF0) and go on at random."""
    app0 = b"\xff\xe0\x00\x10JFIF\x00\x01\x01\x00\x00\x01\x00\x01\x00\x00"
    sof0 = (b"\xff\xc0\x00\x11\x08" + height.to_bytes(2, "big") + width.to_bytes(2, "big")
            + b"\x03\x01\x22\x00\x02\x11\x01\x03\x11\x01")
    head = b"\xff\xd8" + app0 + sof0
    assert size >= len(head)
    return head + random.Random(seed).randbytes(size - len(head))


HEAD = len(fake_jpeg(39))


def pillow_jpeg(width: int, height: int, **options: object) -> bytes:
    y, x = np.mgrid[0:height, 0:width]
    pixels = np.stack([(x * 7) % 256, (y * 3) % 256, (x ^ y) % 256], axis=-1).astype(np.uint8)
    image = Image.fromarray(pixels, "RGB")
    out = io.BytesIO()
    image.save(out, "JPEG", **options)
    return out.getvalue()


def lines_of(jpeg: bytes, session: str = "default", seq: int = 412) -> list[dict[str, Any]]:
    return [json.loads(line) for line in encode_frame(session, seq, AT, jpeg).lines]


# -- parts ------------------------------------------------------------------------------------


def test_the_part_sizes_are_the_spec_s() -> None:
    assert (PART_CHARS, PART_BYTES, MAX_PARTS) == (40_960, 30_720, 16)
    assert len(base64.b64encode(b"\0" * PART_BYTES)) == PART_CHARS
    assert [parts_needed(n) for n in (1, PART_BYTES, PART_BYTES + 1, MAX_FRAME_BYTES)] == [1, 1, 2, 16]


@settings(max_examples=40, deadline=None)
@given(size=st.integers(min_value=HEAD, max_value=MAX_FRAME_BYTES), seed=st.integers(0, 2**32))
@example(size=PART_BYTES, seed=1)
@example(size=PART_BYTES + 1, seed=2)
@example(size=MAX_FRAME_BYTES, seed=3)
def test_the_parts_rejoin_into_the_jpeg_and_each_decodes_alone(size: int, seed: int) -> None:
    jpeg = fake_jpeg(size, seed=seed)
    frame = encode_frame("default", 412, AT, jpeg)
    lines = [json.loads(line) for line in frame.lines]
    assert len(lines) == parts_needed(size) <= MAX_PARTS
    assert frame.wire == b"".join(frame.lines) and all(line.endswith(b"\n") for line in frame.lines)
    for index, line in enumerate(lines):
        assert {k: v for k, v in line.items() if k != "data"} == {
            "v": 1, "type": "frame", "session": "default", "seq": 412, "at": AT, "format": "jpeg",
            "width": 960, "height": 540, "part": index, "parts": len(lines)}
        data = line["data"]
        assert isinstance(data, str) and len(data) <= PART_CHARS
        assert base64.b64decode(data, validate=True) == jpeg[index * PART_BYTES:(index + 1) * PART_BYTES]
    assert all(len(raw) - 1 < MAX_LINE for raw in frame.lines)
    reassembler = Reassembler()
    results = [reassembler.feed(line) for line in lines]
    assert results[:-1] == [None] * (len(lines) - 1)
    whole = results[-1]
    assert whole is not None and whole.jpeg == jpeg
    assert (whole.session, whole.seq, whole.at, whole.width, whole.height) == ("default", 412, AT, 960, 540)


@settings(max_examples=40, deadline=None)
@given(size=st.integers(min_value=HEAD, max_value=MAX_FRAME_BYTES), seed=st.integers(0, 2**32),
       session=st.text(min_size=1, max_size=300))
@example(size=PART_BYTES - 1, seed=0, session="default")
@example(size=PART_BYTES - 2, seed=0, session="default")
def test_the_base64_path_gives_the_same_bytes_as_json_would(size: int, seed: int, session: str) -> None:
    jpeg = fake_jpeg(size, seed=seed)
    frame = encode_frame(session, 7, AT, jpeg)
    assert encode_frame_base64(session, 7, AT, base64.b64encode(jpeg).decode()) == frame
    assert frame.size == size
    for line in frame.lines:  # the spliced lines are exactly what the wire's encoder writes
        fields = {k: v for k, v in json.loads(line).items() if k not in ("v", "type")}
        assert encode("frame", **fields) == line


@pytest.mark.parametrize("text", ["abc", "ab=c", "a===", "A=AA", "AA=A", "@@@@", "\u00e9\u00e9\u00e9\u00e9",
                                  "AAAA\nAAA", 'AA"A', "AAA\\", ""])
def test_the_base64_path_refuses_what_is_not_base64_text(text: str) -> None:
    with pytest.raises(NotJpeg):
        encode_frame_base64("default", 1, AT, text)


def test_the_base64_path_finds_a_frame_header_past_a_large_segment_and_refuses_large_frames() -> None:
    image, out, exif = Image.new("L", (50, 40), 128), io.BytesIO(), Image.Exif()
    exif[0x010E] = "x" * 20_000
    image.save(out, "JPEG", exif=exif.tobytes())
    assert encode_frame_base64("s", 1, AT, base64.b64encode(out.getvalue()).decode()).width == 50
    with pytest.raises(FrameTooLarge):
        encode_frame_base64("s", 1, AT, base64.b64encode(fake_jpeg(MAX_FRAME_BYTES + 1)).decode())
    with pytest.raises(NotJpeg):
        encode_frame_base64("s", 1, AT, base64.b64encode(b"\x89PNG" + b"\0" * 100).decode())


@settings(max_examples=10, deadline=None)
@given(size=st.integers(min_value=MAX_FRAME_BYTES + 1, max_value=MAX_FRAME_BYTES + 3 * PART_BYTES))
@example(size=MAX_FRAME_BYTES + 1)
def test_a_frame_needing_more_than_16_parts_is_refused(size: int) -> None:
    with pytest.raises(FrameTooLarge) as refused:
        encode_frame("default", 1, AT, fake_jpeg(size))
    assert refused.value.size == size and isinstance(refused.value, ValueError)


@settings(max_examples=60, deadline=None)
@given(session=st.text(min_size=1, max_size=30_000))
def test_no_line_reaches_64_kib_whatever_the_session(session: str) -> None:
    jpeg = fake_jpeg(PART_BYTES + 10)
    try:
        frame = encode_frame(session, 2**53, 2**53, jpeg)
    except LineTooLong:
        return
    assert all(len(line) - 1 < MAX_LINE for line in frame.lines)


@settings(max_examples=60, deadline=None)
@given(session=st.text(min_size=1, max_size=MAX_SESSION_CHARS))
def test_every_session_a_view_start_accepts_fits_the_frame_lines(session: str) -> None:
    request = parse_view_start({"session": session})
    frame = encode_frame(request.session, 2**53, 2**53, fake_jpeg(MAX_FRAME_BYTES))
    assert all(len(line) - 1 < MAX_LINE for line in frame.lines)


def test_a_line_of_exactly_64_kib_is_refused_and_one_byte_less_is_sent() -> None:
    jpeg = fake_jpeg(PART_BYTES)  # one full part
    overhead = len(encode_frame("s", 1, AT, jpeg).lines[0]) - 1 - 1  # the line without its session
    fits = "s" * (MAX_LINE - 1 - overhead)
    assert len(encode_frame(fits, 1, AT, jpeg).lines[0]) - 1 == MAX_LINE - 1
    with pytest.raises(LineTooLong):
        encode_frame(fits + "s", 1, AT, jpeg)
    with pytest.raises(LineTooLong):  # escapes count: a control character is six bytes of JSON
        encode_frame("\u0001" * 5000, 1, AT, jpeg)


@pytest.mark.parametrize("session", ["", "\ud800", None])
def test_a_session_that_cannot_go_on_a_line_is_refused(session: object) -> None:
    with pytest.raises(ValueError, match="session"):
        encode_frame(session, 1, AT, fake_jpeg(100))  # type: ignore[arg-type]


@pytest.mark.parametrize(("seq", "at"), [(-1, AT), (1.0, AT), (True, AT), (1, 1.5), (1, -1)])
def test_seq_and_at_are_whole_numbers(seq: object, at: object) -> None:
    with pytest.raises(ValueError):
        encode_frame("default", seq, at, fake_jpeg(100))  # type: ignore[arg-type]


def test_width_and_height_come_from_the_jpeg_itself() -> None:
    jpeg = pillow_jpeg(321, 123)
    assert {(line["width"], line["height"]) for line in lines_of(jpeg)} == {(321, 123)}


# -- the JPEG's own size ------------------------------------------------------------------------


@pytest.mark.parametrize(("width", "height"), [(1, 1), (17, 9), (640, 360), (961, 541), (1280, 720), (3000, 2)])
@pytest.mark.parametrize("options", [{}, {"progressive": True}, {"optimize": True, "quality": 30},
                                     {"progressive": True, "subsampling": 0}])
def test_jpeg_size_reads_pillow_jpegs(width: int, height: int, options: dict[str, object]) -> None:
    jpeg = pillow_jpeg(width, height, **options)
    assert jpeg_size(jpeg) == (width, height) == Image.open(io.BytesIO(jpeg)).size


def test_jpeg_size_knows_progressive_from_baseline_and_reads_both() -> None:
    baseline, progressive = pillow_jpeg(200, 100), pillow_jpeg(200, 100, progressive=True)
    assert b"\xff\xc0" in baseline and b"\xff\xc2" in progressive and b"\xff\xc0" not in progressive
    assert jpeg_size(baseline) == jpeg_size(progressive) == (200, 100)


def test_jpeg_size_skips_large_segments_and_fill_bytes_before_the_frame_header() -> None:
    image = Image.new("L", (50, 40), 128)
    out = io.BytesIO()
    exif = Image.Exif()
    exif[0x010E] = "x" * 20_000  # ImageDescription: a 20 KB APP1 before SOF
    image.save(out, "JPEG", exif=exif.tobytes())
    jpeg = out.getvalue()
    assert jpeg_size(jpeg) == (50, 40)
    padded = jpeg[:2] + b"\xff\xff\xff" + jpeg[2:]  # fill bytes may precede any marker
    assert jpeg_size(padded) == (50, 40)
    standalone = jpeg[:2] + b"\xff\x01\xff\xd3" + jpeg[2:]  # TEM and RST3 carry no length
    assert jpeg_size(standalone) == (50, 40)


@pytest.mark.parametrize("data", [
    b"", b"\xff", b"\xff\xd8", b"\xff\xd8\xff", b"\xff\xd8\xff\xe0\x00",
    b"\x89PNG\r\n\x1a\n" + b"\0" * 40, b"GIF89a" + b"\0" * 40, b"not a jpeg at all",
    b"\xff\xd8\xff\xd9",  # SOI then EOI: no frame
    b"\xff\xd8\xff\xda\x00\x08" + b"\0" * 10,  # scan data before any frame header
    b"\xff\xd8\xff\xe0\x00\x01",  # a segment length below 2
    b"\xff\xd8\x00\x00",  # no marker where one must be
    fake_jpeg(100, width=0),  # a frame header without a size (height from DNL)
    fake_jpeg(100, height=0),
])
def test_jpeg_size_refuses_what_is_not_a_jpeg(data: bytes) -> None:
    with pytest.raises(NotJpeg):
        jpeg_size(data)
    with pytest.raises(NotJpeg):
        encode_frame("default", 1, AT, data)


def test_jpeg_size_refuses_a_jpeg_cut_before_its_frame_header() -> None:
    jpeg = pillow_jpeg(64, 48)
    sof = jpeg.index(b"\xff\xc0")
    for cut in (sof, sof + 1, sof + 4, sof + 8):
        with pytest.raises(NotJpeg):
            jpeg_size(jpeg[:cut])
    assert jpeg_size(jpeg[:sof + 9]) == (64, 48)


@given(st.binary(max_size=200))
def test_jpeg_size_on_any_bytes_answers_a_size_or_not_jpeg(tail: bytes) -> None:
    for data in (tail, b"\xff\xd8" + tail):
        try:
            width, height = jpeg_size(data)
        except NotJpeg:
            continue
        assert width > 0 and height > 0


# -- reassembly ----------------------------------------------------------------------------------


def test_a_new_part_zero_replaces_a_torn_frame() -> None:
    first, second = lines_of(fake_jpeg(3 * PART_BYTES, seed=1), seq=1), lines_of(fake_jpeg(500, seed=2), seq=2)
    reassembler = Reassembler()
    assert reassembler.feed(first[0]) is None and reassembler.pending
    whole = reassembler.feed(second[0])
    assert whole is not None and whole.seq == 2 and whole.jpeg == fake_jpeg(500, seed=2)
    assert reassembler.torn == 1 and not reassembler.pending


def _broken(line: dict[str, Any], **change: object) -> dict[str, Any]:
    return {**line, **change}


@pytest.mark.parametrize("break_it", [
    lambda lines: [lines[0], lines[2]],  # a part skipped
    lambda lines: [lines[1]],  # no part 0
    lambda lines: [lines[0], _broken(lines[1], seq=9)],
    lambda lines: [lines[0], _broken(lines[1], parts=4)],
    lambda lines: [lines[0], _broken(lines[1], width=1)],
    lambda lines: [lines[0], _broken(lines[1], data="not base64!")],
    lambda lines: [lines[0], _broken(lines[1], data="")],
    lambda lines: [lines[0], _broken(lines[1], data=lines[1]["data"][:-4])],
    lambda lines: [lines[0], _broken(lines[1], data=lines[1]["data"] + "AAAA")],
    lambda lines: [_broken(lines[0], parts=17, part=0)],
    lambda lines: [_broken(lines[0], part=3, parts=3)],
    lambda lines: [_broken(lines[0], part=-1)],
    lambda lines: [_broken(lines[0], seq="1")],
    lambda lines: [_broken(lines[0], at=1.5)],
    lambda lines: [_broken(lines[0], format="png")],
    lambda lines: [_broken(lines[0], session=None)],
])
def test_parts_that_break_the_rules_are_refused_and_their_frame_discarded(
        break_it: Callable[[list[dict[str, Any]]], list[dict[str, Any]]]) -> None:
    lines = lines_of(fake_jpeg(3 * PART_BYTES))
    reassembler = Reassembler()
    with pytest.raises(BadPart):
        for line in break_it(lines):
            assert reassembler.feed(line) is None
    assert not reassembler.pending
    again = lines_of(fake_jpeg(700), seq=5)  # the stream goes on with the next frame
    assert reassembler.feed(again[0]) is not None
