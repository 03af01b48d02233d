"""A capture as the compact v2 payload: ``ui.get_visual_tree`` and ``ui.inspect_node``.

Every rule the contract states about a node is applied here, once, for every provider:
``interactable`` is derived, colours become ``#AARRGGBB``, displayed strings are bounded,
secure values are dropped, ``z`` and ``properties`` appear only when they say something,
and an absent optional field is left out (never ``null``).

Choices the contract leaves to the provider, made here and kept:

- **Type registry.** ``types`` lists the type names of the nodes *in this payload*, each
  once, in the order the nodes were serialised (breadth first, so ``types[0]`` is the
  root's); a node's ``typeId`` indexes it. Two payloads of the same capture (a tree and
  an inspection) can number the same type differently: always read ``types[typeId]``.
- **Bounded strings.** ``label``, ``visual.text`` and ``visual.value`` keep at most
  :data:`TEXT_LIMIT` characters. A cut string is a prefix of the original, and says so
  beside it: ``labelClipped``, ``textClipped``, ``valueClipped`` (``true``; absent when
  whole).
- **Depth.** No payload nests more than :data:`DEPTH_LIMIT` levels below its root,
  whatever ``maxDepth`` says: MCP's JSON parser (pydantic's) refuses a document nested
  deeper than 200 levels, each node level is two (the node and its ``children``), and
  the envelope, ``after`` and ``tool.batch`` add their own. Deeper nodes are truncated
  placeholders like any other, read through ``rootNodeId``.
- **Limits.** ``maxNodes`` bounds the entries in the payload, placeholders included, and
  is spent breadth first: the upper levels of the tree are shown whole before any one
  deep subtree. ``maxDepth`` counts from the payload's root (depth 0); the children of a
  node at ``maxDepth`` appear as *truncated placeholders*, ``{"id", "typeId",
  "truncated": true, "childCount"}`` (plus ``z`` when not default), whose id can be
  passed back as ``rootNodeId`` to read that subtree. A child the node budget has no
  room for is left out. Either way every full node's ``childCount`` counts all its
  children (those its provider's own limit left out of the capture too), so
  ``len(children) < childCount`` says that some were omitted.
- **Inspection.** :func:`inspect_payload` answers the same header and registry rules
  (ancestors are serialised first) with ``node``, the node and its descendants bounded
  by :data:`INSPECT_LIMITS`, and ``ancestors``, root first, each in the full node shape
  but without ``children``.
- **Matches.** :func:`matches_payload` (``ui.query_nodes``, ``ui.wait``) answers the same
  header and registry with ``count`` (every match), ``truncated`` (more matched than are
  listed) and ``matches``: for each, the full ``reference`` to pass back and the ``node``
  in the full shape without ``children``, in document order.
"""

from __future__ import annotations

import functools
from collections import deque
from collections.abc import Callable, Sequence
from types import MappingProxyType

import attrs

from browx_actors.errors import ToolError

from ..jsonsafe import JsonObject, JsonValue
from ..tools.visual import DEPTH_LIMIT  # the deepest level a payload shows in full (see "Depth")
from .colors import to_argb
from .model import Bounds, RawNode, Visual
from .snapshots import Capture

__all__ = [
    "DEPTH_LIMIT",
    "INSPECT_LIMITS",
    "NO_LIMITS",
    "TEXT_LIMIT",
    "TreeLimits",
    "inspect_payload",
    "matches_payload",
    "tree_payload",
]

#: The longest ``label``, ``visual.text`` or ``visual.value`` a payload carries, in characters.
TEXT_LIMIT = 256


def _optional_at_least(minimum: int) -> Callable[[object, attrs.Attribute[int | None], int | None], object]:
    return attrs.validators.optional([attrs.validators.instance_of(int), attrs.validators.ge(minimum)])


@attrs.frozen
class TreeLimits:
    """How much of a tree a payload shows; ``None`` is no limit.

    ``max_depth`` is the deepest level shown in full, the payload's root being level 0
    (so 0 shows the root with its children as placeholders); ``max_nodes`` is the most
    entries the payload holds, placeholders included (at least 1: the root).
    """

    max_depth: int | None = attrs.field(default=None, validator=_optional_at_least(0))
    max_nodes: int | None = attrs.field(default=None, validator=_optional_at_least(1))


