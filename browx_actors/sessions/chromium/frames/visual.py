"""A page's frames in its visual tree: each frame's own capture, hung under its ``<iframe>``.

Every frame runs its own page agent, which reads only its own document
(``visualTree``) and numbers its elements afresh (``n1``, ``n2``...). The DOM provider
reads the top document first; when that holds an ``<iframe>`` or ``<frame>``, each
frame of the tab is read by its own agent, parents before children
(:func:`~.frames.tree.frame_tree`: same-origin frames, and out-of-process ones through their
own sessions), and its tree is hung under the node of the element that holds it. The
page is then one tree, as its snapshot is one text:

- A frame's node ids carry the frame's id in its tab: ``f2n5`` is node ``n5`` of frame
  ``f2``, as the snapshot spells refs ``f2e5``. A bare ``nN`` is the top document's.
- Bounds move from the frame's viewport to the tab's, by the content boxes of the
  ``<iframe>`` elements above it and their scale (:class:`Placement`).
- A frame held by an element that is not visible is not visible either.
- The provider's node limit is shared: a frame gets what the documents before it left.
- Frames are asked a generation at a time, all at once (:func:`read_frames`).
- A frame that cannot be read (still loading, gone, its agent broken) counts as one
  child left out of its ``<iframe>``, so ``childCount`` never reads as an empty frame,
  and a warning names it.

The capture's scope (:class:`DomScope`) keeps the document each frame had, so an action
on a frame's node reaches that document or refuses as stale, like one on the top's.
A page without frames costs nothing here: the top document's answer is checked for a
frame element's tag, and nothing more is asked.
"""

from __future__ import annotations

import functools
import json
import re
from typing import TYPE_CHECKING

import attrs

from ....cdp import CdpFailure
from ....errors import ToolError
from ....jsonsafe import JsonObject
from ..network.redact import redact_url
from .book import Frame
from .tree import VISUAL_OWNER, agent_in_frame, ask_each, frame_named, frame_tree, owner_of

if TYPE_CHECKING:
    from ..host import SessionHost

__all__ = ["DomScope", "FramedCapture", "Placement", "answer_nodes", "frame_ref", "graft", "holds_frames",
           "read_frames", "split_node_id"]

#: One node of a document's ``visualTree`` answer (``agent/visualtree.js``).
Node = JsonObject

_FRAME_TAGS = ("iframe", "frame")
# The agent's JSON has no spaces, and a quote inside a string value is escaped, so this
# only finds an element's tag.
_FRAME_TAG_MARKS = tuple(f'"tag":"{tag}"' for tag in _FRAME_TAGS)
_NODE_ID = re.compile(r"^(f\d+)?(n\d+)$")


@attrs.frozen
class DomScope:
    """The documents one DOM capture read: the top document's id, and each frame's."""

    top: str
    #: ``(frame id, document id)`` for each frame read, in the order they were read.
    frames: tuple[tuple[str, str], ...] = ()

    def document_of(self, frame: str | None) -> str | None:
        """The document the capture read in ``frame`` (None: the top document)."""
        if frame is None:
            return self.top
        return next((document for short, document in self.frames if short == frame), None)


@attrs.frozen
class FramedCapture:
    """The top document's agent answer with every frame that could be read hung in."""

    root: Node
    scope: DomScope
    omitted: int
    #: What was read, for the capture's fingerprint: the answers and where each went.
    read: str
    warnings: tuple[str, ...] = ()


def holds_frames(answer: str) -> bool:
    """Whether an agent's ``visualTree`` answer has a frame element in it."""
    return any(mark in answer for mark in _FRAME_TAG_MARKS)


def split_node_id(node_id: str) -> tuple[str | None, str]:
    """``f2n5`` as (``f2``, ``n5``); ``n5`` as (None, ``n5``)."""
    match = _NODE_ID.match(node_id)
    if match is None:
        return None, node_id
    return match.group(1), match.group(2)


def answer_nodes(root: Node) -> list[Node]:
    """Every node of an agent's ``visualTree`` answer, parents first and each node's
    children right to left, without recursion (documents nest deep)."""
    nodes, stack = [], [root]
    while stack:
        node = stack.pop()
        nodes.append(node)
        stack.extend(node.get("kids", ()))
    return nodes


def _holders(root: Node) -> dict[str, Node]:
    """The frame elements of a (qualified) answer, by node id."""
    return {node["id"]: node for node in answer_nodes(root) if node["tag"] in _FRAME_TAGS}


@attrs.frozen
class Placement:
    """Where a document read sits in the tab: its viewport's origin in the tab's, how much
    it is scaled there (an ``<iframe>`` shown at half size, say), and whether it is hidden."""

    dx: float = 0.0
    dy: float = 0.0
    sx: float = 1.0
    sy: float = 1.0
    hidden: bool = False

    def inside(self, owner: JsonObject, hidden: bool) -> Placement:
        """The placement of a frame whose ``<iframe>`` (``owner``: ``x``, ``y``, ``sx``,
        ``sy`` in this document's viewport) is in this document."""
        return Placement(self.dx + float(owner["x"]) * self.sx, self.dy + float(owner["y"]) * self.sy,
                         self.sx * float(owner["sx"]), self.sy * float(owner["sy"]),
                         self.hidden or hidden)


