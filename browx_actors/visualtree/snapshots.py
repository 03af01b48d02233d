"""Snapshot identity: revisions, ``snapshotId``, node references and when they go stale.

Provider node ids are capture-oriented: a DOM agent or a native path (``root.0.3``)
hands the same id to whatever occupies that place next time, so an id alone could
silently resolve to a different control after the screen changed. A reference therefore
names the capture it came from (``{source, snapshotId, revision, nodeId}``), and only the
latest capture of each source answers: anything older is refused with
``stale_node_reference`` and the advice to query again.

Each session owns one :class:`SnapshotBook` (its actor holds it), which keeps a
revision counter and the latest capture per source and nothing more, so memory stays
bounded however many captures a session takes.
"""

from __future__ import annotations

import hashlib
from collections.abc import Hashable, Iterator, Mapping
from datetime import UTC, datetime

import attrs

from browx_actors.errors import ToolError

from .model import ProviderIdentity, RawNode, check_node

__all__ = ["REFRESH_WITH", "Capture", "NodeReference", "SnapshotBook", "fingerprint", "text_fingerprint", "walk"]


#: What a refusal tells the caller to call for a fresh reference.
REFRESH_WITH = "ui.query_nodes"

_REFERENCE_KEYS = ("source", "snapshotId", "revision", "nodeId")


@attrs.frozen
class NodeReference:
    """A node of one capture, as ``ui.query_nodes`` hands it out."""

    source: str
    snapshot_id: str
    revision: int
    node_id: str

    def to_json(self) -> dict[str, str | int]:
        return dict(zip(_REFERENCE_KEYS, (self.source, self.snapshot_id, self.revision, self.node_id), strict=True))

    @classmethod
    def from_json(cls, value: object, field: str = "reference") -> NodeReference:
        """Read a reference an agent passed back; ``field`` names it in a ``bad-arg``."""
        if not isinstance(value, Mapping) or set(value) != set(_REFERENCE_KEYS):
            keys = ", ".join(_REFERENCE_KEYS)
            raise ToolError("bad-arg", f"{field} must be an object with exactly {keys}", field=field)
        source, snapshot_id, revision, node_id = (value[key] for key in _REFERENCE_KEYS)
        strings_ok = all(isinstance(part, str) and part for part in (source, snapshot_id, node_id))
        if not strings_ok or not isinstance(revision, int) or isinstance(revision, bool):
            message = f"{field}: source, snapshotId and nodeId are non-empty strings, revision an integer"
            raise ToolError("bad-arg", message, field=field)
        return cls(source, snapshot_id, revision, node_id)


def walk(root: RawNode) -> Iterator[tuple[RawNode, RawNode | None]]:
    """Every node with its parent, depth first in document order (no recursion: DOMs nest deep)."""
    stack: list[tuple[RawNode, RawNode | None]] = [(root, None)]
    while stack:
        node, parent = stack.pop()
        yield node, parent
        for child in reversed(node.children):  # a loop, not a generator per node: ui.wait walks every poll
            stack.append((child, node))


def fingerprint(root: RawNode) -> str:
    """A short hash of a capture's content: equal trees, equal fingerprints.

    Secure values are left out of what is hashed, so a snapshot id can never be used to
    test guesses at a password.
    """
    return text_fingerprint(repr([_content(node) for node, _parent in walk(root)]))


def text_fingerprint(text: str) -> str:
    """The same short hash, of a capture's content as text (see :class:`~.model.RawTree`)."""
    return hashlib.blake2b(text.encode(), digest_size=6).hexdigest()


def _content(node: RawNode) -> tuple[object, ...]:
    """Everything a node says but its children, which are hashed as nodes of their own."""
    bounds, visual = node.bounds, node.visual
    shown = (None, None) if node.secure else (visual.text, visual.value)
    return (
        node.id, node.type_name, node.role, node.automation_id, node.label, node.supported_actions,
        node.visible, node.enabled, node.focusable, node.focused,
        None if bounds is None else (bounds.x, bounds.y, bounds.width, bounds.height),
        visual.foreground, visual.background, visual.opacity, *shown,
        node.secure, node.z, node.properties, len(node.children), node.omitted_children,
    )  # fmt: skip


