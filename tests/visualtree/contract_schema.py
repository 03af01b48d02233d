"""The compact v2 visual-tree contract as a JSON Schema (draft 2020-12), and the checks it cannot say.

Written from the contract's text, not from our builder, so a payload that drifts from
the contract fails here. What the contract states:

- the top level: ``format`` (``ansight.<provider>.visual-tree.compact.v2``), ``platform``,
  ``source``, ``snapshotId``, ``revision``, ``nodeIdentity`` ``{scope: "snapshot",
  source, staleAfterRevision}``, ``capturedAtUtc`` (ISO 8601 with milliseconds, ``Z``),
  ``types`` (the capture-local registry of type names) and ``root``;
- every node has ``id`` and a required ``typeId``; a non-truncated node has the common
  fields of the field table with their types, and a ``visual`` whose ``opacity`` is
  required and whose colours are ``#AARRGGBB``; ``children`` nest nodes;
- a truncated placeholder "may contain only id, typeId, and truncation/stacking
  metadata".

What the contract leaves to the provider, as :mod:`browx_actors.visualtree.payload`
documents it: placeholders say ``"truncated": true`` (and ``childCount``); clipped
strings carry ``labelClipped`` / ``textClipped`` / ``valueClipped``; ``ui.inspect_node``
answers ``node`` and ``ancestors`` (full nodes without ``children``); ``ui.query_nodes``
and ``ui.wait`` answer ``count``, ``truncated`` and ``matches``, each a complete
reference ``{source, snapshotId, revision, nodeId}`` (the contract's) with its
``node``. No field may be ``null``: no type below admits it.

JSON Schema cannot index one array by a number held in another, nor compare values
across the document, so :func:`check_tree` and :func:`check_inspection` add: every
``typeId`` is an index into ``types``; node ids are unique; ``interactable`` is exactly
"visible, enabled and exposes a supported action"; ``childCount`` is never below the
children shown; ``nodeIdentity.source`` is the ``source``.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import jsonschema

__all__ = [
    "INSPECTION_SCHEMA", "MATCHES_SCHEMA", "TREE_SCHEMA", "check_inspection", "check_matches", "check_tree",
    "nodes_of", "payload_of",
]

_ARGB = {"type": "string", "pattern": "^#[0-9A-Fa-f]{8}$"}
_TRUE = {"const": True}
_ACTIONS = ["tap", "focus", "unfocus", "setValue", "typeText", "toggle"]

_BOUNDS = {
    "type": "object",
    "required": ["x", "y", "width", "height"],
    "properties": {key: {"type": "number"} for key in ("x", "y", "width", "height")},
    "additionalProperties": False,
}

_VISUAL = {
    "type": "object",
    "required": ["opacity"],
    "properties": {
        "foreground": _ARGB,
        "background": _ARGB,
        "opacity": {"type": "number", "minimum": 0, "maximum": 1},
        "text": {"type": "string"},
        "textClipped": _TRUE,
        "value": {"type": "string"},
        "valueClipped": _TRUE,
    },
    "additionalProperties": False,
}

_ID = {"type": "string", "minLength": 1}
_TYPE_ID = {"type": "integer", "minimum": 0}
_COUNT = {"type": "integer", "minimum": 0}

#: The field table, less ``children``.
_NODE_FIELDS: dict[str, Any] = {
    "id": _ID,
    "typeId": _TYPE_ID,
    "automationId": {"type": "string", "minLength": 1},
    "label": {"type": "string"},
    "labelClipped": _TRUE,
    "role": {"type": "string", "minLength": 1},
    "supportedActions": {"type": "array", "items": {"enum": _ACTIONS}, "uniqueItems": True},
    "interactable": {"type": "boolean"},
    "visible": {"type": "boolean"},
    "enabled": {"type": "boolean"},
    "focusable": {"type": "boolean"},
    "focused": {"type": "boolean"},
    "childCount": _COUNT,
    "bounds": _BOUNDS,
    "visual": _VISUAL,
    # "Optional non-default stacking priority": the default (0) is never written.
    "z": {"type": "integer", "not": {"const": 0}},
    "properties": {"type": "object"},
}

_DEFS = {
    "node": {"oneOf": [{"$ref": "#/$defs/fullNode"}, {"$ref": "#/$defs/placeholder"}]},
    "fullNode": {
        "type": "object",
        "required": ["id", "typeId", "visual", "children"],
        "properties": {**_NODE_FIELDS, "children": {"type": "array", "items": {"$ref": "#/$defs/node"}}},
        "additionalProperties": False,
    },
    "placeholder": {
        "type": "object",
        "required": ["id", "typeId", "truncated"],
        "properties": {"id": _ID, "typeId": _TYPE_ID, "truncated": _TRUE, "childCount": _COUNT, "z": _NODE_FIELDS["z"]},
        "additionalProperties": False,
    },
    "ancestor": {
        "type": "object",
        "required": ["id", "typeId", "visual"],
        "properties": _NODE_FIELDS,
        "additionalProperties": False,
    },
}

_HEADER: dict[str, Any] = {
    "format": {"type": "string", "pattern": r"^ansight\.[a-z]+\.visual-tree\.compact\.v2$"},
    "platform": {"type": "string", "minLength": 1},
    "source": {"enum": ["native", "maui", "react", "flutter", "dom"]},
    "snapshotId": {"type": "string", "minLength": 1},
    "revision": {"type": "integer", "minimum": 0},
    "nodeIdentity": {
        "type": "object",
        "required": ["scope", "source", "staleAfterRevision"],
        "properties": {
            "scope": {"const": "snapshot"},
            "source": {"type": "string"},
            "staleAfterRevision": {"type": "integer", "minimum": 0},
        },
        "additionalProperties": False,
    },
    "capturedAtUtc": {"type": "string", "pattern": r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$"},
    "types": {"type": "array", "items": {"type": "string"}, "uniqueItems": True},
}


def _document(body: dict[str, Any]) -> dict[str, Any]:
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "required": [*_HEADER, *body],
        "properties": {**_HEADER, **body},
        "additionalProperties": False,
        "$defs": _DEFS,
    }


TREE_SCHEMA = _document({"root": {"$ref": "#/$defs/node"}})
INSPECTION_SCHEMA = _document(
    {"node": {"$ref": "#/$defs/node"}, "ancestors": {"type": "array", "items": {"$ref": "#/$defs/ancestor"}}}
)

#: The contract's complete reference, exactly its four keys.
_REFERENCE = {
    "type": "object",
    "required": ["source", "snapshotId", "revision", "nodeId"],
    "properties": {"source": {"type": "string"}, "snapshotId": _ID, "revision": {"type": "integer", "minimum": 0},
                   "nodeId": _ID},
    "additionalProperties": False,
}
MATCHES_SCHEMA = _document({
    "count": _COUNT,
    "truncated": {"type": "boolean"},
    "matches": {
        "type": "array",
        "items": {
            "type": "object",
            "required": ["reference", "node"],
            "properties": {"reference": _REFERENCE, "node": {"$ref": "#/$defs/ancestor"}},
            "additionalProperties": False,
        },
    },
})

_TREE = jsonschema.Draft202012Validator(TREE_SCHEMA)
_INSPECTION = jsonschema.Draft202012Validator(INSPECTION_SCHEMA)
_MATCHES = jsonschema.Draft202012Validator(MATCHES_SCHEMA)
for _schema in (TREE_SCHEMA, INSPECTION_SCHEMA, MATCHES_SCHEMA):
    jsonschema.Draft202012Validator.check_schema(_schema)

#: What a tool's envelope adds around a payload: ``ok``, and ``warnings`` when there are any.
_ENVELOPE = ("ok", "warnings")


def payload_of(envelope: dict[str, Any], *extra: str) -> dict[str, Any]:
    """The payload inside a tool's envelope: without ``ok``, ``warnings`` and ``extra`` keys."""
    assert envelope["ok"] is True, envelope
    return {key: value for key, value in envelope.items() if key not in (*_ENVELOPE, *extra)}


