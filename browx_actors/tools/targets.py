"""Parameters every engine's session tools share: how a call names its target.

``ref`` is a ref from a snapshot or find (``e12``), or a name the session gave an
element with ``name_ref``; ``selector`` is the engine's selector language (Playwright
selectors on the web, the native vocabulary on apps); ``coords`` a point in the engine's
input space (CSS pixels on the web, the screen's points or pixels on a device).

Tools that take several targets at once (``drag {from, to}``, ``gesture_swipe``,
``gesture_pinch {center}``) take each as one object, ``{ref}`` or ``{selector}`` or
``{x, y}`` (:func:`point_target`), checked by :func:`one_point_target`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Protocol, runtime_checkable

import attrs

from ..errors import ToolError
from ..jsonsafe import JsonObject, JsonValue
from .params import COORDINATE, MAX_COORDINATE, Param
from .rules import AtMostOne, Check, ExactlyOne
from .shapes import Point, PointTarget

__all__ = [
    "BUTTON",
    "COORDS",
    "COORD_LIMIT",
    "ELEMENT",
    "GESTURE_MAX_MS",
    "GESTURE_MAX_STEPS",
    "MODIFIERS",
    "MODIFIER_KEYS",
    "ONE_ELEMENT",
    "ONE_TARGET",
    "OPTIONAL_ELEMENT",
    "OPTIONAL_TARGET",
    "POINT_PROPERTIES",
    "REF",
    "REF_NAME_PATTERN",
    "SELECTOR",
    "STEPS",
    "TIMEOUT_MS",
    "Aim",
    "Element",
    "Target",
    "coords_of",
    "duration",
    "is_ref_name",
    "one_point_target",
    "point_target",
]

class Element(Protocol):
    """Arguments that name an element: a ``ref`` or a ``selector`` (the tool's rules say
    how many of them may be given)."""

    @property
    def ref(self) -> str | None: ...

    @property
    def selector(self) -> str | None: ...


@runtime_checkable
class Aim(Element, Protocol):
    """Arguments that name an element or a point (``coords``)."""

    @property
    def coords(self) -> Point | None: ...


@attrs.frozen
class Target:
    """A target a handler names itself (a form field, a point of a gesture, a ref a name
    resolved to): an :class:`Aim` like any tool's arguments."""

    ref: str | None = None
    selector: str | None = None
    coords: Point | None = None

    @classmethod
    def of(cls, value: PointTarget) -> Target:
        """A point target (``{ref}``, ``{selector}`` or ``{x, y}``) as a target."""
        if "x" in value and "y" in value:
            return cls(coords={"x": value["x"], "y": value["y"]})
        return cls(ref=value.get("ref"), selector=value.get("selector"))


def coords_of(target: Element) -> Point | None:
    """The point a target names, if it is one that can (an :class:`Aim`)."""
    return target.coords if isinstance(target, Aim) else None


#: The largest coordinate accepted, either way from the origin: far beyond any screen,
#: and small enough that no arithmetic on it (interpolation, a pinch's spread) overflows.
COORD_LIMIT = MAX_COORDINATE
#: ``{x, y}`` as object properties, each finite and within :data:`COORD_LIMIT`.
POINT_PROPERTIES: dict[str, Mapping[str, JsonValue]] = {"x": COORDINATE, "y": COORDINATE}

#: What ``name_ref`` accepts as a name: an identifier-like word that cannot be read as an
#: ``eN`` or ``fNeM`` ref, so a ``ref`` argument is a ref or a name and never both.
REF_NAME_PATTERN = r"(?!(?:f\d+)?e\d+$)[A-Za-z_][A-Za-z0-9_.:-]{0,63}"
_REF_NAME = re.compile(REF_NAME_PATTERN)
#: A ref as snapshots spell it: ``e12``, or ``f2e5`` inside frame ``f2``.
_REF = re.compile(r"^\s*\[?\s*(?:ref\s*=\s*)?(?:f\d+)?e\d+\s*\]?\s*$")

