"""What ``tools/list`` shows of a tool's parameters: the lean schema.

A host loads the listing into every conversation, so it carries what an agent needs to
fill an argument in (its type, enum, the shape of its items and objects, one line) and
leaves out what the dispatch checks and fills in itself (limits, patterns, defaults:
``params.json_schema`` has them all, and ``docs/tools.md`` shows them).
"""

from __future__ import annotations

from collections.abc import Mapping

from ..jsonsafe import JsonObject, JsonValue
from .params import Param

__all__ = ["wire", "wire_schema"]


def wire(param: Param) -> JsonObject:
    """The parameter as ``tools/list`` shows it: what an agent needs to fill it in.

    Types, enums, the shape of items and objects, and the description; not the
    limits, patterns and defaults the dispatch checks and fills in itself (a value
    past one is ``bad-arg`` naming the field and the limit), which ``docs/tools.md``
    lists. ``null`` and a list of types are ``anyOf`` branches, each one type, so a
    client that maps schemas onto a single-``type`` dialect keeps the parameter.
    """
    out = _typed([param.type, "null"] if param.nullable else param.type)
    if param.description and not param.shared:
        out["description"] = param.description
    if param.enum is not None:
        out["enum"] = list(param.enum)
    if param.items is not None:
        item: JsonObject = {"type": param.items}
        if param.item_enum is not None:
            item["enum"] = list(param.item_enum)
        if param.properties is not None:
            item.update(_wire_object(param.properties, param.required_keys))
        out["items"] = item
    if param.properties is not None and param.type == "object":
        out.update(_wire_object(param.properties, param.required_keys))
    return out


def _typed(type_name: JsonValue) -> JsonObject:
    """``{"type": ...}``, or ``anyOf`` one-type branches for a list of types."""
    if isinstance(type_name, list):
        return {"anyOf": [{"type": name} for name in type_name]}
    return {"type": type_name}


def _wire_object(properties: Mapping[str, Mapping[str, JsonValue]], required: tuple[str, ...]) -> JsonObject:
    shown: JsonObject = {}
    for key, declared in properties.items():
        prop = _typed(declared["type"]) if "type" in declared else {}
        for kept in ("description", "enum"):
            if kept in declared:
                prop[kept] = declared[kept]
        shown[key] = prop
    out: JsonObject = {"properties": shown}
    if required:
        out["required"] = list(required)
    return out


def wire_schema(params: tuple[Param, ...]) -> JsonObject:
    """The ``inputSchema`` ``tools/list`` shows: each parameter as :func:`wire` has it."""
    out: JsonObject = {"type": "object", "properties": {p.name: wire(p) for p in params}}
    required = [p.name for p in params if p.required]
    if required:
        out["required"] = required
    return out
