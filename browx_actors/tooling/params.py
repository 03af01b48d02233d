"""Tool parameters: one declaration for the JSON Schema agents see and for validation.

Every tool declares its parameters as :class:`Param` values. The same declaration
produces the ``inputSchema`` agents see and the checks the dispatch path runs, so the
two cannot drift. Validation is pure: it returns the arguments with defaults filled in,
or raises ``bad-arg`` naming the field.

Numbers are always finite: JSON has no NaN or Infinity, but a lenient parser may let
them through, and one ``1e308`` pixel must not reach a browser.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from typing import Any, Literal

import attrs

from ..errors import ToolError

__all__ = ["Param", "SecretsRule", "json_schema", "validate_args"]

_PY_TYPES: dict[str, tuple[type, ...]] = {
    "string": (str,),
    "integer": (int,),
    "number": (int, float),
    "boolean": (bool,),
    "object": (dict,),
    "array": (list,),
}

#: What the dispatch does with registered secrets in a string parameter: put the value
#: in for its ``<NAME>`` alias (``substitute``, the default: the value is needed by the
#: action), mask raw values back to their alias (``mask``: the text leaves the server,
#: like a prompt shown to a human), or leave the text alone (``keep``).
SecretsRule = Literal["substitute", "mask", "keep"]


@attrs.frozen
class Param:
    name: str
    type: str = attrs.field(validator=attrs.validators.in_(_PY_TYPES))
    description: str
    required: bool = False
    default: Any = None
    enum: tuple[Any, ...] | None = None
    minimum: float | None = None
    maximum: float | None = None
    #: Longest string accepted, in characters (strings only).
    max_length: int | None = None
    #: A regular expression the whole string must match (strings only).
    pattern: str | None = None
    #: Item type of an array parameter, and the values an item may take.
    items: str | None = None
    item_enum: tuple[Any, ...] | None = None
    #: Most items of an array parameter.
    max_items: int | None = None
    #: JSON Schema ``properties`` of an object parameter (shown to agents; each listed
    #: property's ``type``, ``minimum`` and ``maximum`` are checked, extra keys are refused).
    properties: Mapping[str, Mapping[str, Any]] | None = None
    required_keys: tuple[str, ...] = ()
    secrets: SecretsRule = "substitute"
    #: ``null`` is a value of its own (it clears a setting): the checked arguments hold
    #: the key with ``None`` when the caller sent null, and lack it when the caller left
    #: it out. Not for required parameters or ones with a default.
    nullable: bool = False

    def __attrs_post_init__(self) -> None:
        if self.nullable and (self.required or self.default is not None):
            raise ValueError(f"{self.name}: a nullable parameter has no default and is not required")

    def schema(self) -> dict[str, Any]:
        out: dict[str, Any] = {"type": [self.type, "null"] if self.nullable else self.type,
                               "description": self.description}
        if self.enum is not None:
            out["enum"] = list(self.enum)
        if self.default is not None:
            out["default"] = self.default
        if self.minimum is not None:
            out["minimum"] = self.minimum
        if self.maximum is not None:
            out["maximum"] = self.maximum
        if self.max_length is not None:
            out["maxLength"] = self.max_length
        if self.pattern is not None:
            out["pattern"] = self.pattern
        if self.items is not None:
            item: dict[str, Any] = {"type": self.items}
            if self.item_enum is not None:
                item["enum"] = list(self.item_enum)
            out["items"] = item
        if self.max_items is not None:
            out["maxItems"] = self.max_items
        if self.properties is not None:
            out["properties"] = {k: dict(v) for k, v in self.properties.items()}
            out["additionalProperties"] = False
            if self.required_keys:
                out["required"] = list(self.required_keys)
        return out


def json_schema(params: tuple[Param, ...]) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {p.name: p.schema() for p in params},
        "required": [p.name for p in params if p.required],
        "additionalProperties": False,
    }


def _type_ok(value: Any, type_name: str) -> bool:
    if type_name in ("integer", "number") and isinstance(value, bool):
        return False
    if type_name == "integer" and isinstance(value, float):
        return math.isfinite(value) and value.is_integer()
    return isinstance(value, _PY_TYPES[type_name])


def _article(type_name: str) -> str:
    return "an" if type_name[0] in "aeiou" else "a"


def _json_type(value: Any) -> str:
    for name in ("boolean", "integer", "number", "string", "array", "object"):
        if _type_ok(value, name):
            return name
    return "null" if value is None else type(value).__name__


def _bad(field: str, message: str) -> ToolError:
    return ToolError("bad-arg", message, field=field)


def _check(field: str, value: Any, type_name: str) -> None:
    if not _type_ok(value, type_name):
        raise _bad(field, f"{field} must be {_article(type_name)} {type_name}, got {_json_type(value)}")
    if type_name in ("number", "integer") and not _finite(value):
        raise _bad(field, f"{field} must be a finite number")


def _finite(value: int | float) -> bool:
    """True for a float that is not NaN or infinite and an int a float can hold."""
    try:
        return math.isfinite(value)
    except OverflowError:  # an int too large for a float: 1e400 as digits
        return False


def _check_range(field: str, value: Any, minimum: float | None, maximum: float | None) -> None:
    if minimum is not None and value < minimum:
        raise _bad(field, f"{field} must be at least {minimum:g}, got {value}")
    if maximum is not None and value > maximum:
        raise _bad(field, f"{field} must be at most {maximum:g}, got {value}")


def _check_one(p: Param, value: Any) -> Any:
    _check(p.name, value, p.type)
    if p.type == "integer":
        value = int(value)
    if p.enum is not None and value not in p.enum:
        allowed = ", ".join(str(v) for v in p.enum)
        raise _bad(p.name, f"{p.name} must be one of {allowed}, got {value!r}")
    if p.type in ("integer", "number"):
        _check_range(p.name, value, p.minimum, p.maximum)
    if p.max_length is not None and len(value) > p.max_length:
        raise _bad(p.name, f"{p.name} must be at most {p.max_length:,} characters, got {len(value):,}")
    if p.pattern is not None and re.fullmatch(p.pattern, value) is None:
        raise _bad(p.name, f"{p.name} must match {p.pattern}")
    if p.type == "array":
        if p.max_items is not None and len(value) > p.max_items:
            raise _bad(p.name, f"{p.name} holds {len(value):,} items, more than the {p.max_items:,} allowed")
        if p.items is not None:
            for i, item in enumerate(value):
                _check(f"{p.name}[{i}]", item, p.items)
                if p.item_enum is not None and item not in p.item_enum:
                    # The field is the array: the fix is to the list, not to one slot of it.
                    allowed = ", ".join(str(v) for v in p.item_enum)
                    raise _bad(p.name, f"{p.name}[{i}] must be one of {allowed}, got {item!r}")
    if p.properties is not None:
        for key, item in value.items():
            sub = p.properties.get(key)
            if sub is None:
                raise _bad(f"{p.name}.{key}", f"unknown key {key!r} in {p.name} (known: {', '.join(p.properties)})")
            field = f"{p.name}.{key}"
            if "type" in sub:
                _check(field, item, sub["type"])
                if sub["type"] in ("integer", "number"):
                    _check_range(field, item, sub.get("minimum"), sub.get("maximum"))
        for key in p.required_keys:
            if key not in value:
                raise _bad(f"{p.name}.{key}", f"missing {p.name}.{key}")
    return value


def validate_args(params: tuple[Param, ...], args: Any) -> dict[str, Any]:
    """Checked arguments with defaults filled in; ``bad-arg`` names the first bad field."""
    if args is None:
        args = {}
    if not isinstance(args, dict):
        raise _bad("arguments", "arguments must be a JSON object")
    known = {p.name: p for p in params}
    for key in args:
        if key not in known:
            raise _bad(str(key), f"unknown argument {key!r} (known: {', '.join(known) or 'none'})")
    out: dict[str, Any] = {}
    for p in params:
        if p.nullable:
            if p.name in args:
                out[p.name] = None if args[p.name] is None else _check_one(p, args[p.name])
            continue
        if p.name not in args or args[p.name] is None:
            if p.required:
                raise _bad(p.name, f"missing required argument {p.name!r}")
            out[p.name] = p.default
            continue
        out[p.name] = _check_one(p, args[p.name])
    return out