def nodes_of(node: dict[str, Any]) -> Iterator[dict[str, Any]]:
    """A serialised node and every node beneath it, placeholders included."""
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        stack.extend(reversed(current.get("children", [])))


def _check_nodes(payload: dict[str, Any], nodes: list[dict[str, Any]]) -> None:
    types = payload["types"]
    ids = [node["id"] for node in nodes]
    assert len(ids) == len(set(ids)), f"node ids repeat: {ids}"
    for node in nodes:
        assert node["typeId"] < len(types), f"{node['id']}: typeId {node['typeId']} is past types ({len(types)})"
        if node.get("truncated"):
            continue
        if "interactable" in node:
            expected = node.get("visible", True) and node.get("enabled", True) and bool(node.get("supportedActions"))
            assert node["interactable"] == expected, f"{node['id']}: interactable is {node['interactable']}"
        if "childCount" in node and "children" in node:
            assert node["childCount"] >= len(node["children"]), f"{node['id']}: childCount below its children"
    assert payload["nodeIdentity"]["source"] == payload["source"]


def check_tree(payload: dict[str, Any]) -> dict[str, Any]:
    """Fail unless ``payload`` is a ``ui.get_visual_tree`` payload by the contract; return it."""
    _TREE.validate(payload)
    _check_nodes(payload, list(nodes_of(payload["root"])))
    return payload


def check_inspection(payload: dict[str, Any]) -> dict[str, Any]:
    """Fail unless ``payload`` is a ``ui.inspect_node`` payload by the contract; return it."""
    _INSPECTION.validate(payload)
    _check_nodes(payload, [*payload["ancestors"], *nodes_of(payload["node"])])
    return payload


def check_matches(payload: dict[str, Any]) -> dict[str, Any]:
    """Fail unless ``payload`` is a ``ui.query_nodes`` / ``ui.wait`` answer by the contract; return it."""
    _MATCHES.validate(payload)
    _check_nodes(payload, [match["node"] for match in payload["matches"]])
    assert payload["count"] >= len(payload["matches"])
    assert payload["truncated"] is (payload["count"] > len(payload["matches"]))
    for match in payload["matches"]:
        reference, node = match["reference"], match["node"]
        assert reference == {"source": payload["source"], "snapshotId": payload["snapshotId"],
                             "revision": payload["revision"], "nodeId": node["id"]}, match
    return payload
