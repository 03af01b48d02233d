"""What a provider hands over: the raw node tree (the ``Provider`` protocol is in ``provider.py``).

The compact v2 payload is written once (:mod:`.payload`), over one provider-neutral node
shape, so that a DOM page and an Android or iOS hierarchy read the same way and a new
engine is one provider. A provider's only job is to translate: its platform's classes
into a type name, its roles into the neutral :data:`ROLES`, its flags into the
:data:`ACTIONS` it can perform. Everything the contract derives (``interactable``,
colour normalisation, text bounds, secure omission, type registry, truncation) happens
after the hand-over, so no provider can get it subtly different.

The invariants are stated here and checked by :func:`check_node` before anything is
answered from a node: an unknown role or action, a duplicate action, actions out of
order or an opacity outside ``[0, 1]`` is a provider bug and fails loudly rather than travelling into a
payload. Not when a node is made: the node, its box and its look are named tuples, for
speed (:class:`RawNode` says why), and a tuple checks nothing.
"""

from __future__ import annotations

import functools
from collections.abc import Hashable, Iterable, Mapping
from typing import Literal, NamedTuple, Protocol

import attrs

from ..errors import ToolError
from ..jsonsafe import JsonValue
from ..tools.visual import ACTIONS, ROLES, Action

__all__ = [
    "ACTIONS",
    "DOM_FORMAT",
    "NATIVE_FORMAT",
    "ROLES",
    "Action",
    "Bounds",
    "CaptureOptions",
    "Platform",
    "Point",
    "ProviderIdentity",
    "RawNode",
    "RawTree",
    "Source",
    "Visual",
    "canonical_actions",
    "check_node",
    "not_offered",
    "unsupported_action",
]

Source = Literal["dom", "native"]
Platform = Literal["web", "android", "ios"]

#: The exact ``format`` of each source's payload.
DOM_FORMAT = "ansight.dom.visual-tree.compact.v2"
NATIVE_FORMAT = "ansight.native.visual-tree.compact.v2"



# Which engine a refusal names, by provider (the `not-supported` code's `engine` detail).
_ENGINES: dict[tuple[str, str], str] = {
    ("dom", "web"): "chromium",
    ("native", "android"): "android-app",
    ("native", "ios"): "ios-app",
}


@attrs.frozen
class Point:
    """A point in the capture's coordinate space."""

    x: float
    y: float


class Bounds(NamedTuple):
    """A node's box, screen- or window-relative as its provider measures it.

    Geometry for queries only: edges are half-open (``x <= px < x + width``) so a point
    on the line between two siblings belongs to one of them, not both. A named tuple, as
    :class:`RawNode` is.
    """

    x: float
    y: float
    width: float
    height: float

    @property
    def right(self) -> float:
        return self.x + self.width

    @property
    def bottom(self) -> float:
        return self.y + self.height

    def intersects(self, other: Bounds) -> bool:
        """True when the two boxes share some area (touching edges do not count)."""
        return self.x < other.right and other.x < self.right and self.y < other.bottom and other.y < self.bottom

    def contains(self, other: Bounds | Point) -> bool:
        """True when ``other`` lies wholly inside this box."""
        if isinstance(other, Point):
            return self.x <= other.x < self.right and self.y <= other.y < self.bottom
        return self.x <= other.x and self.y <= other.y and other.right <= self.right and other.bottom <= self.bottom


class Visual(NamedTuple):
    """The small presentation snapshot of a node, as the provider read it.

    Colours are whatever the platform gives (a CSS colour string, an Android ARGB int);
    :mod:`.colors` normalises them, and an unreadable one is left out of the payload
    rather than guessed. ``opacity`` is within ``[0, 1]`` (:func:`check_node`). ``text``
    is the displayed string, ``value`` the current value of an editable or ranged
    control (``""`` is an empty field, ``None`` none at all). Both are given whole: the
    payload bounds them. A named tuple, as :class:`RawNode` is.
    """

    foreground: str | int | None = None
    background: str | int | None = None
    opacity: float = 1.0
    text: str | None = None
    value: str | None = None


def canonical_actions(actions: Iterable[str]) -> tuple[str, ...]:
    """``actions`` in :data:`ACTIONS` order, the order a node lists them in (for a
    provider that gathers them in another); an unknown or repeated one is a provider bug
    (``ValueError``)."""
    return _canonical(actions if isinstance(actions, tuple) else tuple(actions))


# A page offers a handful of action sets on thousands of nodes: check and order each once.
@functools.lru_cache(maxsize=256)
def _canonical(actions: tuple[str, ...]) -> tuple[str, ...]:
    unknown = [action for action in actions if action not in ACTIONS]
    if unknown:
        raise ValueError(f"unknown actions {unknown!r}: supported actions are {ACTIONS!r}")
    if len(set(actions)) != len(actions):
        raise ValueError(f"supported actions are listed twice: {actions!r}")
    return tuple(sorted(actions, key=ACTIONS.index))


