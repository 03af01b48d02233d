"""``name_ref`` and ``list_named_refs``: names for elements that outlive their refs.

A ref (``e12``) names one DOM element object. A framework that re-renders a list or a
form replaces the objects, and every ref into them goes stale. ``name_ref {ref, name}``
asks the page agent for an anchor that survives that (its test id, its id, its role and
accessible name, or its path from the nearest ancestor with one of those; see
``agent/anchors.js``), and keeps it under ``name`` for the session
(:class:`~.ref_names.NamedRefBook`). From then on ``name`` works wherever a ref does:
``click {ref: "checkout"}``, ``drag {from: {ref: "card"}, ...}``, ``fill_form`` fields,
``verify_*``; it is resolved to the element the anchor finds at that moment
(:func:`~.target.accept_named_refs`). The result says which anchor was chosen and warns
when only a path was left, which holds only while the page keeps its structure.
"""

from __future__ import annotations

from ...tools import Args, Param, Reply, session_tool
from ..params import REF, REF_NAME_PATTERN
from .agent_calls import agent_call
from .ref_names import describe_anchor
from .session import ChromiumSession

__all__ = ["TOOLS", "list_named_refs", "name_ref"]

READ = "read"


@session_tool(
    "name_ref", READ,
    "Give an element a name for this session that survives re-renders where its identity does (a test id, an "
    "id, its role and name, or a stable path); the name then works anywhere a ref does.",
    params=(Param("ref", "string", "Ref of the element (from a snapshot or find), or a name.", required=True,
                  max_length=REF.max_length),
            Param("name", "string", "The name: a letter or _ first, then letters, digits, _ . : -; not a ref "
                  "(e<digits>, f<digits>e<digits>).",
                  required=True, pattern=REF_NAME_PATTERN, max_length=64)),
)
async def name_ref(session: ChromiumSession, args: Args) -> Reply:
    found = await agent_call(session, "anchorOf", {"ref": args["ref"]})
    anchor = found["anchor"]
    replaced = session.named_refs.add(args["name"], anchor, session.page.url)
    reply = Reply.of(name=args["name"], ref=found["target"]["ref"], target=found["target"], anchor=anchor,
                     by=anchor["by"], replaced=replaced, warnings=[])
    if anchor["by"] == "path":
        reply.warn(f"the element has no unique test id, id or role and name: {args['name']!r} follows its "
                   f"{describe_anchor(anchor)}, which holds only while the page keeps that structure")
    if found["found"] != 1 or not found["same"]:
        reply.warn(f"the anchor finds {found['found']} elements now"
                   + ("" if found["same"] else ", and not this one first"))
    return reply


@session_tool(
    "list_named_refs", READ,
    "The session's named refs: each name, its anchor, and the ref it resolves to on the current page (null: "
    "nothing matches here).",
)
async def list_named_refs(session: ChromiumSession, args: Args) -> Reply:
    entries = list(session.named_refs)
    found = await agent_call(session, "findAnchored", [entry.anchor for entry in entries]) if entries else []
    named = [{"name": entry.name, "by": entry.anchor["by"], "anchor": entry.anchor,
              "describes": describe_anchor(entry.anchor), "ref": hit["ref"], "count": hit["count"],
              "namedAt": entry.url}
             for entry, hit in zip(entries, found, strict=True)]
    return Reply.of(named=named, count=len(named))


TOOLS = [name_ref, list_named_refs]
