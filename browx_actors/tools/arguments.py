"""A tool's arguments as a frozen attrs class: the parameter list and the handler's type at once.

Each field of an argument class is declared by its :class:`~.params.Param` (the JSON name,
type, checks and default an agent sees)::

    @arguments
    class ClickArgs(SessionArgs):
        ref: str | None = arg(REF)
        click_count: int = param("clickCount", "integer", "1 for a click, 2 for a double click.",
                                 default=1, minimum=1, maximum=3)

so the same lines give the ``inputSchema`` (:meth:`Arguments.params`), the validation
(:func:`~.params.validate_args`, which works on the JSON names and names the field in its
errors) and what the handler reads: ``args.click_count``, typed, never
``args["clickCount"]``. The attribute is the JSON name in snake case; :func:`arguments`
refuses a class where the two disagree, or a field that no Param declares.

Nested objects stay JSON data (their keys are the wire's): the handler reads
``args.coords["x"]``, typed by a TypedDict of :mod:`.shapes`.

A nullable parameter (``null`` clears a setting, leaving it out keeps it) is
:data:`UNSET` when the caller left it out, ``None`` when they sent null.
"""

from __future__ import annotations

import enum
import re
from collections.abc import Mapping
from typing import Any, TypeVar, cast, dataclass_transform

import attrs
from attrs import AttrsInstance

from ..jsonsafe import JsonObject, JsonValue
from .params import Param

__all__ = ["PARAM", "UNSET", "Arguments", "NoArgs", "Unset", "arg", "arguments", "param", "snake"]

#: The metadata key a field's Param is kept under.
PARAM = "browx.param"

A = TypeVar("A", bound="Arguments")
C = TypeVar("C", bound=type)


class Unset(enum.Enum):
    """A nullable argument the caller left out (``None`` is the null they sent)."""

    UNSET = "unset"

    def __repr__(self) -> str:
        return "UNSET"


UNSET = Unset.UNSET


def snake(name: str) -> str:
    """``clickCount`` -> ``click_count``; ``from`` -> ``from_`` (a Python keyword)."""
    out = re.sub(r"(?<=[a-z0-9])([A-Z])", r"_\1", name).lower()
    return f"{out}_" if out in _KEYWORDS else out


_KEYWORDS = frozenset({"from", "in", "is", "global", "lambda", "class", "import", "with", "as", "pass"})


# Any: the field sits under whatever annotation its class gives it, as attrs.field does.
def arg(declared: Param) -> Any:
    """The field ``declared`` describes; typed ``Any`` so it sits under any annotation."""
    default: object
    if declared.nullable:
        default = UNSET
    elif declared.required:
        default = attrs.NOTHING
    elif isinstance(declared.default, (list, dict)):
        default = attrs.Factory(declared.default.copy)  # each instance its own
    else:
        default = declared.default
    return attrs.field(default=default, kw_only=True, metadata={PARAM: declared})


# Any: as arg()'s; the checks are Param's keyword arguments, passed on as they are.
def param(name: str, type: str, description: str, **checks: Any) -> Any:
    """``arg(Param(name, type, description, **checks))``: a field declared in place."""
    return arg(Param(name, type, description, **checks))


class Arguments:
    """The base of every argument class; see the module notes."""

    __slots__ = ()

    @classmethod
    def params(cls) -> tuple[Param, ...]:
        """The parameters, in declaration order, ``session`` last."""
        return _params(cls)

    @classmethod
    def of(cls: type[A], checked: Mapping[str, JsonValue]) -> A:
        """The arguments from checked JSON ones (defaults filled in, by JSON name)."""
        values = {attr: checked[name] for name, attr in _attributes(cls) if name in checked}
        return cls(**values)

    def replace(self: A, **changes: object) -> A:
        """A copy with ``changes`` (by attribute name): what a handler passes on changed."""
        # Any: every argument class is an attrs class (arguments() makes it one), which the
        # attrs plugin cannot see through the type variable.
        made: A = attrs.evolve(cast(Any, self), **changes)
        return made

    def json(self) -> JsonObject:
        """The arguments by JSON name, as the dispatch checked them (unset ones left out)."""
        return {name: value for name, attr in _attributes(type(self))
                if (value := getattr(self, attr)) is not UNSET}


#: Each argument class's parameters and ``(JSON name, attribute)`` pairs, read from its
#: fields once (every call builds an instance through them).
_PARAMS: dict[type, tuple[Param, ...]] = {}
_ATTRIBUTES: dict[type, tuple[tuple[str, str], ...]] = {}


def _fields(cls: type[Arguments]) -> tuple[attrs.Attribute[object], ...]:
    # Every argument class is made by arguments(), which makes it an attrs class.
    fields: tuple[attrs.Attribute[object], ...] = attrs.fields(cast("type[AttrsInstance]", cls))
    return fields


def _params(cls: type[Arguments]) -> tuple[Param, ...]:
    found = _PARAMS.get(cls)
    if found is None:
        declared = [field.metadata[PARAM] for field in _fields(cls)]
        found = _PARAMS[cls] = (*(p for p in declared if p.name != "session"),
                                *(p for p in declared if p.name == "session"))
    return found


def _attributes(cls: type[Arguments]) -> tuple[tuple[str, str], ...]:
    """``(JSON name, attribute)`` of each field."""
    found = _ATTRIBUTES.get(cls)
    if found is None:
        found = _ATTRIBUTES[cls] = tuple((field.metadata[PARAM].name, field.name) for field in _fields(cls))
    return found


# For the type checker: fields are keyword-only and frozen; a field's default is its
# Param's, which it cannot see, so it takes every field as optional.
@dataclass_transform(kw_only_default=True, frozen_default=True)
def arguments(cls: C) -> C:
    """Make ``cls`` a frozen, keyword-only attrs class of arguments, after checking
    that every field is declared by a Param whose JSON name it spells in snake case."""
    made = attrs.frozen(kw_only=True)(cls)
    for field in attrs.fields(made):
        declared = field.metadata.get(PARAM)
        if not isinstance(declared, Param):
            raise TypeError(f"{cls.__name__}.{field.name} is not declared by a Param (use arg() or param())")
        if snake(declared.name) != field.name:
            raise TypeError(f"{cls.__name__}.{field.name} declares {declared.name!r}; "
                            f"name the attribute {snake(declared.name)!r}")
    return made


@arguments
class NoArgs(Arguments):
    """A tool that takes no arguments."""