def graft(holder: Node, root: Node, frame: str, placement: Placement) -> None:
    """Hang a frame's answer (``root``) under the element that holds it: ids qualified with
    ``frame``, boxes put where ``placement`` says, every node hidden when it is."""
    dx, dy, sx, sy, hidden = attrs.astuple(placement)
    for node in answer_nodes(root):
        node["id"] = frame + node["id"]
        box = node.get("b")
        if box is not None:
            node["b"] = [dx + box[0] * sx, dy + box[1] * sy, box[2] * sx, box[3] * sy]
        if hidden:
            node["hid"] = 1
    holder["kids"] = [root]


def _left_out(holder: Node) -> None:
    holder["more"] = holder.get("more", 0) + 1


async def read_frames(session: SessionHost, top: Node, *, limit: int, properties: bool) -> FramedCapture:
    """``top`` (the top document's parsed answer) with the tab's frames read and hung in.

    ``limit`` bounds the nodes of all documents together, ``top`` included. Frames are
    read a generation at a time: the frames whose parents have been read are asked at
    once, their ``<iframe>`` nodes and then their documents (each a few CDP round trips
    that do not wait on one another: ten frames took 44 ms one by one), and hung in
    document order. Each is asked for what the documents before its generation left of
    the limit; one that no longer fits once those before it in its generation are in is
    left out whole (its nodes counted as omitted).
    """
    scope = DomScope(top["document"])
    root: Node = top["root"]
    omitted, count = int(top["omitted"]), int(top["count"])
    tab = session.tabs.current
    assert tab is not None
    try:
        frames = await frame_tree(session, tab)
    except CdpFailure:  # the tab is navigating: the top document stands alone
        return FramedCapture(root, scope, omitted, "")
    by_id = {frame.frame_id: frame for frame in frames}
    holders = _holders(root)
    placed = {frames[0].frame_id: Placement()}
    read: list[str] = []
    warnings: list[str] = []
    waiting = [frame for frame in frames[1:] if frame.short is not None]
    while generation := [frame for frame in waiting if frame.parent in placed]:
        waiting = [frame for frame in waiting if frame.parent not in placed]
        owners = await ask_each(functools.partial(owner_of, session, by_id, declaration=VISUAL_OWNER), generation)
        held: list[tuple[Frame, JsonObject, Node]] = []
        for frame, owner in zip(generation, owners, strict=True):
            parent = by_id[frame.parent or ""]
            node = (owner or {}).get("node")
            if owner is None or not isinstance(node, dict) or node.get("document") != scope.document_of(parent.short):
                continue  # not asked, or the parent's document changed since it was read
            holder = holders.get((parent.short or "") + str(node.get("id")))
            if holder is not None:  # else its element is not in the capture (past the limit, under an <svg>)
                held.append((frame, owner, holder))
        room = limit - count
        answers: list[tuple[str, Node] | ToolError | CdpFailure | None] = [None] * len(held)
        if room > 0:
            ask = functools.partial(_capture, session, limit=room, properties=properties)
            answers = list(await ask_each(ask, [frame for frame, _, _ in held]))
        for (frame, owner, holder), answer in zip(held, answers, strict=True):
            assert frame.short is not None and frame.parent is not None
            if isinstance(answer, (ToolError, CdpFailure)):
                _left_out(holder)
                warnings.append(_unread(frame, answer))
                continue
            if answer is None or count + int(answer[1]["count"]) > limit:  # no room left for it
                _left_out(holder)
                omitted += 1 if answer is None else int(answer[1]["count"]) + int(answer[1]["omitted"])
                continue
            text, sub = answer
            if sub["root"] is None:
                continue  # a frame with no document element shows nothing, as an empty one does
            placement = placed[frame.parent].inside(owner, hidden="hid" in holder)
            graft(holder, sub["root"], frame.short, placement)
            holders.update(_holders(sub["root"]))
            placed[frame.frame_id] = placement
            scope = DomScope(scope.top, (*scope.frames, (frame.short, sub["document"])))
            count += int(sub["count"])
            omitted += int(sub["omitted"])
            read.append(f"{frame.short}@{attrs.astuple(placement)}:{text}")
    return FramedCapture(root, scope, omitted, "".join(read), tuple(warnings))


async def _capture(session: SessionHost, frame: Frame, *, limit: int, properties: bool
                   ) -> tuple[str, Node] | ToolError | CdpFailure:
    """The frame agent's answer, as text and parsed; a failure to read it, as a value."""
    try:
        text = await agent_in_frame(session, frame, "visualTree", {"properties": properties, "limit": limit})
    except (ToolError, CdpFailure) as err:
        return err
    return text, json.loads(text)


def _unread(frame: Frame, err: ToolError | CdpFailure) -> str:
    why = err.message if isinstance(err, ToolError) else str(err)
    return (f"frame {frame.short} ({redact_url(frame.url)}) could not be read ({why}); its <iframe> counts it as "
            "a child left out: capture again once it has loaded")


async def frame_ref(session: SessionHost, frame: str, document: str, local: str) -> str | None:
    """The snapshot ref (``f2e5``) of node ``local`` of ``document`` in ``frame``, minted
    now; None when the element, its document or the frame is gone."""
    found = await frame_named(session, frame)
    if found is None:
        return None
    try:
        ref = await agent_in_frame(session, found, "visualRef", {"document": document, "id": local})
    except ToolError as err:
        if err.code == "stale-element":  # the frame went away, or has no document yet
            return None
        raise
    return frame + ref if isinstance(ref, str) else None
