"""Colours as the contract spells them: ``#AARRGGBB``, upper-case hex.

The DOM hands over CSS colour strings (``getComputedStyle`` answers ``rgb()``,
``rgba()``, or ``color(srgb ...)`` for colours authored that way; authored styles can
also be hex, names or ``transparent``) and Android hands
over ARGB ints; the payload shows one form for both. A colour this module cannot read
(``currentcolor``, ``oklch()``, a typo, an int out of range) becomes ``None`` and is left
out of the payload: a wrong colour is worse than none, so nothing is guessed.

Two spellings disagree on where alpha goes: an 8-digit hex *string* is read as CSS
(``#RRGGBBAA``, alpha last), an *int* as Android's ARGB (alpha in the top byte).
"""

from __future__ import annotations

import functools
import re

__all__ = ["to_argb"]

#: The CSS basic and a few extended names; anything else is not guessed at.
_NAMED: dict[str, tuple[int, int, int]] = {
    "black": (0, 0, 0),
    "white": (255, 255, 255),
    "red": (255, 0, 0),
    "green": (0, 128, 0),
    "lime": (0, 255, 0),
    "blue": (0, 0, 255),
    "yellow": (255, 255, 0),
    "cyan": (0, 255, 255),
    "aqua": (0, 255, 255),
    "magenta": (255, 0, 255),
    "fuchsia": (255, 0, 255),
    "gray": (128, 128, 128),
    "grey": (128, 128, 128),
    "silver": (192, 192, 192),
    "maroon": (128, 0, 0),
    "olive": (128, 128, 0),
    "navy": (0, 0, 128),
    "purple": (128, 0, 128),
    "teal": (0, 128, 128),
    "orange": (255, 165, 0),
}

_HEX = re.compile(r"#([0-9a-f]{3,4}|[0-9a-f]{6}|[0-9a-f]{8})")
_FUNCTION = re.compile(r"(rgba?|color)\(\s*(.*?)\s*\)")
_NUMBER = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?")


def to_argb(colour: str | int | None) -> str | None:
    """``colour`` as ``#AARRGGBB``, or ``None`` when it cannot be read for certain."""
    if colour is None or isinstance(colour, bool):
        return None
    if isinstance(colour, int):
        return _from_android(colour)
    return _from_css(colour)


# A page uses a handful of colours on thousands of nodes: parse each spelling once.
@functools.lru_cache(maxsize=1024)
def _from_css(colour: str) -> str | None:
    text = colour.strip().lower()
    if text == "transparent":
        return _format(0, 0, 0, 0)
    if text in _NAMED:
        return _format(255, *_NAMED[text])
    if hexed := _HEX.fullmatch(text):
        return _from_hex(hexed.group(1))
    if function := _FUNCTION.fullmatch(text):
        name, body = function.groups()
        return _from_color_function(body) if name == "color" else _from_rgb(body)
    return None


def _format(alpha: int, red: int, green: int, blue: int) -> str:
    return f"#{alpha:02X}{red:02X}{green:02X}{blue:02X}"


def _from_android(value: int) -> str | None:
    # Java ints are signed: opaque black arrives as -16777216 (0xFF000000).
    if not -(2**31) <= value < 2**32:
        return None
    value &= 0xFFFFFFFF
    return _format(value >> 24, (value >> 16) & 0xFF, (value >> 8) & 0xFF, value & 0xFF)


def _from_hex(digits: str) -> str:
    if len(digits) <= 4:
        digits = "".join(digit * 2 for digit in digits)
    red, green, blue = (int(digits[i : i + 2], 16) for i in (0, 2, 4))
    alpha = int(digits[6:8], 16) if len(digits) == 8 else 255
    return _format(alpha, red, green, blue)


def _split_arguments(body: str) -> tuple[list[str], str | None] | None:
    """The channel and alpha tokens of ``rgb()``: legacy commas or modern ``r g b / a``."""
    if "," in body:
        parts = [part.strip() for part in body.split(",")]
        if len(parts) not in (3, 4):
            return None
        return parts[:3], parts[3] if len(parts) == 4 else None
    channels, slash, alpha = body.partition("/")
    return channels.split(), alpha.strip() if slash else None


def _number(token: str) -> float | None:
    return float(token) if _NUMBER.fullmatch(token) else None


def _channel(token: str, full_scale: float) -> int | None:
    """A colour channel in 0..255: a percentage, or a number out of ``full_scale``."""
    if token.endswith("%"):
        percent = _number(token[:-1])
        fraction = None if percent is None else percent / 100
    else:
        number = _number(token)
        fraction = None if number is None else number / full_scale
    if fraction is None:
        return None
    return int(min(max(fraction, 0.0), 1.0) * 255 + 0.5)


def _alpha(token: str | None) -> int | None:
    return 255 if token is None else _channel(token, 1.0)


def _assemble(channels: list[str], alpha_token: str | None, full_scale: float) -> str | None:
    if len(channels) != 3:
        return None
    red, green, blue = (_channel(token, full_scale) for token in channels)
    alpha = _alpha(alpha_token)
    if red is None or green is None or blue is None or alpha is None:
        return None
    return _format(alpha, red, green, blue)


def _from_rgb(body: str) -> str | None:
    arguments = _split_arguments(body)
    return None if arguments is None else _assemble(*arguments, full_scale=255.0)


def _from_color_function(body: str) -> str | None:
    # Chromium serialises colours authored as color(srgb ...) in that form, channels 0..1.
    space, _, rest = body.partition(" ")
    if space != "srgb" or "," in rest:
        return None
    channels, slash, alpha = rest.partition("/")
    return _assemble(channels.split(), alpha.strip() if slash else None, full_scale=1.0)
