"""Rules between a tool's arguments, declared beside its parameters.

A parameter's own checks (type, range, enum) live in :mod:`.params`. What involves
several arguments lives here: exactly one of ``ref`` / ``selector`` / ``coords``, a field
that needs or excludes another, a capability that only some argument values need.
The dispatch runs every rule after the parameters and before anything is acquired, so
``click({})`` is refused in microseconds, with no browser started.

An argument counts as *given* when it is present and not null; the dispatch fills
absent arguments with their defaults first, so a rule should name fields without a
default (or say what their default means, as :class:`Check` can).

Every rule can describe itself in one line, which is how ``docs/tools.md`` lists them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

import attrs

from ..errors import ToolError
from ..jsonsafe import JsonObject, JsonValue

__all__ = [
    "AtLeastOne",
    "AtMostOne",
    "CapabilityWhen",
    "Check",
    "ExactlyOne",
    "Excludes",
    "JsonArgs",
    "Requires",
    "Rule",
    "given",
]

#: Arguments as the dispatch checked them, by JSON name: what rules read.
JsonArgs = JsonObject


def given(args: JsonArgs, field: str) -> bool:
    return args.get(field) is not None


class Rule(Protocol):
    def check(self, args: JsonArgs) -> None:
        """Raise ``bad-arg`` (or the rule's own code) naming the field; else nothing."""

    def describe(self) -> str:
        """The rule in one line, for the tool reference."""


def _bad(message: str, field: str) -> ToolError:
    return ToolError("bad-arg", message, field=field)


@attrs.frozen
class ExactlyOne:
    """One and only one of ``fields``. The error names the second one given, or the
    first field when none is."""

    fields: tuple[str, ...]

    def check(self, args: JsonArgs) -> None:
        present = [f for f in self.fields if given(args, f)]
        if len(present) != 1:
            field = present[1] if len(present) > 1 else self.fields[0]
            raise _bad(f"give exactly one of {', '.join(self.fields)}", field)

    def describe(self) -> str:
        return f"exactly one of {', '.join(f'`{f}`' for f in self.fields)}"


@attrs.frozen
class AtMostOne:
    fields: tuple[str, ...]

    def check(self, args: JsonArgs) -> None:
        present = [f for f in self.fields if given(args, f)]
        if len(present) > 1:
            raise _bad(f"give at most one of {', '.join(self.fields)}", present[1])

    def describe(self) -> str:
        return f"at most one of {', '.join(f'`{f}`' for f in self.fields)}"


@attrs.frozen
class AtLeastOne:
    fields: tuple[str, ...]

    def check(self, args: JsonArgs) -> None:
        if not any(given(args, f) for f in self.fields):
            raise _bad(f"give at least one of {', '.join(self.fields)}", self.fields[0])

    def describe(self) -> str:
        return f"at least one of {', '.join(f'`{f}`' for f in self.fields)}"


@attrs.frozen
class Requires:
    """``field`` given means each of ``needs`` must be given too."""

    field: str
    needs: tuple[str, ...]

    def check(self, args: JsonArgs) -> None:
        if given(args, self.field):
            for other in self.needs:
                if not given(args, other):
                    raise _bad(f"{self.field} needs {other} as well", other)

    def describe(self) -> str:
        return f"`{self.field}` needs {', '.join(f'`{f}`' for f in self.needs)}"


@attrs.frozen
class Excludes:
    """``field`` set (given and truthy: ``fullPage: false`` excludes nothing) rules out
    each of ``others``; ``message`` says why, naming ``field``."""

    field: str
    others: tuple[str, ...]
    message: str

    def check(self, args: JsonArgs) -> None:
        if args.get(self.field) and any(given(args, other) for other in self.others):
            raise _bad(self.message, self.field)

    def describe(self) -> str:
        return f"`{self.field}` excludes {', '.join(f'`{f}`' for f in self.others)}"


@attrs.frozen
class Check:
    """A rule written as a pure function of the arguments that raises a ToolError."""

    fn: Callable[[JsonArgs], None]
    description: str

    def check(self, args: JsonArgs) -> None:
        self.fn(args)

    def describe(self) -> str:
        return self.description


@attrs.frozen
class CapabilityWhen:
    """A capability the call needs only for some values of one argument (``open_session``
    with a native engine needs ``native-device``). Checked by the dispatch's gate,
    after the rules and beside the tool's own capability."""

    field: str
    values: tuple[JsonValue, ...]
    capability: str

    def needed(self, args: JsonArgs) -> str | None:
        return self.capability if args.get(self.field) in self.values else None

    def check(self, args: JsonArgs) -> None:
        """Nothing: the gate applies it (a missing capability is not a bad argument)."""

    def describe(self) -> str:
        values = ", ".join(f"`{v}`" for v in self.values)
        return f"`{self.field}` {values} needs the `{self.capability}` capability"
