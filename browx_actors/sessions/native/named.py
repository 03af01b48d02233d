"""``name_ref`` and ``list_named_refs`` on a native screen: names that work wherever a ref does.

On the web a name outlives the DOM objects a re-render replaces. A native hierarchy has
no objects to outlive; what a name can hold on to is what a ref holds on to, the
node's :class:`~.refs.ElementKey`: anchored on the test id when the node carries one
no other node shares (the name then survives a layout change that moves the node), or
its index path and identity otherwise (the name then holds only while the screen keeps
that structure, and the result warns so). The name goes into the session's ref book
(:attr:`~.refs.RefBook.names`), so every tool that takes a ref resolves it in its own
fresh read, refusing ``stale-element`` or ``ambiguous-target`` as for a ref.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...jsonsafe import JsonObject
from ...tools import Reply
from ...tools.contract import SessionArgs
from ...tools.reading import NameRefArgs
from ...tools.targets import Target
from .refs import ElementKey
from .target import locate_in, target_json

if TYPE_CHECKING:
    from .session import NativeSession

__all__ = ["list_named_refs", "name_ref"]


def _anchor(key: ElementKey) -> JsonObject:
    if key.anchored:
        return {"by": "testID", "testID": key.test_id}
    role, tag, name, _ = key.identity
    return {"by": "path", "path": list(key.path), "role": role, "tag": tag, "name": name}


async def name_ref(session: NativeSession, args: NameRefArgs) -> Reply:
    hierarchy = await session.read()
    located = locate_in(hierarchy, session.refs, Target(ref=args.ref))
    key = hierarchy.key_for(located.node)
    name = args.name
    replaced = name in session.refs.names
    session.refs.names[name] = key
    anchor = _anchor(key)
    reply = Reply.of(name=name, ref=located.ref, target=target_json(located), anchor=anchor, by=anchor["by"],
                     replaced=replaced, warnings=[])
    if not key.anchored:
        why = "no test id" if key.test_id is None else f"a test id ({key.test_id}) other nodes share"
        reply.warn(f"the element has {why}: {name!r} follows its index path, which holds only while the screen "
                   "keeps that structure")
    return reply


async def list_named_refs(session: NativeSession, args: SessionArgs) -> Reply:
    names = session.refs.names
    hierarchy = await session.read() if names else None
    named = []
    for name, key in names.items():
        assert hierarchy is not None
        nodes = hierarchy.resolve(key)
        ref = session.refs.ref_for(hierarchy, nodes[0]) if len(nodes) == 1 else None
        anchor = _anchor(key)
        named.append({"name": name, "by": anchor["by"], "anchor": anchor, "ref": ref, "count": len(nodes)})
    return Reply.of(named=named, count=len(named))
