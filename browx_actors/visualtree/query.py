"""Selecting nodes of a capture (``ui.query_nodes``) and the ``ui.wait`` conditions.

A query is a set of criteria that must all hold (AND); criteria left unset do not
constrain, so an empty query selects every node. Matches come back in document order,
each as a full :class:`~.snapshots.NodeReference`, because a bare node id means nothing
once the screen changes.

Matching rules, the same for every provider:

- ``node_id`` and ``role`` match exactly.
- ``automation_id`` matches exactly, or as the name of an Android resource id: ``submit``
  matches ``com.example.shop:id/submit`` (React Native testIDs arrive bare, native views
  with the package prefix; an agent should not need to know which).
- ``type_name`` matches the full type name, or its short form: ``Button`` matches
  ``android.widget.Button`` (the last dotted part) and ``XCUIElementTypeButton`` (iOS
  nodes carry XCUITest's raw type).
- ``text`` is looked for in the label, the displayed text and the value (never in a
  secure field's text or value: a query must not be a way to test guesses at a
  password). Both sides are compared with invisible format characters (zero-width
  spaces, joiners, bidi marks) removed and runs of whitespace collapsed to one space.
  ``exact`` compares whole strings, case-sensitive; ``contains`` (the default) looks for
  a substring, case-insensitive (Unicode case folding).
- ``action`` holds when the node lists it in its supported actions.
- ``visible`` and ``enabled`` match the node's flags.
- ``intersects`` holds when the node's bounds share area with the rectangle;
  ``contains`` when the node's bounds hold the whole rectangle, or the point. A node
  without bounds matches neither.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

import attrs

from ..devices.wda_source import TYPE_PREFIX as _XCUI_PREFIX
from ..tools.visual import WAIT_CONDITIONS, WaitCondition, normalise_text
from .model import ACTIONS, ROLES, Bounds, Point, RawNode, check_node
from .snapshots import Capture, NodeReference, walk

__all__ = [
    "WAIT_CONDITIONS", "NodeQuery", "QueryResult", "TextMatch", "WaitCondition",
    "matching", "normalise_text", "select", "wait_satisfied",
]

TextMatch = Literal["exact", "contains"]


def _searchable(_instance: object, _attribute: object, value: str | None) -> None:
    if value is not None and not normalise_text(value):
        raise ValueError("a text criterion needs at least one visible character")


@attrs.frozen
class NodeQuery:
    """The criteria of one ``ui.query_nodes`` call; every one that is set must hold."""

    node_id: str | None = None
    automation_id: str | None = None
    role: str | None = attrs.field(default=None, validator=attrs.validators.optional(attrs.validators.in_(ROLES)))
    type_name: str | None = None
    text: str | None = attrs.field(default=None, validator=_searchable)
    text_match: TextMatch = attrs.field(default="contains", validator=attrs.validators.in_(("exact", "contains")))
    action: str | None = attrs.field(default=None, validator=attrs.validators.optional(attrs.validators.in_(ACTIONS)))
    visible: bool | None = None
    enabled: bool | None = None
    intersects: Bounds | None = None
    contains: Bounds | Point | None = None

    def matches(self, node: RawNode) -> bool:
        return (
            (self.node_id is None or node.id == self.node_id)
            and (self.automation_id is None or _automation_id_matches(node.automation_id, self.automation_id))
            and (self.role is None or node.role == self.role)
            and (self.type_name is None or _type_matches(node.type_name, self.type_name))
            and (self.text is None or _text_matches(node, self.text, self.text_match))
            and (self.action is None or self.action in node.supported_actions)
            and (self.visible is None or node.visible == self.visible)
            and (self.enabled is None or node.enabled == self.enabled)
            and (self.intersects is None or (node.bounds is not None and node.bounds.intersects(self.intersects)))
            and (self.contains is None or (node.bounds is not None and node.bounds.contains(self.contains)))
        )



def _text_matches(node: RawNode, wanted: str, how: TextMatch) -> bool:
    candidates = [node.label]
    if not node.secure:
        candidates += [node.visual.text, node.visual.value]
    wanted = normalise_text(wanted)
    if how == "exact":
        return any(normalise_text(text) == wanted for text in candidates if text)
    wanted = wanted.casefold()
    return any(wanted in normalise_text(text).casefold() for text in candidates if text)

def _automation_id_matches(actual: str | None, wanted: str) -> bool:
    return actual is not None and (actual == wanted or actual.endswith(f":id/{wanted}"))


def _type_matches(actual: str, wanted: str) -> bool:
    return actual == wanted or actual.rpartition(".")[2] == wanted or actual == _XCUI_PREFIX + wanted


@attrs.frozen
class QueryResult:
    """The nodes of one capture that a query selected, in document order."""

    capture: Capture
    nodes: tuple[RawNode, ...]

    @property
    def references(self) -> tuple[NodeReference, ...]:
        return tuple(self.capture.reference(node) for node in self.nodes)


def select(capture: Capture, query: NodeQuery) -> QueryResult:
    """Every node of ``capture`` that meets all of ``query``'s criteria."""
    return QueryResult(capture, tuple(node for node in capture.nodes() if query.matches(node)))


def matching(root: RawNode, query: NodeQuery) -> tuple[RawNode, ...]:
    """The nodes under ``root`` (itself included) that meet ``query``, in document order.

    For a tree that is not (yet) a recorded capture: ``ui.wait`` polls with it. Each node
    is checked as a recorded capture's are (:func:`~.model.check_node`).
    """
    found: list[RawNode] = []
    for node, _parent in walk(root):
        check_node(node)
        if query.matches(node):
            found.append(node)
    return tuple(found)


def wait_satisfied(condition: WaitCondition, nodes: Sequence[RawNode]) -> bool:
    """Whether the nodes one query selected meet a ``ui.wait`` condition.

    ``exists``: at least one match; ``notExists``: none; ``visible`` / ``enabled``: at
    least one match that is visible / enabled. ``ui.wait`` re-captures, re-selects and
    asks again until this holds or its timeout runs out.
    """
    if condition == "exists":
        return bool(nodes)
    if condition == "notExists":
        return not nodes
    if condition == "visible":
        return any(node.visible for node in nodes)
    if condition == "enabled":
        return any(node.enabled for node in nodes)
    raise ValueError(f"unknown wait condition {condition!r}: one of {WAIT_CONDITIONS!r}")
