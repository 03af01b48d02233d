"""The operator socket's framing and messages: pure, with hypothesis for open-ended input."""

from __future__ import annotations

import itertools
import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from browx_actors.human.operator import redial_delay
from browx_actors.human.prompts import PromptSpec, prompt_line
from browx_actors.operator_wire import (
    MAX_LINE,
    LineBuffer,
    LineTooLong,
    Message,
    Oversized,
    WireError,
    encode,
    error_line,
    is_valid_hello,
    parse_line,
)


def _drain(buffer: LineBuffer) -> list[bytes | Oversized]:
    out = []
    while (item := buffer.next()) is not None:
        out.append(item)
    return out


@given(
    lines=st.lists(st.binary(max_size=60).map(lambda b: b.replace(b"\n", b"")), max_size=8),
    cuts=st.lists(st.integers(min_value=0, max_value=600), max_size=8),
)
def test_lines_come_out_whole_however_the_bytes_are_cut(lines: list[bytes], cuts: list[int]) -> None:
    data = b"".join(line + b"\n" for line in lines)
    buffer = LineBuffer(limit=64)
    points = sorted({min(c, len(data)) for c in cuts} | {0, len(data)})
    for start, end in itertools.pairwise(points):
        buffer.feed(data[start:end])
    assert _drain(buffer) == lines


@given(st.lists(st.integers(min_value=0, max_value=200), min_size=1, max_size=6),
       st.integers(min_value=1, max_value=97))
def test_oversized_lines_are_reported_once_and_skipped(sizes: list[int], chunk: int) -> None:
    limit = 100
    data = b"".join(b"x" * n + b"\n" for n in sizes)
    buffer = LineBuffer(limit=limit)
    for i in range(0, len(data), chunk):
        buffer.feed(data[i:i + chunk])
    out = _drain(buffer)
    assert len(out) == len(sizes)
    for size, item in zip(sizes, out, strict=True):
        if size > limit:
            assert isinstance(item, Oversized)
        else:
            assert item == b"x" * size


def test_an_endless_line_is_reported_before_it_ends() -> None:
    buffer = LineBuffer()
    buffer.feed(b"y" * (MAX_LINE + 1))
    assert isinstance(buffer.next(), Oversized)
    buffer.feed(b"y" * 10_000_000)  # still the same line: nothing kept, nothing reported
    assert buffer.next() is None
    buffer.feed(b"\n{}\n")
    assert buffer.next() == b"{}"


@given(st.binary(max_size=300))
def test_parsing_any_line_never_raises(raw: bytes) -> None:
    assert isinstance(parse_line(raw), (Message, WireError))


@pytest.mark.parametrize(
    ("raw", "code"),
    [
        (b"not json", "bad-line"),
        (b"\xff\xfe", "bad-line"),
        (b"[1, 2]", "bad-line"),
        (b'{"type": "human.done"}', "bad-version"),
        (b'{"v": 2, "type": "human.done"}', "bad-version"),
        (b'{"v": true, "type": "human.done"}', "bad-version"),
        (b'{"v": 1}', "bad-message"),
        (b'{"v": 1, "type": 7}', "bad-message"),
    ],
)
def test_garbage_is_classified(raw: bytes, code: str) -> None:
    parsed = parse_line(raw)
    assert isinstance(parsed, WireError) and parsed.code == code


def test_hello_is_checked_against_the_token() -> None:
    good = parse_line(b'{"v":1,"type":"hello","token":"s3cret"}')
    assert is_valid_hello(good, "s3cret")
    assert not is_valid_hello(good, "s3cret!")
    assert not is_valid_hello(good, "")
    assert not is_valid_hello(parse_line(b'{"v":1,"type":"hello","token":5}'), "5")
    assert not is_valid_hello(parse_line(b'{"v":1,"type":"human.done","token":"s3cret"}'), "s3cret")
    assert not is_valid_hello(Oversized(10), "s3cret")
    assert not is_valid_hello(None, "s3cret")


def test_encoding_stays_inside_one_line() -> None:
    line = prompt_line("default", "abc123", PromptSpec("choose", "Which?\nReally?", ("a", "b"), 120_000))
    assert line.endswith(b"\n") and line.count(b"\n") == 1
    assert json.loads(line) == {"v": 1, "type": "human.prompt", "session": "default", "ticket": "abc123",
                                "kind": "choose", "prompt": "Which?\nReally?", "choices": ["a", "b"],
                                "timeoutMs": 120_000}
    assert json.loads(prompt_line("s", "t", PromptSpec("confirm", "ok?")))["choices"] is None
    with pytest.raises(LineTooLong):
        encode("human.prompt", prompt="\u0001" * MAX_LINE)


def test_redial_backs_off_to_five_seconds() -> None:
    delays = [redial_delay(n) for n in range(12)]
    assert delays[0] == 0.05 and delays == sorted(delays) and delays[-1] == 5.0


@given(st.text(), st.text())
def test_encode_never_raises_on_any_text_and_writes_valid_utf8(ticket: str, reason: str) -> None:
    line = error_line("unknown-ticket", reason, ticket=ticket)
    decoded = json.loads(line.decode("utf-8"))
    assert decoded["type"] == "error" and "\ud800" not in decoded["ticket"]


def test_a_line_holding_a_lone_surrogate_is_refused_not_read() -> None:
    parsed = parse_line(b'{"v":1,"type":"human.done","ticket":"\\ud800","value":1}')
    assert isinstance(parsed, WireError) and parsed.code == "bad-line"
    assert isinstance(parse_line(b'{"v":1,"type":"human.done","ticket":"\\ud83d\\ude00"}'), Message)  # a pair is fine