REF = Param("ref", "string", "Element ref from a snapshot or find (e12, or f2e5 inside a frame), or a name given "
            "with name_ref.",
            max_length=200, shared=True)
SELECTOR = Param("selector", "string",
                 "Playwright selector (CSS, text=, role=...) when no ref is at hand.", shared=True)
COORDS = Param("coords", "object", "Viewport point in CSS pixels.",
               properties=POINT_PROPERTIES, required_keys=("x", "y"), shared=True)
#: The keys a click or a double click may hold.
MODIFIER_KEYS = ("Alt", "Control", "ControlOrMeta", "Meta", "Shift")
BUTTON = Param("button", "string", "", default="left", enum=("left", "right", "middle"))
MODIFIERS = Param("modifiers", "array", "Keys held during the click.", items="string", item_enum=MODIFIER_KEYS,
                  max_items=len(MODIFIER_KEYS))
TIMEOUT_MS = Param("timeoutMs", "integer", "Milliseconds to wait.", default=5000,
                   minimum=0, maximum=60_000)

#: Longest gesture and most moves in one (a paced move, a swipe, a pinch, a drag).
GESTURE_MAX_MS = 10_000
GESTURE_MAX_STEPS = 200
STEPS = Param("steps", "integer", "Moves along the way.", minimum=1, maximum=GESTURE_MAX_STEPS)


def duration(default: int) -> Param:
    """``durationMs``: how long a gesture takes, from its first event to its last (the name
    says it all, so ``tools/list`` shows no description)."""
    return Param("durationMs", "integer", "", default=default, minimum=0, maximum=GESTURE_MAX_MS)


#: An element, by ref or selector.
ELEMENT = (REF, SELECTOR)
#: Exactly one of ref, selector, coords.
ONE_TARGET = ExactlyOne(("ref", "selector", "coords"))
#: At most one of ref, selector, coords (none: where the pointer is).
OPTIONAL_TARGET = AtMostOne(("ref", "selector", "coords"))
#: Exactly one of ref, selector.
ONE_ELEMENT = ExactlyOne(("ref", "selector"))
#: At most one of ref, selector (none: the page itself).
OPTIONAL_ELEMENT = AtMostOne(("ref", "selector"))


def is_ref_name(value: object) -> bool:
    """Is ``value`` a name given with ``name_ref`` (and not an ``eN`` ref)?"""
    return isinstance(value, str) and _REF.match(value) is None and _REF_NAME.fullmatch(value) is not None


def point_target(name: str, description: str, *, required: bool = True) -> Param:
    """A parameter naming one point: ``{ref}``, ``{selector}`` or ``{x, y}``."""
    return Param(
        name, "object", f"{description}: {{ref}}, {{selector}} or {{x, y}}.",
        required=required,
        properties={"ref": {"type": "string", "maxLength": 200}, "selector": {"type": "string"},
                    **POINT_PROPERTIES},
    )


def _one_point(field: str, value: JsonValue) -> None:
    if value is None:
        return
    given = [key for key in ("ref", "selector") if key in value]
    has_x, has_y = "x" in value, "y" in value
    if has_x != has_y:
        raise ToolError("bad-arg", f"{field} needs both x and y", field=f"{field}.{'y' if has_x else 'x'}")
    if has_x:
        given.append("x, y")
    if len(given) != 1:
        raise ToolError("bad-arg", f"{field} takes exactly one of ref, selector or x and y "
                        f"(got {' and '.join(given) or 'none'})", field=field)


def one_point_target(*fields: str) -> Check:
    """The rule for :func:`point_target` parameters: each given one names exactly one point."""

    def check(args: JsonObject) -> None:
        for field in fields:
            _one_point(field, args.get(field))

    names = ", ".join(f"`{f}`" for f in fields)
    return Check(check, f"{names}: each exactly one of `ref`, `selector` or `x` and `y`")
