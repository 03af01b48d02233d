"""``name_ref`` and ``list_named_refs``: names for elements that outlive their refs.

A ref (``e12``) names one DOM element object. A framework that re-renders a list or a
form replaces the objects, and every ref into them goes stale. ``name_ref {ref, name}``
asks the page agent for an anchor that survives that (its test id, its id, its role and
accessible name, or its path from the nearest ancestor with one of those; see
``agent/anchors.js``), and keeps it under ``name`` for the session
(:class:`~.name_book.NamedRefBook`). From then on ``name`` works wherever a ref does:
``click {ref: "checkout"}``, ``drag {from: {ref: "card"}, ...}``, ``fill_form`` fields,
``verify_*``; it is resolved to the element the anchor finds at that moment
(:func:`~.resolve.run_with_named_refs`). The result says which anchor was chosen and warns
when only a path was left, which holds only while the page keeps its structure.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ....tools import Reply
from ....tools.contract import SessionArgs
from ....tools.reading import NameRefArgs
from ..agent.calls import agent_call
from .name_book import describe_anchor

if TYPE_CHECKING:
    from .resolve import Naming

__all__ = ["list_named_refs", "name_ref"]


async def name_ref(session: Naming, args: NameRefArgs) -> Reply:
    found = await agent_call(session, "anchorOf", {"ref": args.ref})
    anchor = found["anchor"]
    replaced = session.named_refs.add(args.name, anchor, session.url)
    reply = Reply.of(name=args.name, ref=found["target"]["ref"], target=found["target"], anchor=anchor,
                     by=anchor["by"], replaced=replaced, warnings=[])
    if anchor["by"] == "path":
        reply.warn(f"the element has no unique test id, id or role and name: {args.name!r} follows its "
                   f"{describe_anchor(anchor)}, which holds only while the page keeps that structure")
    if found["found"] != 1 or not found["same"]:
        reply.warn(f"the anchor finds {found['found']} elements now"
                   + ("" if found["same"] else ", and not this one first"))
    return reply


async def list_named_refs(session: Naming, args: SessionArgs) -> Reply:
    entries = list(session.named_refs)
    found = await agent_call(session, "findAnchored", [entry.anchor for entry in entries]) if entries else []
    named = [{"name": entry.name, "by": entry.anchor["by"], "anchor": entry.anchor,
              "describes": describe_anchor(entry.anchor), "ref": hit["ref"], "count": hit["count"],
              "namedAt": entry.url}
             for entry, hit in zip(entries, found, strict=True)]
    return Reply.of(named=named, count=len(named))


