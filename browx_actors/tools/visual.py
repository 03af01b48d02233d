"""The ``ui.*`` tools: the platform-neutral compact v2 visual tree, and what a call asks of it.

The tree's vocabulary is part of the contract, so it is declared here with the tools:
the neutral :data:`ROLES`, the semantic :data:`ACTIONS` a node may offer, the conditions
``ui.wait`` re-queries for, the deepest payload and the most nodes one may hold, and
how text is compared (:func:`normalise_text`). ``browx_actors.visualtree`` builds the
payloads, queries and actions over each engine's source, from these.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Mapping
from typing import Literal

from ..errors import ToolError
from ..jsonsafe import JsonValue
from .arguments import arg, arguments, param
from .contract import ACTS, READS, SessionArgs, session_tool
from .params import COORDINATE, MAX_COORDINATE, MAX_ID, Param
from .rules import Check, JsonArgs
from .shapes import NodeReferenceJson, Rect

__all__ = [
    "ACTIONS",
    "DEPTH_LIMIT",
    "MAX_NODES",
    "ROLES",
    "TEXT_ACTIONS",
    "WAIT_CONDITIONS",
    "Action",
    "WaitCondition",
    "normalise_text",
]

Action = Literal["tap", "focus", "unfocus", "setValue", "typeText", "toggle"]
WaitCondition = Literal["exists", "notExists", "visible", "enabled"]

#: The semantic actions ``ui.perform_action`` can ask of a provider, in the order a
#: node's ``supportedActions`` lists them.
ACTIONS: tuple[Action, ...] = ("tap", "focus", "unfocus", "setValue", "typeText", "toggle")
#: The actions that take text.
TEXT_ACTIONS = ("setValue", "typeText")

#: The platform-neutral roles. Coarse on purpose: an agent asks for "a button" on the web
#: and on a phone alike, and the platform's own class stays on the node's type name.
#: ``container`` is every structural node (layouts, groups, windows, generic elements).
ROLES = frozenset(
    {
        "button", "link", "text", "heading", "input", "checkbox", "radio", "switch", "slider",
        "picker", "image", "list", "listitem", "tab", "menu", "menuitem", "dialog", "progress",
        "webview", "container",
    }
)  # fmt: skip

#: The conditions ``ui.wait`` re-queries for, as the contract names them.
WAIT_CONDITIONS: tuple[WaitCondition, ...] = ("exists", "notExists", "visible", "enabled")

#: No payload nests deeper than this below its root: the MCP SDK's JSON parser refuses
#: documents nested 200 deep, and a payload rides inside an envelope inside a result.
DEPTH_LIMIT = 64
#: The most nodes one payload may hold; a DOM provider also stops capturing there.
MAX_NODES = 20_000


def normalise_text(text: str) -> str:
    """``text`` without invisible format characters, its whitespace collapsed."""
    if not text.isascii():  # ASCII has no format characters: skip the per-character pass
        text = "".join(char for char in text if unicodedata.category(char) != "Cf")
    return " ".join(text.split())


_RECT: dict[str, Mapping[str, JsonValue]] = {
    "x": COORDINATE,
    "y": COORDINATE,
    "width": {"type": "number", "minimum": 0, "maximum": 2 * MAX_COORDINATE},
    "height": {"type": "number", "minimum": 0, "maximum": 2 * MAX_COORDINATE},
}

# -- the tree ----------------------------------------------------------------------

_MAX_DEPTH = Param("maxDepth", "integer", "Deepest level shown in full, the root being 0.", minimum=0,
                   maximum=DEPTH_LIMIT)


def _max_depth_note(root_node_id: str) -> str:
    """What a tool that takes maxDepth says of it, naming the ``rootNodeId`` to read deeper with."""
    return (f"maxDepth is the deepest level shown in full, the root being 0: the children of a node at that depth "
            f"are truncated placeholders (at most {DEPTH_LIMIT}, the default: deeper, read a subtree with "
            f"{root_node_id}).")


_PROPERTIES = Param("properties", "boolean", "Capture provider-specific properties (computed style, states).",
                    default=False)


@arguments
class VisualTreeArgs(SessionArgs):
    """ui.get_visual_tree's arguments."""

    max_depth: int | None = arg(_MAX_DEPTH)
    max_nodes: int = param("maxNodes", "integer", "Node budget, placeholders included, spent breadth first.",
                           default=2000, minimum=1, maximum=MAX_NODES)
    root_node_id: str | None = param("rootNodeId", "string", "Read only this node's subtree (id from an earlier "
                                     "payload).", max_length=200)
    properties: bool = arg(_PROPERTIES)