class RawNode(NamedTuple):
    """One node as its provider captured it, before any contract rule is applied.

    ``id`` is the provider's own identifier (a native path such as ``root.0.3``, a DOM
    agent's element id); it must be unique within one capture. ``type_name`` is the
    platform's class or tag (``android.widget.Button``, ``XCUIElementTypeButton``,
    ``button``). ``supported_actions`` are the :data:`ACTIONS` it offers, each once and
    in :data:`ACTIONS` order, as every payload lists them (a provider that gathers them
    in another order sorts them with :func:`canonical_actions`). ``focusable`` and
    ``focused`` are ``None`` when the provider does not report them, and are then left
    out of the payload. ``secure``
    marks a secure text-entry or password field: its text and value never leave the
    capture. ``z`` is the stacking priority relative to the siblings, ``0`` being the
    default order. ``properties`` is provider-specific detail, captured only when asked
    for. ``omitted_children`` counts children the provider itself left out (its own node
    limit): the payload's ``childCount`` includes them, so a cut subtree never reads as
    a leaf.

    A named tuple, not an attrs class, for the reason the native engines' ``NativeNode``
    is one (``devices/nodes.py``): a capture builds thousands at a time, and a frozen
    attrs class sets each of its seventeen fields through ``object.__setattr__``. For a
    2,000-element page that was ~5 ms of the ~21 ms that Python spent on a capture; a
    tuple is as immutable and is built in one piece. What attrs checked as a node was
    made, :func:`check_node` checks before anything is answered from it. The price: a
    named tuple's fields read by name about three times slower than a slotted class's
    (the payload, which reads them all, unpacks a node once instead), a node compares
    equal to a plain tuple of the same fields, and iterating one goes over its fields,
    not its children.
    """

    id: str
    type_name: str
    role: str
    automation_id: str | None = None
    label: str | None = None
    supported_actions: tuple[str, ...] = ()
    visible: bool = True
    enabled: bool = True
    focusable: bool | None = None
    focused: bool | None = None
    bounds: Bounds | None = None
    visual: Visual = Visual()
    secure: bool = False
    z: int = 0
    properties: Mapping[str, JsonValue] | None = None
    children: tuple[RawNode, ...] = ()
    omitted_children: int = 0


def check_node(node: RawNode) -> None:
    """Refuse a node that breaks an invariant: a provider bug (``ValueError``).

    A role not in :data:`ROLES`; an action not in :data:`ACTIONS`, one listed twice or
    actions out of :data:`ACTIONS` order; an opacity outside ``[0, 1]`` or not a number. Every node is checked before
    anything is answered from it: a recorded capture (:class:`~.snapshots.Capture`)
    checks each node as it indexes it, and ``ui.wait``'s polls, whose trees are not
    recorded, check each node as they match it (:func:`~.query.matching`).
    """
    if node.role not in ROLES:
        raise ValueError(f"role must be one of {sorted(ROLES)}, got {node.role!r}")
    actions = node.supported_actions
    if actions and canonical_actions(actions) != actions:
        raise ValueError(f"supported actions must be listed in {ACTIONS!r} order, got {actions!r}")
    opacity = node.visual.opacity
    if not 0.0 <= opacity <= 1.0:  # NaN and the infinities fail it too; float bounds compare faster
        raise ValueError(f"opacity must be within [0, 1], got {opacity!r}")


@attrs.frozen
class RawTree:
    """What one capture hands over: the root, and what its node ids are relative to.

    ``scope`` names the things a provider's ids live in when they can be replaced under
    the same ids: DOM documents (a navigation brings a new one whose agent numbers its
    elements afresh) or ``None`` when ids are places in a tree that every action
    re-resolves (native paths). It is opaque to all but its provider, which acts on a
    node only while its scope is still the one it captured. ``omitted`` counts the
    nodes the provider's own limit left out of the whole capture. ``fingerprint`` is the
    content hash of a provider that reads its hierarchy as text (the DOM agent's JSON):
    hashing that text is cheaper than walking the nodes and means the same, provided the
    text leaves secure values out. ``warnings`` says what the provider could not read
    (a frame still loading, say); they ride with the answer of the call that captured.
    """

    root: RawNode
    scope: Hashable | None = None
    omitted: int = 0
    fingerprint: str | None = None
    warnings: tuple[str, ...] = ()


@attrs.frozen
class CaptureOptions:
    """What a provider must know before it reads its hierarchy.

    Only what changes the cost of the capture itself: computed properties are expensive
    to read (a DOM provider would call ``getComputedStyle`` on every element), so they are
    gathered only when asked for. Depth, node and subtree limits shape the payload, not
    the capture, and are applied by :mod:`.payload` over the whole capture.
    """

    include_properties: bool = False


class ProviderIdentity(Protocol):
    """Which provider a capture came from: what its payload says at the top."""

    @property
    def source(self) -> Source: ...

    @property
    def platform(self) -> Platform: ...

    @property
    def format(self) -> str: ...


def not_offered(node: RawNode, action: str) -> ToolError:
    """The refusal for an action the provider can do but ``node`` does not offer."""
    offered = ", ".join(node.supported_actions) or "nothing"
    return ToolError(
        "action-failed",
        f"node {node.id} does not offer {action}; it offers {offered}",
        nodeId=node.id,
        action=action,
        supportedActions=list(node.supported_actions),
    )


def unsupported_action(provider: ProviderIdentity, action: str, why: str = "") -> ToolError:
    """The refusal for an action ``provider`` cannot perform (to be raised by the caller)."""
    engine = _ENGINES.get((provider.source, provider.platform), provider.source)
    reason = f": {why}" if why else ""
    return ToolError(
        "not-supported",
        f"the {provider.format} provider ({engine}) cannot {action}{reason}",
        engine=engine,
        provider=provider.format,
        action=action,
    )
