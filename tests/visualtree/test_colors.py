"""Colour normalisation to #AARRGGBB: every accepted spelling, and refusal to guess."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from browx_actors.visualtree.colors import to_argb

byte = st.integers(0, 255)


@pytest.mark.parametrize(
    ("colour", "expected"),
    [
        ("rgb(0, 102, 204)", "#FF0066CC"),
        ("rgba(0, 102, 204, 0.5)", "#800066CC"),
        ("rgba(0, 102, 204, 0)", "#000066CC"),
        ("rgb(0 102 204)", "#FF0066CC"),
        ("rgb(0 102 204 / 25%)", "#400066CC"),
        ("rgba(100%, 0%, 50%, 1)", "#FFFF0080"),
        ("rgb(127.5, 0, 0)", "#FF800000"),
        ("rgb(300, -5, 0)", "#FFFF0000"),
        ("  RGB(1, 2, 3)  ", "#FF010203"),
        ("color(srgb 1 0 0.5 / 0.5)", "#80FF0080"),
        ("#fff", "#FFFFFFFF"),
        ("#0c8", "#FF00CC88"),
        ("#0c88", "#8800CC88"),
        ("#0066cc", "#FF0066CC"),
        ("#0066CC80", "#800066CC"),
        ("transparent", "#00000000"),
        ("white", "#FFFFFFFF"),
        ("Black", "#FF000000"),
        ("green", "#FF008000"),
        ("grey", "#FF808080"),
        ("orange", "#FFFFA500"),
        (-1, "#FFFFFFFF"),
        (-16777216, "#FF000000"),
        (0xFF0066CC, "#FF0066CC"),
        (0x800066CC, "#800066CC"),
        (0, "#00000000"),
    ],
)
def test_accepted_spellings(colour: str | int, expected: str) -> None:
    assert to_argb(colour) == expected


@pytest.mark.parametrize(
    "colour",
    [
        None,
        True,
        "",
        "currentcolor",
        "inherit",
        "rebeccapurple-ish",
        "oklch(0.5 0.2 120)",
        "hsl(120, 100%, 50%)",
        "color(display-p3 1 0 0)",
        "#12",
        "#12345",
        "#1234567",
        "#ggg",
        "rgb(1, 2)",
        "rgb(1, 2, 3, 4, 5)",
        "rgb(1 2 3 4)",
        "rgb(a, b, c)",
        "rgb(1, 2, 3",
        "rgba(1, 2, 3, )",
        "rgb(1 2 3 /)",
        2**32,
        -(2**31) - 1,
    ],
)
def test_unknown_colours_are_omitted_not_guessed(colour: object) -> None:
    assert to_argb(colour) is None  # type: ignore[arg-type]


@given(byte, byte, byte, byte)
def test_every_spelling_of_one_colour_agrees(alpha: int, red: int, green: int, blue: int) -> None:
    expected = f"#{alpha:02X}{red:02X}{green:02X}{blue:02X}"
    assert to_argb(f"#{red:02x}{green:02x}{blue:02x}{alpha:02x}") == expected
    assert to_argb(f"rgba({red}, {green}, {blue}, {alpha / 255})") == expected
    assert to_argb(f"rgb({red} {green} {blue} / {alpha / 255})") == expected
    argb = (alpha << 24) | (red << 16) | (green << 8) | blue
    assert to_argb(argb) == expected
    assert to_argb(argb - 2**32 if argb >= 2**31 else argb) == expected  # a signed Java int


@given(byte, byte, byte)
def test_opaque_spellings_agree(red: int, green: int, blue: int) -> None:
    expected = f"#FF{red:02X}{green:02X}{blue:02X}"
    assert to_argb(f"rgb({red}, {green}, {blue})") == expected
    assert to_argb(f"#{red:02X}{green:02X}{blue:02X}") == expected


@given(st.text(max_size=40))
def test_any_string_is_a_colour_or_nothing(text: str) -> None:
    result = to_argb(text)
    assert result is None or (len(result) == 9 and result.startswith("#") and result[1:] == result[1:].upper())
