"""Tool argument declarations: one source for the JSON Schema and for validation.

Every tool declares its parameters as :class:`Param` values. The same declaration
produces the ``inputSchema`` agents see and the validation the dispatch path runs, so
the two cannot drift. Validation is pure: it returns the arguments with defaults filled
in, or raises ``bad-arg`` naming the field.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import attrs

from ..actor import ToolError

__all__ = ["Param", "json_schema", "validate_args"]

_PY_TYPES: dict[str, tuple[type, ...]] = {
    "string": (str,),
    "integer": (int,),
    "number": (int, float),
    "boolean": (bool,),
    "object": (dict,),
    "array": (list,),
}


@attrs.frozen
class Param:
    name: str
    type: str
    description: str
    required: bool = False
    default: Any = None
    enum: tuple[Any, ...] | None = None
    minimum: float | None = None
    maximum: float | None = None
    #: Longest string accepted, in characters (strings only).
    max_length: int | None = None
    #: Item type of an array parameter.
    items: str | None = None
    #: JSON Schema ``properties`` of an object parameter (shown to agents; each listed
    #: property's type is checked, extra keys are refused).
    properties: Mapping[str, Mapping[str, Any]] | None = None
    required_keys: tuple[str, ...] = ()

    def schema(self) -> dict[str, Any]:
        out: dict[str, Any] = {"type": self.type, "description": self.description}
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
        if self.items is not None:
            out["items"] = {"type": self.items}
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
        return value.is_integer()
    return isinstance(value, _PY_TYPES[type_name])


def _article(type_name: str) -> str:
    return "an" if type_name[0] in "aeiou" else "a"


def _json_type(value: Any) -> str:
    for name in ("boolean", "integer", "number", "string", "array", "object"):
        if _type_ok(value, name):
            return name
    return "null" if value is None else type(value).__name__


def _check(field: str, value: Any, type_name: str) -> None:
    if not _type_ok(value, type_name):
        raise ToolError(
            "bad-arg",
            f"{field} must be {_article(type_name)} {type_name}, got {_json_type(value)}",
            field=field,
        )


def validate_args(params: tuple[Param, ...], args: Any) -> dict[str, Any]:
    """Checked arguments with defaults filled in; ``bad-arg`` names the first bad field."""
    if args is None:
        args = {}
    if not isinstance(args, dict):
        raise ToolError("bad-arg", "arguments must be a JSON object", field="arguments")
    known = {p.name: p for p in params}
    for key in args:
        if key not in known:
            raise ToolError(
                "bad-arg",
                f"unknown argument {key!r} (known: {', '.join(known) or 'none'})",
                field=key,
            )
    out: dict[str, Any] = {}
    for p in params:
        if p.name not in args or args[p.name] is None:
            if p.required:
                raise ToolError("bad-arg", f"missing required argument {p.name!r}", field=p.name)
            out[p.name] = p.default
            continue
        value = args[p.name]
        _check(p.name, value, p.type)
        if p.type == "integer":
            value = int(value)
        if p.enum is not None and value not in p.enum:
            allowed = ", ".join(str(v) for v in p.enum)
            raise ToolError("bad-arg", f"{p.name} must be one of {allowed}, got {value!r}", field=p.name)
        if p.minimum is not None and value < p.minimum:
            raise ToolError("bad-arg", f"{p.name} must be at least {p.minimum:g}, got {value}", field=p.name)
        if p.maximum is not None and value > p.maximum:
            raise ToolError("bad-arg", f"{p.name} must be at most {p.maximum:g}, got {value}", field=p.name)
        if p.max_length is not None and len(value) > p.max_length:
            raise ToolError("bad-arg", f"{p.name} must be at most {p.max_length:,} characters, "
                            f"got {len(value):,}", field=p.name)
        if p.items is not None:
            for i, item in enumerate(value):
                _check(f"{p.name}[{i}]", item, p.items)
        if p.properties is not None:
            for key, item in value.items():
                sub = p.properties.get(key)
                if sub is None:
                    raise ToolError(
                        "bad-arg",
                        f"unknown key {key!r} in {p.name} (known: {', '.join(p.properties)})",
                        field=f"{p.name}.{key}",
                    )
                if "type" in sub:
                    _check(f"{p.name}.{key}", item, sub["type"])
            for key in p.required_keys:
                if key not in value:
                    raise ToolError("bad-arg", f"missing {p.name}.{key}", field=f"{p.name}.{key}")
        out[p.name] = value
    return out
