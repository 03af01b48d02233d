"""The JSON objects tools take inside their arguments, as TypedDicts.

An argument that is an object (``coords``, ``drag``'s ``from``, a ``fill_form`` field)
stays JSON data after the dispatch checked it against its declared ``properties``: its
keys are the wire's (``deltaX``), and the handler reads them typed through these. A key
that is optional in the schema is ``NotRequired`` here (the dispatch drops one given as
null).
"""

from __future__ import annotations

from typing import NotRequired, TypedDict

from ..jsonsafe import JsonObject

__all__ = [
    "BatchCall",
    "ChainStep",
    "FormField",
    "Geolocation",
    "NetworkConditions",
    "NodeReferenceJson",
    "Point",
    "PointTarget",
    "Rect",
    "Region",
    "Size",
    "TouchPoint",
    "Transform",
]


class Point(TypedDict):
    x: float
    y: float


class Size(TypedDict):
    width: int
    height: int


class Rect(TypedDict):
    """A rectangle; ``ui.*``'s ``contains`` may be a point, without the size."""

    x: float
    y: float
    width: NotRequired[float]
    height: NotRequired[float]


class Region(TypedDict):
    """``canvas_diff``'s region, in canvas pixels."""

    x: float
    y: float
    w: float
    h: float


class PointTarget(TypedDict, total=False):
    """One point: ``{ref}``, ``{selector}`` or ``{x, y}`` (checked: exactly one)."""

    ref: str
    selector: str
    x: float
    y: float


class TouchPoint(TypedDict):
    x: float
    y: float
    id: NotRequired[int]


class FormField(TypedDict):
    """A field of ``fill_form``: ``{ref or selector, value}``; a checkbox's value is a bool,
    a ``<select>``'s a string or a list of them."""

    ref: NotRequired[str]
    selector: NotRequired[str]
    value: str | bool | list[str]


class Geolocation(TypedDict):
    latitude: float
    longitude: float
    accuracy: NotRequired[float]


class NetworkConditions(TypedDict, total=False):
    latencyMs: float
    downloadKbps: float
    uploadKbps: float


class NodeReferenceJson(TypedDict):
    """A visual-tree node reference as ``ui.query_nodes`` answers it."""

    source: str
    snapshotId: str
    revision: int
    nodeId: str


class ChainStep(TypedDict, total=False):
    kind: str
    x: float
    y: float
    deltaX: float
    deltaY: float
    ms: float
    pointerId: int


class Transform(TypedDict, total=False):
    scale: float
    panX: float
    panY: float
    originX: float
    originY: float


class BatchCall(TypedDict):
    """One call of ``tool.batch``: a tool's name and its arguments (checked when it runs)."""

    tool: str
    # A call's arguments are the inner tool's: checked by the dispatch when the call runs.
    arguments: NotRequired[JsonObject]