#: No limit: the whole tree.
NO_LIMITS = TreeLimits()

#: How much of a node's subtree ``ui.inspect_node`` shows unless asked otherwise.
INSPECT_LIMITS = TreeLimits(max_nodes=200)


class _TypeRegistry:
    """The payload's ``types``: each type name once, numbered as first met."""

    def __init__(self) -> None:
        self.names: list[str] = []
        self._ids: dict[str, int] = {}

    def type_id(self, name: str) -> int:
        found = self._ids.get(name)
        if found is None:
            found = self._ids[name] = len(self.names)
            self.names.append(name)
        return found


def _number(value: float, places: int) -> int | float:
    # Integral geometry reads as integers (Android pixels); CSS pixels keep two places.
    if type(value) is int:
        return value
    rounded = round(value, places)
    return int(rounded) if rounded.is_integer() else rounded


# Rounding a float to two places is a decimal conversion, the costliest step of a node,
# and a page repeats a few hundred coordinates on thousands of nodes: round each once
# (typed, so that a cached 1.0 never answers for a True).
@functools.lru_cache(maxsize=4096, typed=True)
def _two_places(value: float) -> int | float:
    return _number(value, 2)


def _box(bounds: Bounds) -> JsonObject:
    """``bounds`` as the payload writes them: each edge as :func:`_number` with two places
    (written out, not a call per edge: a page has thousands of boxes)."""
    x, y, width, height = bounds
    return {
        "x": x if type(x) is int else _two_places(x),
        "y": y if type(y) is int else _two_places(y),
        "width": width if type(width) is int else _two_places(width),
        "height": height if type(height) is int else _two_places(height),
    }


def _bounded(entry: JsonObject, key: str, text: str) -> None:
    if len(text) > TEXT_LIMIT:
        entry[key] = text[:TEXT_LIMIT]
        entry[f"{key}Clipped"] = True
    else:
        entry[key] = text


# A page paints thousands of nodes in a handful of colour and opacity combinations: work
# out each once. Typed, so that True (no colour) is not taken for the int 1 (a colour).
@functools.lru_cache(maxsize=1024, typed=True)
def _appearance(
    foreground: str | int | None, background: str | int | None, opacity: float
) -> MappingProxyType[str, JsonValue]:
    """A visual's ``foreground``, ``background`` and ``opacity`` entries, in payload order.

    Shared by every node that looks the same, so read-only: a node's entry is a copy.
    """
    entry: JsonObject = {}
    if (argb := to_argb(foreground)) is not None:
        entry["foreground"] = argb
    if (argb := to_argb(background)) is not None:
        entry["background"] = argb
    entry["opacity"] = _number(opacity, 3)
    return MappingProxyType(entry)


def _visual(visual: Visual, secure: bool) -> JsonObject:
    foreground, background, opacity, text, value = visual
    entry = _appearance(foreground, background, opacity).copy()
    if not secure:
        if text:
            _bounded(entry, "text", text)
        if value is not None:
            _bounded(entry, "value", value)
    return entry


def _full(node: RawNode, types: _TypeRegistry, include_properties: bool) -> JsonObject:
    # A node is a named tuple: unpacking it once costs half what reading its fields by name
    # would. In RawNode's field order (test_payload.py holds each field to its own entry).
    (node_id, type_name, role, automation_id, label, actions, visible, enabled, focusable, focused, bounds, visual,
     secure, z, properties, children, omitted_children) = node
    entry: JsonObject = {"id": node_id, "typeId": types.type_id(type_name)}
    if automation_id:
        entry["automationId"] = automation_id
    if label:
        _bounded(entry, "label", label)
    entry["role"] = role
    entry["supportedActions"] = list(actions)
    entry["interactable"] = visible and enabled and bool(actions)
    entry["visible"] = visible
    entry["enabled"] = enabled
    if focusable is not None:
        entry["focusable"] = focusable
    if focused is not None:
        entry["focused"] = focused
    entry["childCount"] = len(children) + omitted_children
    if bounds is not None:
        entry["bounds"] = _box(bounds)
    entry["visual"] = _visual(visual, secure)
    if z:
        entry["z"] = z
    if include_properties and properties:
        entry["properties"] = dict(properties)
    return entry