@attrs.frozen
class Capture:
    """One capture of a source: its identity, its tree, and an index over the tree."""

    source: str
    platform: str
    format: str
    revision: int
    snapshot_id: str
    captured_at: datetime
    root: RawNode
    #: What the provider's node ids are relative to (see :class:`~.model.RawTree`).
    scope: Hashable | None = None
    #: Whether the provider was asked for each node's properties.
    with_properties: bool = False
    _nodes: dict[str, RawNode] = attrs.field(init=False, eq=False, repr=False)
    _parents: dict[str, RawNode] = attrs.field(init=False, eq=False, repr=False)

    def __attrs_post_init__(self) -> None:
        # walk(), written out without its pairs: every capture is indexed, thousands of
        # nodes for a page. Document order, which nodes() and so every query answers in;
        # each node checked on the way, so that nothing is answered from a provider's bug.
        nodes: dict[str, RawNode] = {}
        parents: dict[str, RawNode] = {}
        pending = [self.root]
        while pending:
            node = pending.pop()
            node_id = node.id
            if node_id in nodes:
                raise ValueError(f"node id {node_id!r} appears twice in one capture")
            check_node(node)
            nodes[node_id] = node
            children = node.children
            if children:
                for child in children:
                    parents[child.id] = node
                pending.extend(reversed(children))
        object.__setattr__(self, "_nodes", nodes)
        object.__setattr__(self, "_parents", parents)

    @property
    def captured_at_utc(self) -> str:
        """The capture time as the contract writes it: ISO 8601, milliseconds, ``Z``."""
        moment = self.captured_at.astimezone(UTC)
        return f"{moment:%Y-%m-%dT%H:%M:%S}.{moment.microsecond // 1000:03d}Z"

    def nodes(self) -> Iterator[RawNode]:
        """Every node, depth first in document order."""
        return iter(self._nodes.values())

    def node(self, node_id: str) -> RawNode | None:
        return self._nodes.get(node_id)

    def ancestors(self, node_id: str) -> list[RawNode]:
        """The ancestors of a node of this capture, the root first."""
        chain: list[RawNode] = []
        parent = self._parents.get(node_id)
        while parent is not None:
            chain.append(parent)
            parent = self._parents.get(parent.id)
        chain.reverse()
        return chain

    def reference(self, node: RawNode) -> NodeReference:
        return NodeReference(self.source, self.snapshot_id, self.revision, node.id)


class SnapshotBook:
    """One session's captures: a revision counter and the latest capture per source."""

    def __init__(self) -> None:
        self._revisions: dict[str, int] = {}
        self._latest: dict[str, Capture] = {}

    def record(
        self,
        provider: ProviderIdentity,
        root: RawNode,
        captured_at: datetime,
        *,
        scope: Hashable | None = None,
        with_properties: bool = False,
        content_hash: str | None = None,
    ) -> Capture:
        """Give a fresh capture its revision and id, and make it the source's latest.

        ``captured_at`` is when the provider read its hierarchy (time-zone aware);
        ``scope`` what its node ids are relative to; ``with_properties`` whether the
        provider was asked for properties; ``content_hash`` the provider's own
        fingerprint of the content, when it has one (else the nodes are hashed).
        """
        if captured_at.tzinfo is None:
            raise ValueError("captured_at must be time-zone aware")
        revision = self._revisions.get(provider.source, 0) + 1
        capture = Capture(  # checks every node: a refused capture uses up no revision
            source=provider.source,
            platform=provider.platform,
            format=provider.format,
            revision=revision,
            snapshot_id=f"{provider.source}:{revision}:{content_hash or fingerprint(root)}",
            captured_at=captured_at,
            root=root,
            scope=scope,
            with_properties=with_properties,
        )
        self._revisions[provider.source] = revision
        self._latest[provider.source] = capture
        return capture

    def latest(self, source: str) -> Capture | None:
        return self._latest.get(source)

    def resolve(self, reference: NodeReference) -> tuple[Capture, RawNode]:
        """The capture and node a reference names, if it is from the source's latest capture."""
        latest = self._latest.get(reference.source)
        if latest is None:
            raise ToolError(
                "target-not-found",
                f"this session has no capture of source {reference.source!r}; query again",
                source=reference.source,
                nodeId=reference.node_id,
                refreshWith=REFRESH_WITH,
            )
        if reference.snapshot_id != latest.snapshot_id:
            raise ToolError(
                "stale_node_reference",
                f"node {reference.node_id!r} is from {reference.snapshot_id}, not from the latest capture of "
                f"source {reference.source!r} (revision {latest.revision}); query again",
                source=reference.source,
                nodeId=reference.node_id,
                revision=reference.revision,
                latestRevision=latest.revision,
                refreshWith=REFRESH_WITH,
            )
        node = latest.node(reference.node_id)
        if node is None:
            raise ToolError(
                "target-not-found",
                f"capture {latest.snapshot_id} has no node {reference.node_id!r}",
                source=reference.source,
                nodeId=reference.node_id,
            )
        return latest, node
