"""The ``dom`` source: a chromium session's page as the visual tree reads it.

:class:`DomProvider` is the visual tree's :class:`~browx_actors.visualtree.provider.Provider`
for a chromium session. A capture is one round trip to the page agent
(``agent/visualtree.js``: every element in one walk, JSON back over raw CDP), turned
here into raw nodes; everything the contract derives from them happens in
:mod:`browx_actors.visualtree.payload`, as for every provider.

Actions take the path every action of this engine takes. The captured node is turned
back into a snapshot ref in the page (``visualRef``: one round trip, which also checks
that the element is still there and the page still the captured document), and then:

- ``tap`` and ``toggle`` are ``click`` by that ref; ``setValue`` is ``fill`` (``select``
  for a ``<select>``, choosing the option by value or label): the same declarations
  fill in their defaults, the same handlers aim, check actionability and send trusted
  CDP input when the element is ready, or let Playwright wait for it and act;
- ``focus``, ``unfocus`` and ``typeText`` run through the same
  :func:`~.input.actions.run_action` (aim, Playwright's actionability, settle, the one result
  shape), acting with Playwright's ``focus``, ``blur`` and, for ``typeText``, a press of
  Control+End (the caret to the end) and one key press per character.

A node id names an element of one document: after a navigation the new document's
agent numbers its elements afresh, so an id alone could name another control. A
capture keeps the documents it read (its scope), and an action on a node of another
document, or on an element that has left the page since, is ``stale_node_reference``.
A page's frames are read by their own agents and hung under their ``<iframe>`` nodes,
their ids carrying the frame's id (``f2n5``): :mod:`.frames.visual`.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, ClassVar

from playwright.async_api import Locator

from ....errors import ToolError
from ....tools import Reply
from ....tools.actions import ClickArgs, FillArgs, SelectArgs
from ....tools.targets import Target
from ....tools.visual import MAX_NODES
from ....visualtree.model import (
    DOM_FORMAT,
    Action,
    Bounds,
    CaptureOptions,
    Platform,
    RawNode,
    RawTree,
    Source,
    Visual,
    canonical_actions,
    not_offered,
)
from ....visualtree.snapshots import REFRESH_WITH, Capture, text_fingerprint
from ..frames.visual import DomScope, Node, answer_nodes, frame_ref, holds_frames, read_frames, split_node_id
from ..input import actions, selects
from ..losses import PageScriptError, first_line

if TYPE_CHECKING:
    from ..session import ChromiumSession

__all__ = ["DomProvider", "done_with", "raw_tree"]


#: The presentation of a node that shows nothing of its own (most containers): one shared value.
_PLAIN = Visual()
_VISUAL_KEYS = frozenset({"fg", "bg", "op", "text", "value"})
#: Builds a node, its box or its look from all its fields in order, skipping the named
#: tuples' argument handling (as the uiautomator parser does): every field is given.
_NEW = tuple.__new__


def _node(data: Node, children: tuple[RawNode, ...]) -> RawNode:
    get = data.get
    box = get("b")  # [x, y, width, height], always all four
    acts = get("acts")
    visual = _PLAIN
    if not _VISUAL_KEYS.isdisjoint(data):
        visual = _NEW(Visual, (get("fg"), get("bg"), get("op", 1.0), get("text"), get("value")))
    # In RawNode's field order (test_dom_provider.py holds each field the agent sends to its own).
    return _NEW(RawNode, (
        data["id"],  # id
        data["tag"],  # type_name
        data["role"],  # role
        get("aid"),  # automation_id
        get("label"),  # label
        canonical_actions(acts) if acts else (),  # supported_actions
        "hid" not in data,  # visible
        "dis" not in data,  # enabled
        "fcb" in data,  # focusable
        "fcd" in data,  # focused
        None if box is None else _NEW(Bounds, box),  # bounds
        visual,  # visual
        "sec" in data,  # secure
        get("z", 0),  # z
        get("props"),  # properties
        children,  # children
        get("more", 0),  # omitted_children
    ))


def raw_tree(root: Node) -> RawNode:
    """The agent's node JSON as raw nodes (see ``visualTree`` in ``agent/visualtree.js``).

    Built without recursion (a page can nest deeper than Python's recursion limit), in
    two passes. The first lists the nodes parents first, each node's children right to
    left (:func:`~.frames.visual.answer_nodes`); the second builds them in the reverse of
    that order onto a stack, so that every node comes after its descendants and finds its
    children on top, built, left to right.
    """
    built: list[RawNode] = []
    for data in reversed(answer_nodes(root)):
        count = len(data.get("kids", ()))
        children: tuple[RawNode, ...] = ()
        if count:
            children = tuple(built[-count:])
            del built[-count:]
        built.append(_node(data, children))
    return built[0]


def done_with(name: str, reply: Reply) -> Reply:
    """The action's result, naming the engine's action first (``performedWith``)."""
    reply.fields = {"action": name, **reply.fields}
    return reply


async def _tap(session: ChromiumSession, node: RawNode, ref: str, value: str | None) -> Reply:
    return done_with("click", await actions.click(session, ClickArgs(ref=ref)))


async def _set_value(session: ChromiumSession, node: RawNode, ref: str, value: str | None) -> Reply:
    assert value is not None  # the tool's rules insist
    if node.type_name != "select":
        return done_with("fill", await actions.fill(session, FillArgs(ref=ref, value=value)))
    try:
        return done_with("select", await selects.select(session, SelectArgs(ref=ref, values=[value])))
    except ToolError as err:
        if err.details.get("field") == "values":
            raise ToolError("bad-arg", err.message, field="value") from err
        raise


def _playwright(name: str, act: Callable[[Locator, str | None], Awaitable[None]]) -> Callable[..., Awaitable[Reply]]:
    """The action ``name`` as Playwright performs it on the node's locator, through ``run_action``."""

    async def perform(session: ChromiumSession, node: RawNode, ref: str, value: str | None) -> Reply:
        # Any: an Act's page and locator (see actions.Act); a ref's locator.
        async def on_locator(page: Any, locator: Any) -> None:
            await act(locator, value)

        return done_with(name, await actions.run_action(session, name, Target(ref=ref), on_locator))

    return perform


async def _focus(locator: Locator, value: str | None) -> None:
    await locator.focus(timeout=actions.ACTION_TIMEOUT_MS)


async def _blur(locator: Locator, value: str | None) -> None:
    await locator.blur(timeout=actions.ACTION_TIMEOUT_MS)


async def _type_at_the_end(locator: Locator, value: str | None) -> None:
    await locator.press("Control+End", timeout=actions.ACTION_TIMEOUT_MS)
    await locator.press_sequentially(value or "", timeout=actions.ACTION_TIMEOUT_MS)


_ACTIONS: dict[str, Callable[[ChromiumSession, RawNode, str, str | None], Awaitable[Reply]]] = {
    "tap": _tap,
    "focus": _playwright("focus", _focus),
    "unfocus": _playwright("unfocus", _blur),
    "setValue": _set_value,
    "typeText": _playwright("typeText", _type_at_the_end),
    "toggle": _tap,
}


class DomProvider:
    """The visual tree's provider for one chromium session (cheap: one per call).

    The firefox engine's provider is this one with its own actions and no frame reads
    (``sessions/firefox/reading/visual.py``): the capture is the same agent call.
    """

    source: Source = "dom"
    platform: Platform = "web"
    format = DOM_FORMAT
    #: What each action is on this engine: ``act(session, node, ref, value)``.
    actions: ClassVar[dict[str, Callable[[Any, RawNode, str, str | None], Awaitable[Reply]]]] = _ACTIONS
    #: Whether frames are read into the tree (over CDP, on chromium).
    reads_frames: ClassVar[bool] = True

    # Any: the engine's session (chromium's here; a subclass's own).
    def __init__(self, session: Any) -> None:
        self.session = session

    async def capture(self, options: CaptureOptions) -> RawTree:
        spec = {"properties": options.include_properties, "limit": MAX_NODES}
        try:
            answer = await self.session.agent("visualTree", spec)
        except PageScriptError as err:  # the page broke something the agent relies on
            raise ToolError("page-error", f"reading the visual tree failed in the page: {first_line(err)}") from err
        # JSON text (see visualTree in agent/visualtree.js); passwords are not in it.
        tree = json.loads(answer)
        if tree["root"] is None:
            raise ToolError("page-error", "the page has no document element to read")
        if not holds_frames(answer) or not self.reads_frames:
            warnings = [] if not holds_frames(answer) else [
                f"the page's frames are not read into the tree on {self.session.engine}: their nodes stand empty"]
            return RawTree(raw_tree(tree["root"]), scope=DomScope(tree["document"]), omitted=tree["omitted"],
                           fingerprint=text_fingerprint(answer), warnings=tuple(warnings))
        framed = await read_frames(self.session, tree, limit=MAX_NODES, properties=options.include_properties)
        return RawTree(raw_tree(framed.root), scope=framed.scope, omitted=framed.omitted,
                       fingerprint=text_fingerprint(answer + framed.read), warnings=framed.warnings)

    async def perform(self, capture: Capture, node: RawNode, action: Action, value: str | None = None) -> Reply:
        if action not in node.supported_actions:
            raise not_offered(node, action)
        scope = capture.scope
        assert isinstance(scope, DomScope)  # this provider's captures carry one
        frame, local = split_node_id(node.id)
        document = scope.document_of(frame)
        try:
            if frame is None:
                ref = await self.session.agent("visualRef", {"document": document, "id": local})
            else:
                ref = None if document is None else await frame_ref(self.session, frame, document, local)
        except PageScriptError as err:
            raise ToolError("page-error", f"finding the node failed in the page: {first_line(err)}") from err
        if ref is None:
            raise ToolError(
                "stale_node_reference",
                f"node {node.id!r} of {capture.snapshot_id} is no longer on the page (it was removed, or the page "
                "or its frame loaded another document); query again",
                source=capture.source, nodeId=node.id, revision=capture.revision, refreshWith=REFRESH_WITH,
            )
        return await self.actions[action](self.session, node, ref, value)
