"""Tool parameters: one declaration for the JSON Schema agents see and for validation.

Every tool declares its parameters as :class:`Param` values. The same declaration
produces the ``inputSchema`` agents see and the checks the dispatch path runs, so the
two cannot drift. Validation is pure: it returns the arguments with defaults filled in,
or raises ``bad-arg`` naming the field.

Numbers are always finite: JSON has no NaN or Infinity, but a lenient parser may let
them through, and one ``1e308`` pixel must not reach a browser. Every number a tool
takes declares its range too (``minimum`` and ``maximum``; a test holds the catalog to
it), so a finite but absurd value is refused here, not by a browser that hangs on it.

Before any declared check, every argument value must be JSON data a tool can use
(:func:`check_shape`): nested at most :data:`MAX_DEPTH` levels, text that is valid
Unicode (no lone UTF-16 surrogate), integers of at most :data:`MAX_INT_DIGITS`
digits, no NaN or infinity anywhere, and no :class:`Unreadable` mark the MCP wire left
where it could not read a value. A library caller's arguments get the same checks as
an MCP client's, so whatever reaches a handler can also be written back out.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from typing import Literal

import attrs

from ..errors import ToolError
from ..jsonsafe import MAX_INT_DIGITS, JsonObject, JsonValue, first_surrogate

__all__ = [
    "COORDINATE",
    "MAX_COORDINATE",
    "MAX_DEPTH",
    "MAX_ID",
    "MAX_INT_DIGITS",
    "Param",
    "SecretsRule",
    "Unreadable",
    "check_shape",
    "json_schema",
    "validate_args",
]

#: Deepest nesting of arrays and objects in one argument (the argument itself is 0).
MAX_DEPTH = 32
#: Largest coordinate, in CSS pixels either way: 13 times the widest viewport, and far
#: inside what the browser's input pipeline takes (``1e308`` hangs it).
MAX_COORDINATE = 100_000
#: A number property of a point or rectangle, for ``properties`` declarations.
COORDINATE: Mapping[str, JsonValue] = {"type": "number", "minimum": -MAX_COORDINATE, "maximum": MAX_COORDINATE}
#: The largest id or count a tool takes (a tab id, an expected count): a 32-bit int.
MAX_ID = 2**31 - 1
#: Bits in the largest integer of :data:`MAX_INT_DIGITS` digits.
_MAX_INT_BITS = int(MAX_INT_DIGITS * math.log2(10))


@attrs.frozen
class Unreadable:
    """Stands where the wire could not read a value as JSON data: an integer of
    thousands of digits, a structure nested past what the parser takes. Validation
    refuses it with ``why``, naming the field, so the request still gets its answer."""

    why: str

_PY_TYPES: dict[str, tuple[type, ...]] = {
    "string": (str,),
    "integer": (int,),
    "number": (int, float),
    "boolean": (bool,),
    "object": (dict,),
    "array": (list,),
}

#: What the dispatch does with registered secrets in a parameter: leave the text alone
#: (``keep``, the default: a path, a URL, a selector, a name never gets a secret's
#: value, so a ``<NAME>`` there stays literally ``<NAME>``); put the value in for its
#: ``<NAME>`` alias (``substitute``: the parameter is a value the action types, sends or
#: checks, or a script); the same only in the ``value`` of each item (``values``: a list
#: of ``{ref or selector, value}``, whose targets stay as written); or mask raw values
#: back to their alias (``mask``: the text leaves the server, like a prompt shown to a
#: human or the name of a file the tool writes).
SecretsRule = Literal["keep", "substitute", "values", "mask"]


@attrs.frozen
class Param:
    name: str
    type: str = attrs.field(validator=attrs.validators.in_(_PY_TYPES))
    description: str
    required: bool = False
    default: JsonValue = None
    enum: tuple[JsonValue, ...] | None = None
    #: The range of a number, or of each item of an array of numbers.
    minimum: float | None = None
    maximum: float | None = None
    #: Longest string accepted, in characters (strings only).
    max_length: int | None = None
    #: A regular expression the whole string must match (strings only).
    pattern: str | None = None
    #: Item type of an array parameter, and the values an item may take.
    items: str | None = None
    item_enum: tuple[JsonValue, ...] | None = None
    #: Most and fewest items of an array parameter.
    max_items: int | None = None
    min_items: int | None = None
    #: JSON Schema ``properties`` of an object parameter, or of each item of an array
    #: parameter (shown to agents; each listed property's ``type`` (one name or a list),
    #: ``enum``, ``minimum``, ``maximum`` and ``maxLength`` are checked, extra keys are
    #: refused).
    properties: Mapping[str, Mapping[str, JsonValue]] | None = None
    required_keys: tuple[str, ...] = ()
    secrets: SecretsRule = "keep"
    #: ``null`` is a value of its own (it clears a setting): the checked arguments hold
    #: the key with ``None`` when the caller sent null, and lack it when the caller left
    #: it out. Not for required parameters or ones with a default.
    nullable: bool = False
    #: A parameter many tools share whose meaning the server's instructions state once
    #: (``ref``, ``selector``, ``coords``, ``session``): ``tools/list`` shows its type only.
    shared: bool = False

    def __attrs_post_init__(self) -> None:
        if self.nullable and (self.required or self.default is not None):
            raise ValueError(f"{self.name}: a nullable parameter has no default and is not required")

    def schema(self) -> JsonObject:
        out: JsonObject = {"type": [self.type, "null"] if self.nullable else self.type,
                           "description": self.description}
        if self.enum is not None:
            out["enum"] = list(self.enum)
        if self.default is not None:
            out["default"] = self.default
        if self.type != "array":  # an array's range is its items'
            _range_schema(out, self.minimum, self.maximum)
        if self.max_length is not None:
            out["maxLength"] = self.max_length
        if self.pattern is not None:
            out["pattern"] = self.pattern
        if self.items is not None:
            item: JsonObject = {"type": self.items}
            if self.item_enum is not None:
                item["enum"] = list(self.item_enum)
            _range_schema(item, self.minimum, self.maximum)
            if self.properties is not None:
                item.update(self._object_schema())
            out["items"] = item
        if self.max_items is not None:
            out["maxItems"] = self.max_items
        if self.min_items is not None:
            out["minItems"] = self.min_items
        if self.properties is not None and self.type == "object":
            out.update(self._object_schema())
        return out

    def _object_schema(self) -> JsonObject:
        assert self.properties is not None
        out: JsonObject = {"properties": {k: dict(v) for k, v in self.properties.items()},
                           "additionalProperties": False}
        if self.required_keys:
            out["required"] = list(self.required_keys)
        return out



def _range_schema(out: JsonObject, minimum: float | None, maximum: float | None) -> None:
    if minimum is not None:
        out["minimum"] = minimum
    if maximum is not None:
        out["maximum"] = maximum


def json_schema(params: tuple[Param, ...]) -> JsonObject:
    return {
        "type": "object",
        "properties": {p.name: p.schema() for p in params},
        "required": [p.name for p in params if p.required],
        "additionalProperties": False,
    }


def _type_ok(value: object, type_name: str) -> bool:
    if type_name in ("integer", "number") and isinstance(value, bool):
        return False
    if type_name == "integer" and isinstance(value, float):
        return math.isfinite(value) and value.is_integer()
    return isinstance(value, _PY_TYPES[type_name])


def _article(type_name: str) -> str:
    return "an" if type_name[0] in "aeiou" else "a"


def _json_type(value: object) -> str:
    for name in ("boolean", "integer", "number", "string", "array", "object"):
        if _type_ok(value, name):
            return name
    return "null" if value is None else type(value).__name__


def _bad(field: str, message: str) -> ToolError:
    return ToolError("bad-arg", message, field=field)


def _check(field: str, value: JsonValue, type_name: str | list[str] | tuple[str, ...]) -> None:
    if not isinstance(type_name, str):  # a JSON Schema list of types: any one will do
        ok = [name for name in type_name if _type_ok(value, name)]
        if not ok:
            raise _bad(field, f"{field} must be one of the types {', '.join(type_name)}, got {_json_type(value)}")
        type_name = ok[0]
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


def _check_range(field: str, value: float, minimum: float | None, maximum: float | None) -> None:
    if minimum is not None and value < minimum:
        raise _bad(field, f"{field} must be at least {minimum:g}, got {value}")
    if maximum is not None and value > maximum:
        raise _bad(field, f"{field} must be at most {maximum:g}, got {value}")


def _check_one(p: Param, value: JsonValue) -> JsonValue:
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
        if p.min_items is not None and len(value) < p.min_items:
            raise _bad(p.name, f"{p.name} holds {len(value):,} items, fewer than the {p.min_items:,} needed")
        if p.items is not None:
            checked = []
            for i, item in enumerate(value):
                _check(f"{p.name}[{i}]", item, p.items)
                if p.items in ("integer", "number"):
                    _check_range(f"{p.name}[{i}]", item, p.minimum, p.maximum)
                if p.item_enum is not None and item not in p.item_enum:
                    # The field is the array: the fix is to the list, not to one slot of it.
                    allowed = ", ".join(str(v) for v in p.item_enum)
                    raise _bad(p.name, f"{p.name}[{i}] must be one of {allowed}, got {item!r}")
                if p.properties is not None:
                    item = _check_properties(f"{p.name}[{i}]", item, p.properties, p.required_keys)
                checked.append(item)
            value = checked
    elif p.properties is not None:
        value = _check_properties(p.name, value, p.properties, p.required_keys)
    return value


def _check_properties(name: str, value: JsonObject, properties: Mapping[str, Mapping[str, JsonValue]],
                      required_keys: tuple[str, ...]) -> JsonObject:
    """The object checked, without the optional properties given as null: one given as
    null is one not given, for the rules and the handler as for this check."""
    for key, item in value.items():
        sub = properties.get(key)
        if sub is None:
            raise _bad(f"{name}.{key}", f"unknown key {key!r} in {name} (known: {', '.join(properties)})")
        field = f"{name}.{key}"
        if item is None and key not in required_keys:
            continue  # an optional property given as null is one not given
        if "type" in sub:
            _check(field, item, sub["type"])
            if isinstance(item, (int, float)) and not isinstance(item, bool):
                _check_range(field, item, sub.get("minimum"), sub.get("maximum"))
            limit = sub.get("maxLength")
            if isinstance(item, str) and limit is not None and len(item) > limit:
                raise _bad(field, f"{field} must be at most {limit:,} characters, got {len(item):,}")
        if "enum" in sub and item not in sub["enum"]:
            raise _bad(field, f"{field} must be one of {', '.join(map(str, sub['enum']))}, got {item!r}")
    for key in required_keys:
        if key not in value:
            raise _bad(f"{name}.{key}", f"missing {name}.{key}")
    if None in value.values():
        return {key: item for key, item in value.items() if item is not None}
    return value


def check_shape(field: str, value: object, depth: int = 0, *, argument: str | None = None) -> None:
    """Refuse a value that is not JSON data a tool can use and write back (see the
    module notes), naming the field where it breaks the rule and the rule's limit
    (for nesting, the argument that nests too deep)."""
    argument = field if argument is None else argument
    if isinstance(value, str):
        at = first_surrogate(value)
        if at >= 0:
            raise _bad(field, f"{field} holds a lone UTF-16 surrogate (U+{ord(value[at]):04X}) at index {at}: "
                       "text must be valid Unicode")
    elif isinstance(value, bool) or value is None:
        return
    elif isinstance(value, int):
        if value.bit_length() > _MAX_INT_BITS:
            raise _bad(field, f"{field} is an integer of more than {MAX_INT_DIGITS:,} digits; the limit is "
                       f"{MAX_INT_DIGITS:,}")
    elif isinstance(value, float):
        if not math.isfinite(value):
            raise _bad(field, f"{field} must be a finite number")
    elif isinstance(value, (dict, list, tuple)):
        if depth >= MAX_DEPTH:
            raise _bad(argument, f"{argument} is nested deeper than {MAX_DEPTH} levels of arrays and objects; "
                       f"the limit is {MAX_DEPTH}")
        if isinstance(value, dict):
            for key, item in value.items():
                if not isinstance(key, str):
                    raise _bad(field, f"{field} has a key of type {type(key).__name__}; object keys are strings")
                check_shape(f"{field}.{key}", key)
                check_shape(f"{field}.{key}", item, depth + 1, argument=argument)
        else:
            for i, item in enumerate(value):
                check_shape(f"{field}[{i}]", item, depth + 1, argument=argument)
    elif isinstance(value, Unreadable):
        raise _bad(field, f"{field}: {value.why}")
    else:
        raise _bad(field, f"{field} holds a {type(value).__name__}, which is not JSON data")


def validate_args(params: tuple[Param, ...], args: JsonValue) -> JsonObject:
    """Checked arguments with defaults filled in; ``bad-arg`` names the first bad field."""
    if args is None:
        args = {}
    if not isinstance(args, dict):
        raise _bad("arguments", "arguments must be a JSON object")
    known = {p.name: p for p in params}
    for key, value in args.items():
        if key not in known:
            raise _bad(str(key), f"unknown argument {key!r} (known: {', '.join(known) or 'none'})")
        check_shape(key, value)
    out: JsonObject = {}
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
