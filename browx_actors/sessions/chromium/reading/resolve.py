"""Named refs (``name_ref``) resolved in one place for every tool, before its handler runs.

:func:`run_with_named_refs` runs a tool's chromium handler so that each ``ref`` it takes
(a ``ref`` argument, the ``ref`` of a target object such as ``drag``'s ``from``, or of
an item such as ``fill_form``'s fields) that holds a name is replaced by the ref of the
element its anchor finds now (:class:`~.name_book.NamedRefBook`, one agent round trip
for all of them). A name the session does not know, or whose anchor finds nothing, fails
the call before the handler runs; an anchor that finds several elements warns.
"""

from __future__ import annotations

from typing import Any, Protocol

from ....errors import ToolError
from ....jsonsafe import JsonObject
from ....tools import Arguments, Handler, Param, Reply, Tool
from ....tools.targets import is_ref_name
from ..agent.calls import AgentHost, agent_call
from .name_book import NamedRefBook, describe_anchor

__all__ = ["Naming", "RefPlace", "ref_places", "resolve_named_refs", "run_with_named_refs"]


class Naming(AgentHost, Protocol):
    """What resolving names needs of the session: its book of names, and its page agent."""

    @property
    def named_refs(self) -> NamedRefBook: ...

    @property
    def url(self) -> str:
        """The current page's URL (a name records where it was given)."""
        ...


#: Where a tool's arguments hold refs: ``(param, shape)``, shape ``"value"`` (the argument
#: is the ref), ``"object"`` (its ``ref`` key) or ``"items"`` (each item's ``ref`` key).
RefPlace = tuple[str, str]


def ref_places(params: tuple[Param, ...]) -> list[RefPlace]:
    places: list[RefPlace] = []
    for param in params:
        if param.name == "ref" and param.type == "string":
            places.append((param.name, "value"))
        elif param.properties is not None and "ref" in param.properties:
            places.append((param.name, "items" if param.type == "array" else "object"))
    return places


def _slots(args: JsonObject, places: list[RefPlace]) -> list[tuple[JsonObject, str]]:
    """Every ``(container, key)`` that holds a named ref, in the arguments as given."""
    slots: list[tuple[JsonObject, str]] = []
    for name, shape in places:
        value = args.get(name)
        if shape == "value":
            if is_ref_name(value):
                slots.append((args, name))
            continue
        holders = value if shape == "items" and isinstance(value, list) else [value]
        slots.extend((holder, "ref") for holder in holders
                     if isinstance(holder, dict) and is_ref_name(holder.get("ref")))
    return slots


async def resolve_named_refs(session: Naming, args: JsonObject,
                             places: list[RefPlace]) -> tuple[JsonObject, list[str]]:
    """The arguments with each named ref replaced by its element's ref now, and the
    warnings that go with it; a name the session does not know, or whose anchor finds
    nothing on this page, fails the call (``target-not-found``)."""
    args = _copy_places(args, places)
    slots = _slots(args, places)
    if not slots:
        return args, []
    names = [holder[key] for holder, key in slots]
    named = [session.named_refs.get(name) for name in names]
    found = await agent_call(session, "findAnchored", [entry.anchor for entry in named])
    warnings: list[str] = []
    for (holder, key), entry, hit in zip(slots, named, found, strict=True):
        if hit["ref"] is None:
            raise ToolError("target-not-found", f"named ref {entry.name!r} ({describe_anchor(entry.anchor)}) "
                            "matches nothing on this page", name=entry.name, anchor=entry.anchor)
        if hit["count"] > 1:
            warnings.append(f"named ref {entry.name!r} ({describe_anchor(entry.anchor)}) matched "
                            f"{hit['count']} elements; used the first")
        holder[key] = hit["ref"]
    return args, warnings


def _copy_places(args: JsonObject, places: list[RefPlace]) -> JsonObject:
    """A copy deep enough that rewriting refs leaves the caller's arguments alone."""
    out = dict(args)
    for name, shape in places:
        value = out.get(name)
        if shape == "object" and isinstance(value, dict):
            out[name] = dict(value)
        elif shape == "items" and isinstance(value, list):
            out[name] = [dict(item) if isinstance(item, dict) else item for item in value]
    return out


# Any: a table line's tool and handler, as Session.run_tool takes them.
async def run_with_named_refs(session: Naming, tool: Tool[Any], handler: Handler[Any, Any],
                              args: Arguments) -> object:
    """Run ``tool``'s handler with each named ref in its arguments resolved first (see the
    module notes), and the warnings the resolution gave added to its reply."""
    places = _ref_places(tool)
    warnings: list[str] = []
    if places:
        resolved, warnings = await resolve_named_refs(session, args.json(), places)
        args = tool.args.of(resolved)
    result = await handler(session, args)
    if isinstance(result, Reply):
        for warning in warnings:
            result.warn(warning)
    return result


#: Each tool's ref places, by name: found once, read on every call.
_PLACES: dict[str, list[RefPlace]] = {}


def _ref_places(tool: Tool[Any]) -> list[RefPlace]:  # Any: any tool, of its own argument class
    places = _PLACES.get(tool.name)
    if places is None:
        places = _PLACES[tool.name] = ref_places(tool.params)
    return places