GET_VISUAL_TREE = session_tool(
    "ui.get_visual_tree", VisualTreeArgs,
    title="Visual tree", capability="read", hints=READS,
    summary="Capture the page or app screen as the compact v2 visual tree (whole, or one subtree).",
    description="The page (or app screen) as the compact v2 visual tree: one capture with a new revision, a type "
                "registry and nodes with role, automation id, label, supported actions, states, bounds and "
                "#AARRGGBB colours; a page's frames hang under their iframe nodes (ids f2n5). maxDepth, maxNodes "
                f"and rootNodeId truncate; childCount counts what was left out. {_max_depth_note('rootNodeId')} "
                "rootNodeId is a node id from an earlier payload (a truncated placeholder's, say), looked up in the "
                "new capture. properties shows the captured properties on each node.",
)

# -- references --------------------------------------------------------------------

_REFERENCE = Param(
    "reference", "object", "A node reference as ui.query_nodes answers it.",
    required=True,
    properties={"source": {"type": "string"}, "snapshotId": {"type": "string"},
                "revision": {"type": "integer", "minimum": 0, "maximum": MAX_ID}, "nodeId": {"type": "string"}},
    required_keys=("source", "snapshotId", "revision", "nodeId"),
)


@arguments
class InspectNodeArgs(SessionArgs):
    """ui.inspect_node's arguments."""

    reference: NodeReferenceJson = arg(_REFERENCE)
    max_depth: int | None = arg(_MAX_DEPTH)
    max_nodes: int = param("maxNodes", "integer", "Most subtree nodes shown, placeholders included.",
                           default=200, minimum=1, maximum=MAX_NODES)
    properties: bool = param("properties", "boolean", "Show the properties the capture took.", default=False)


INSPECT_NODE = session_tool(
    "ui.inspect_node", InspectNodeArgs,
    title="Inspect node", capability="read", hints=READS,
    summary="Read a node of the latest capture with its ancestors and descendants.",
    description="A node of the latest capture with its ancestors (root first) and descendants, in the same compact "
                "shape and type registry. A reference from an older capture answers stale_node_reference. "
                f"{_max_depth_note('the rootNodeId of ui.get_visual_tree')} properties shows only the properties the "
                "capture took: ask for them (properties) when capturing.",
)

# -- queries -----------------------------------------------------------------------


@arguments
class Criteria(SessionArgs):
    """What selects nodes, for ``ui.query_nodes`` and ``ui.wait``: every one given must hold."""

    node_id: str | None = param("nodeId", "string", "Node id, exactly.", max_length=200)
    automation_id: str | None = param("automationId", "string", "Exact DOM id or test attribute, resource id, "
                                      "accessibility id.", max_length=500)
    role: str | None = param("role", "string", "", enum=tuple(sorted(ROLES)))
    type: str | None = param("type", "string", "DOM tag or platform class, or its short form (Button).",
                             max_length=200)
    text: str | None = param("text", "string", "Text in the label, the displayed text or the value.",
                             max_length=1000, secrets="substitute")
    text_match: str = param("textMatch", "string", "contains: substring, any case; exact: whole, case-sensitive.",
                            default="contains", enum=("contains", "exact"))
    action: str | None = param("action", "string", "An action the node offers.", enum=ACTIONS)
    visible: bool | None = param("visible", "boolean", "")
    enabled: bool | None = param("enabled", "boolean", "")
    intersects: Rect | None = param("intersects", "object", "A rectangle the node's bounds overlap.",
                                    properties=_RECT, required_keys=("x", "y", "width", "height"))
    contains: Rect | None = param("contains", "object", "A point or rectangle wholly inside the node's bounds.",
                                  properties=_RECT, required_keys=("x", "y"))


#: How the criteria match, for the tools that take them.
_CRITERIA_NOTE = ("role is the neutral role; visible and enabled are the node's flags. automationId matches exactly: "
                  "a DOM id or test attribute, an Android resource id or the name after its :id/, an iOS "
                  "accessibility identifier. type is the type name (DOM tag, platform class) or its short form: "
                  "Button matches android.widget.Button and XCUIElementTypeButton. text is looked for in the "
                  "label, the displayed text or the value (never a "
                  "secure field's); invisible characters and runs of whitespace are ignored. textMatch contains is "
                  "a case-insensitive substring; exact, the whole string, case-sensitive. For intersects, touching "
                  "edges do not count; contains takes a point {x, y}, or a rectangle {x, y, width, height}.")


_LIMIT = Param("limit", "integer", "Most matches listed; count says how many matched.", default=50, minimum=1,
               maximum=500)


def _text_is_visible(args: JsonArgs) -> None:
    text = args.get("text")
    if text is not None and not normalise_text(text):
        raise ToolError("bad-arg", "text has no visible character to look for", field="text")