def _placeholder(node: RawNode, types: _TypeRegistry) -> JsonObject:
    entry: JsonObject = {"id": node.id, "typeId": types.type_id(node.type_name), "truncated": True}
    entry["childCount"] = len(node.children) + node.omitted_children
    if node.z:
        entry["z"] = node.z
    return entry


def _subtree(top: RawNode, types: _TypeRegistry, limits: TreeLimits, include_properties: bool) -> JsonObject:
    """``top`` and its descendants within ``limits``, filled breadth first."""
    budget = limits.max_nodes - 1 if limits.max_nodes is not None else None
    max_depth = DEPTH_LIMIT if limits.max_depth is None else min(limits.max_depth, DEPTH_LIMIT)
    top_entry = _full(top, types, include_properties)
    top_entry["children"] = []
    pending: deque[tuple[RawNode, JsonObject, int]] = deque([(top, top_entry, 0)])
    while pending:
        node, entry, depth = pending.popleft()
        beyond_depth = depth >= max_depth
        for child in node.children:
            if budget == 0:
                return top_entry
            if budget is not None:
                budget -= 1
            if beyond_depth:
                entry["children"].append(_placeholder(child, types))
            else:
                child_entry = _full(child, types, include_properties)
                child_entry["children"] = []
                entry["children"].append(child_entry)
                pending.append((child, child_entry, depth + 1))
    return top_entry


def _header(capture: Capture, types: _TypeRegistry) -> JsonObject:
    return {
        "format": capture.format,
        "platform": capture.platform,
        "source": capture.source,
        "snapshotId": capture.snapshot_id,
        "revision": capture.revision,
        "nodeIdentity": {"scope": "snapshot", "source": capture.source, "staleAfterRevision": capture.revision},
        "capturedAtUtc": capture.captured_at_utc,
        # The same list the registry fills as the nodes are serialised.
        "types": types.names,
    }


def _node_of(capture: Capture, node_id: str, field: str) -> RawNode:
    node = capture.node(node_id)
    if node is None:
        raise ToolError(
            "target-not-found",
            f"capture {capture.snapshot_id} has no node {node_id!r}",
            field=field,
            nodeId=node_id,
            snapshotId=capture.snapshot_id,
        )
    return node


def tree_payload(
    capture: Capture,
    *,
    limits: TreeLimits = NO_LIMITS,
    root_node_id: str | None = None,
    include_properties: bool = False,
) -> JsonObject:
    """The ``ui.get_visual_tree`` payload of ``capture``, from ``root_node_id`` or its root."""
    top = capture.root if root_node_id is None else _node_of(capture, root_node_id, "rootNodeId")
    types = _TypeRegistry()
    payload = _header(capture, types)
    payload["root"] = _subtree(top, types, limits, include_properties)
    return payload


def inspect_payload(
    capture: Capture,
    node_id: str,
    *,
    limits: TreeLimits = INSPECT_LIMITS,
    include_properties: bool = False,
) -> JsonObject:
    """The ``ui.inspect_node`` payload: the node, its ancestors (root first), its descendants."""
    node = _node_of(capture, node_id, "nodeId")
    types = _TypeRegistry()
    payload = _header(capture, types)
    ancestors = [_full(ancestor, types, include_properties) for ancestor in capture.ancestors(node_id)]
    payload["node"] = _subtree(node, types, limits, include_properties)
    payload["ancestors"] = ancestors
    return payload


def matches_payload(
    capture: Capture, nodes: Sequence[RawNode], *, limit: int | None = None, include_properties: bool = False
) -> JsonObject:
    """The nodes a query selected in ``capture``: references and compact nodes, at most ``limit``."""
    types = _TypeRegistry()
    payload = _header(capture, types)
    shown = nodes if limit is None else nodes[:limit]
    payload["count"] = len(nodes)
    payload["truncated"] = len(shown) < len(nodes)
    payload["matches"] = [
        {"reference": capture.reference(node).to_json(), "node": _full(node, types, include_properties)}
        for node in shown
    ]
    return payload
