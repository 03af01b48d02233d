"""What a provider hands over: the raw node tree (the ``Provider`` protocol is in ``provider.py``).

The compact v2 payload is written once (:mod:`.payload`), over one provider-neutral node
shape, so that a DOM page and an Android or iOS hierarchy read the same way and a new
engine is one provider. A provider's only job is to translate: its platform's classes
into a type name, its roles into the neutral :data:`ROLES`, its flags into the
:data:`ACTIONS` it can perform. Everything the contract derives (``interactable``,
colour normalisation, text bounds, secure omission, type registry, truncation) happens
after the hand-over, so no provider can get it subtly different.

Invariants are checked here, at construction: an unknown role or action, a duplicate
action or an opacity outside ``[0, 1]`` is a provider bug and fails loudly rather than
travelling into a payload.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Hashable, Iterable, Mapping
from typing import TYPE_CHECKING, Any, Literal, Protocol

import attrs

from browx_actors.errors import ToolError

if TYPE_CHECKING:

    pass

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
    "not_offered",
    "unsupported_action",
]

Source = Literal["dom", "native"]
Platform = Literal["web", "android", "ios"]
Action = Literal["tap", "focus", "unfocus", "setValue", "typeText", "toggle"]

#: The exact ``format`` of each source's payload.
DOM_FORMAT = "ansight.dom.visual-tree.compact.v2"
NATIVE_FORMAT = "ansight.native.visual-tree.compact.v2"

#: The semantic actions ``ui.perform_action`` can ask of a provider, in the order a
#: node's ``supportedActions`` lists them.
ACTIONS: tuple[Action, ...] = ("tap", "focus", "unfocus", "setValue", "typeText", "toggle")

#: The platform-neutral roles. Coarse on purpose: an agent asks for "a button" on the web
#: and on a phone alike, and the platform's own class stays on the node's type name.
#: ``container`` is every structural node (layouts, groups, windows, generic elements).
ROLES = frozenset(
    {
        "button", "link", "text", "heading", "input", "checkbox", "radio", "switch", "slider",
        "picker", "image", "list", "listitem", "tab", "menu", "menuitem", "dialog", "progress",
        "webview", "container",
    }
)  # fmt: skip

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


@attrs.frozen
class Bounds:
    """A node's box, screen- or window-relative as its provider measures it.

    Geometry for queries only: edges are half-open (``x <= px < x + width``) so a point
    on the line between two siblings belongs to one of them, not both.
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


def _unit_interval(_instance: object, attribute: attrs.Attribute[float], value: float) -> None:
    if not (math.isfinite(value) and 0 <= value <= 1):
        raise ValueError(f"{attribute.name} must be within [0, 1], got {value!r}")


@attrs.frozen
class Visual:
    """The small presentation snapshot of a node, as the provider read it.

    Colours are whatever the platform gives (a CSS colour string, an Android ARGB int);
    :mod:`.colors` normalises them, and an unreadable one is left out of the payload
    rather than guessed. ``text`` is the displayed string, ``value`` the current value of
    an editable or ranged control (``""`` is an empty field, ``None`` none at all). Both
    are given whole: the payload bounds them.
    """

    foreground: str | int | None = None
    background: str | int | None = None
    opacity: float = attrs.field(default=1.0, validator=_unit_interval)
    text: str | None = None
    value: str | None = None


def _supported_actions(actions: Iterable[str]) -> tuple[str, ...]:
    """The actions in :data:`ACTIONS` order (a provider may list them in any order; the
    payload always says them the same way); unknown or repeated ones are a provider bug."""
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


@attrs.frozen
class RawNode:
    """One node as its provider captured it, before any contract rule is applied.

    ``id`` is the provider's own identifier (a native path such as ``root.0.3``, a DOM
    agent's element id); it must be unique within one capture. ``type_name`` is the
    platform's class or tag (``android.widget.Button``, ``XCUIElementTypeButton``,
    ``button``). ``focusable`` and ``focused`` are ``None`` when the provider does not
    report them, and are then left out of the payload. ``secure`` marks a secure
    text-entry or password field: its text and value never leave the capture. ``z`` is
    the stacking priority relative to the siblings, ``0`` being the default order.
    ``properties`` is provider-specific detail, captured only when asked for.
    ``omitted_children`` counts children the provider itself left out (its own node
    limit): the payload's ``childCount`` includes them, so a cut subtree never reads as
    a leaf.
    """

    id: str
    type_name: str
    role: str = attrs.field(validator=attrs.validators.in_(ROLES))
    automation_id: str | None = None
    label: str | None = None
    supported_actions: tuple[str, ...] = attrs.field(default=(), converter=_supported_actions)
    visible: bool = True
    enabled: bool = True
    focusable: bool | None = None
    focused: bool | None = None
    bounds: Bounds | None = None
    visual: Visual = Visual()
    secure: bool = False
    z: int = 0
    properties: Mapping[str, Any] | None = None
    children: tuple[RawNode, ...] = ()
    omitted_children: int = 0


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