def _contains_is_a_point_or_a_rectangle(args: JsonArgs) -> None:
    contains = args.get("contains")
    if contains is not None and ("width" in contains) != ("height" in contains):
        raise ToolError("bad-arg", "contains is a point {x, y} or a rectangle {x, y, width, height}",
                        field="contains")


QUERY_RULES = (
    Check(_text_is_visible, "`text` has at least one visible character"),
    Check(_contains_is_a_point_or_a_rectangle, "`contains` is a point or a whole rectangle"),
)


@arguments
class QueryNodesArgs(Criteria):
    """ui.query_nodes's arguments."""

    limit: int = arg(_LIMIT)
    reuse: bool = param("reuse", "boolean", "Query the latest capture instead of capturing afresh.", default=False)
    properties: bool = arg(_PROPERTIES)


QUERY_NODES = session_tool(
    "ui.query_nodes", QueryNodesArgs,
    title="Query nodes", capability="read", hints=READS,
    summary="Find visual-tree nodes matching every criterion given, as references to inspect or act on.",
    description="Capture (or reuse the latest capture) and select nodes by node id, automation id, role, type, "
                "text, action, visibility, enabled state or bounds; every criterion given must hold. Each match is "
                "a full reference {source, snapshotId, revision, nodeId} for ui.inspect_node and ui.perform_action, "
                f"with its node. {_CRITERIA_NOTE} reuse selects in the source's latest capture instead of capturing "
                "afresh, so the references it handed out stay valid (it captures when there is none yet). "
                "properties shows the captured properties on each node.",
    rules=QUERY_RULES,
)

# -- actions -----------------------------------------------------------------------


def _value_goes_with_text_actions(args: JsonArgs) -> None:
    wants = args["action"] in TEXT_ACTIONS
    if wants and args.get("value") is None:
        raise ToolError("bad-arg", f"{args['action']} needs value", field="value")
    if not wants and args.get("value") is not None:
        raise ToolError("bad-arg", f"{args['action']} takes no value (only {' and '.join(TEXT_ACTIONS)} do)",
                        field="value")


@arguments
class PerformActionArgs(SessionArgs):
    """ui.perform_action's arguments."""

    reference: NodeReferenceJson = arg(_REFERENCE)
    action: str = param("action", "string", "", required=True, enum=ACTIONS)
    value: str | None = param("value", "string", "Text for setValue/typeText; <NAME> for a registered secret.",
                              max_length=100_000, secrets="substitute")


PERFORM_ACTION = session_tool(
    "ui.perform_action", PerformActionArgs,
    title="Perform action", capability="action", hints=ACTS,
    summary="Act on a node found with ui.query_nodes, by one of its supportedActions.",
    description="Do a node's action: tap, focus, unfocus, setValue, typeText or toggle, as the node's "
                "supportedActions offer. On a page this takes the path click and fill take (actionability checks, "
                "trusted input) and answers as they do; on android-app and ios-app the screen is read afresh and "
                "the node must still be at its place, then click and fill's input. A reference from an older "
                "capture, or to a node the screen has replaced, answers stale_node_reference.",
    rules=(Check(_value_goes_with_text_actions, "`value` is given for setValue and typeText, and only for them"),),
)

# -- waits -------------------------------------------------------------------------


@arguments
class WaitNodesArgs(Criteria):
    """ui.wait's arguments."""

    condition: str = param("condition", "string", "exists: a match; notExists: none; visible/enabled: one that is.",
                           default="exists", enum=WAIT_CONDITIONS)
    timeout_ms: int = param("timeoutMs", "integer", "How long to re-query, in ms (0: query once).",
                            default=5000, minimum=0, maximum=60_000)
    interval_ms: int = param("intervalMs", "integer", "Pause between captures, in ms.", default=100,
                             minimum=10, maximum=5000)
    limit: int = arg(_LIMIT)


def _wait_timeout(args: WaitNodesArgs) -> float:
    """The session call outlives the wait by the time its last capture may take."""
    return args.timeout_ms / 1000 + 60


WAIT_NODES = session_tool(
    "ui.wait", WaitNodesArgs,
    title="Wait for nodes", capability="read", hints=READS,
    summary="Re-query the visual tree until the nodes matching the criteria meet the condition.",
    description="Re-query until a condition holds: exists, notExists, visible or enabled, for the nodes the criteria "
                "select (those of ui.query_nodes). Captures every intervalMs until timeoutMs; answers the matches of "
                f"the capture that satisfied it, or timeout. {_CRITERIA_NOTE}",
    rules=QUERY_RULES,
    call_timeout=_wait_timeout,
)
