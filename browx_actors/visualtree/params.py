"""The ``ui.*`` tools' parameters, declared once for every engine, and what they become.

Every engine's handlers take the same arguments (the tools are declared once, beside
the first engine's handlers, and other engines ``implement`` them), so the declarations
live here with the pure functions that turn checked arguments into a
:class:`~.query.NodeQuery`, :class:`~.payload.TreeLimits` or
:class:`~.snapshots.NodeReference`. The dispatch validates every argument against these
declarations and their rules before anything runs; nothing below re-validates.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from browx_actors.errors import ToolError
from browx_actors.tools import Check, Param
from browx_actors.tools.params import COORDINATE, MAX_COORDINATE, MAX_ID

from .model import ACTIONS, ROLES, Bounds, Point
from .payload import DEPTH_LIMIT, TreeLimits
from .query import WAIT_CONDITIONS, NodeQuery, normalise_text
from .snapshots import NodeReference

__all__ = [
    "INSPECT_PARAMS",
    "PERFORM_PARAMS",
    "PERFORM_RULES",
    "QUERY_PARAMS",
    "QUERY_RULES",
    "TREE_PARAMS",
    "WAIT_PARAMS",
    "limits_of",
    "query_of",
    "reference_of",
]

Args = dict[str, Any]

#: The most nodes one payload may hold; a DOM provider also stops capturing there.
MAX_NODES = 20_000

_RECT: dict[str, Mapping[str, Any]] = {
    "x": COORDINATE,
    "y": COORDINATE,
    "width": {"type": "number", "minimum": 0, "maximum": 2 * MAX_COORDINATE},
    "height": {"type": "number", "minimum": 0, "maximum": 2 * MAX_COORDINATE},
}

# -- the tree ----------------------------------------------------------------------

MAX_DEPTH = Param("maxDepth", "integer", f"Deepest level shown in full, the root being 0; the children of a node at "
                  f"this depth are truncated placeholders (at most {DEPTH_LIMIT}, the default: deeper, read a "
                  "subtree with rootNodeId).", minimum=0, maximum=DEPTH_LIMIT)
PROPERTIES = Param("properties", "boolean", "Capture provider-specific properties (computed style, states) and show "
                   "them on each node.", default=False)

TREE_PARAMS = (
    MAX_DEPTH,
    Param("maxNodes", "integer", "Most nodes in the payload, placeholders included, spent breadth first.",
          default=2000, minimum=1, maximum=MAX_NODES),
    Param("rootNodeId", "string", "Read only this node's subtree: a node id from an earlier payload (a truncated "
          "placeholder's, say), looked up in the new capture.", max_length=200),
    PROPERTIES,
)

# -- references --------------------------------------------------------------------

REFERENCE = Param(
    "reference", "object", "A node reference as ui.query_nodes answers it: {source, snapshotId, revision, nodeId}.",
    required=True,
    properties={"source": {"type": "string"}, "snapshotId": {"type": "string"},
                "revision": {"type": "integer", "minimum": 0, "maximum": MAX_ID}, "nodeId": {"type": "string"}},
    required_keys=("source", "snapshotId", "revision", "nodeId"),
)

INSPECT_PARAMS = (
    REFERENCE,
    MAX_DEPTH,
    Param("maxNodes", "integer", "Most nodes of the node's subtree shown, placeholders included.", default=200,
          minimum=1, maximum=MAX_NODES),
    Param("properties", "boolean", "Show the properties the capture took (ask for them when capturing).",
          default=False),
)

# -- queries -----------------------------------------------------------------------

_CRITERIA = (
    Param("nodeId", "string", "Node id, exactly.", max_length=200),
    Param("automationId", "string", "Automation id exactly (DOM id or test attribute, Android resource id or the "
          "name after its :id/, iOS accessibility identifier).", max_length=500),
    Param("role", "string", "Neutral role.", enum=tuple(sorted(ROLES))),
    Param("type", "string", "Type name (DOM tag, platform class), or the last part of a dotted class name.",
          max_length=200),
    Param("text", "string", "Text in the label, the displayed text or the value (never a secure field's); "
          "invisible characters and runs of whitespace are ignored.", max_length=1000),
    Param("textMatch", "string", "contains: a case-insensitive substring; exact: the whole string, case-sensitive.",
          default="contains", enum=("contains", "exact")),
    Param("action", "string", "An action the node offers.", enum=ACTIONS),
    Param("visible", "boolean", "The node's visible flag."),
    Param("enabled", "boolean", "The node's enabled flag."),
    Param("intersects", "object", "A rectangle the node's bounds overlap (touching edges do not count).",
          properties=_RECT, required_keys=("x", "y", "width", "height")),
    Param("contains", "object", "A point {x, y}, or a rectangle {x, y, width, height}, wholly inside the node's "
          "bounds.", properties=_RECT, required_keys=("x", "y")),
)
_LIMIT = Param("limit", "integer", "Most matches listed; count says how many matched.", default=50, minimum=1,
               maximum=500)

QUERY_PARAMS = (
    *_CRITERIA,
    _LIMIT,
    Param("reuse", "boolean", "Select in the source's latest capture instead of capturing afresh, so the "
          "references it handed out stay valid (captures when there is none yet).", default=False),
    PROPERTIES,
)

WAIT_PARAMS = (
    Param("condition", "string", "exists: a match; notExists: none; visible / enabled: a match that is.",
          default="exists", enum=WAIT_CONDITIONS),
    *_CRITERIA,
    Param("timeoutMs", "integer", "How long to keep re-querying, in milliseconds (0: once).", default=5000,
          minimum=0, maximum=60_000),
    Param("intervalMs", "integer", "Pause between captures, in milliseconds.", default=100, minimum=10,
          maximum=5000),
    _LIMIT,
)


def _text_is_visible(args: Args) -> None:
    text = args.get("text")
    if text is not None and not normalise_text(text):
        raise ToolError("bad-arg", "text has no visible character to look for", field="text")


def _contains_is_a_point_or_a_rectangle(args: Args) -> None:
    contains = args.get("contains")
    if contains is not None and ("width" in contains) != ("height" in contains):
        raise ToolError("bad-arg", "contains is a point {x, y} or a rectangle {x, y, width, height}",
                        field="contains")


QUERY_RULES = (
    Check(_text_is_visible, "`text` has at least one visible character"),
    Check(_contains_is_a_point_or_a_rectangle, "`contains` is a point or a whole rectangle"),
)

# -- actions -----------------------------------------------------------------------

#: The actions that take text.
TEXT_ACTIONS = ("setValue", "typeText")

PERFORM_PARAMS = (
    REFERENCE,
    Param("action", "string", "What to do: tap, focus, unfocus, setValue, typeText or toggle.", required=True,
          enum=ACTIONS),
    Param("value", "string", "The text of setValue and typeText; <NAME> for a registered secret.",
          max_length=100_000),
)


def _value_goes_with_text_actions(args: Args) -> None:
    wants = args["action"] in TEXT_ACTIONS
    if wants and args.get("value") is None:
        raise ToolError("bad-arg", f"{args['action']} needs value", field="value")
    if not wants and args.get("value") is not None:
        raise ToolError("bad-arg", f"{args['action']} takes no value (only {' and '.join(TEXT_ACTIONS)} do)",
                        field="value")


PERFORM_RULES = (Check(_value_goes_with_text_actions, "`value` is given for setValue and typeText, and only for them"),)

# -- what the arguments become -----------------------------------------------------


def _rect(value: dict[str, float] | None) -> Bounds | None:
    return None if value is None else Bounds(value["x"], value["y"], value["width"], value["height"])


def _area(value: dict[str, float] | None) -> Bounds | Point | None:
    """``contains``: a rectangle when it has a size, else a point."""
    if value is None or "width" in value:
        return _rect(value)
    return Point(value["x"], value["y"])


def query_of(args: Args) -> NodeQuery:
    """The query that checked ``ui.query_nodes`` / ``ui.wait`` arguments describe."""
    return NodeQuery(
        node_id=args.get("nodeId"),
        automation_id=args.get("automationId"),
        role=args.get("role"),
        type_name=args.get("type"),
        text=args.get("text"),
        text_match=args.get("textMatch") or "contains",
        action=args.get("action"),
        visible=args.get("visible"),
        enabled=args.get("enabled"),
        intersects=_rect(args.get("intersects")),
        contains=_area(args.get("contains")),
    )


def limits_of(args: Args) -> TreeLimits:
    return TreeLimits(max_depth=args.get("maxDepth"), max_nodes=args.get("maxNodes"))


def reference_of(args: Args) -> NodeReference:
    return NodeReference.from_json(args["reference"])
