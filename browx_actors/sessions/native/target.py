"""Finding what an action acts on, in a hierarchy read for that action.

Every native action re-resolves before it dispatches: it reads a fresh hierarchy
(:func:`~.native.actions.locate`), and :func:`locate_in` resolves the ref or selector in
it (refs through the session's ref book, anchored on the test id when the node has one)
and answers the one node it means, or refuses: ``stale-element`` for a ref that matches
nothing, ``target-not-found`` for a selector that matches nothing, ``ambiguous-target``
naming the count when several match (a reported tap on the wrong element is worse than a
failed tap). :func:`point_of` is where a tap lands: the centre of the part of the
node's rectangle that is on screen, computed from that same read; no coordinate is kept
between calls.
"""

from __future__ import annotations

import attrs

from ...devices.nodes import NativeNode, Rect
from ...errors import ToolError
from ...jsonsafe import JsonObject
from ...tools.targets import Element
from .refs import Hierarchy, RefBook, parse_ref
from .selectors import Resolution, Selector, resolve

__all__ = ["Located", "locate_in", "on_screen", "point_of", "target_json"]


@attrs.frozen
class Located:
    """The one node a ref or selector means in ``hierarchy``, and how it matched."""

    node: NativeNode
    hierarchy: Hierarchy
    ref: str
    #: The selector tier that matched (``testID``, ``label``, ``text``, ``role``, ``ref``).
    tier: str | None


def target_json(located: Located) -> JsonObject:
    """The target as action results name it: ref, role, name, testId, and the tier."""
    node = located.node
    out: JsonObject = {"ref": located.ref, "role": node.role, "name": located.hierarchy.name_of(node)}
    if node.test_id:
        out["testId"] = node.test_id
    out["matchedBy"] = located.tier
    return out


def locate_in(hierarchy: Hierarchy, refs: RefBook, target: Element) -> Located:
    """The node ``target``'s ``ref`` or ``selector`` names in ``hierarchy``, or the refusal."""
    ref, selector = target.ref, target.selector
    if ref is not None:
        # A ref that is not one of this session's (another engine's spelling, a typo)
        # resolves to nothing, exactly as a stale one does.
        name = parse_ref(ref) or ref
        resolution = Resolution(Selector("ref", name, source=ref), "ref", _visible_first(refs.resolve(ref, hierarchy)))
    else:
        assert selector is not None, "the tool's rules let through a ref or a selector"
        resolution = resolve(selector, hierarchy, refs)
    node = resolution.one()
    return Located(node, hierarchy, refs.ref_for(hierarchy, node), resolution.tier)


def _visible_first(nodes: tuple[NativeNode, ...]) -> tuple[NativeNode, ...]:
    visible = tuple(node for node in nodes if node.visible)
    return visible or nodes


def on_screen(bounds: Rect, screen: Rect | None) -> Rect:
    """The part of ``bounds`` inside ``screen`` (all of it when the screen is unknown)."""
    if screen is None or screen.empty:
        return bounds
    left, top = max(bounds.x, screen.x), max(bounds.y, screen.y)
    right = min(bounds.x + bounds.width, screen.x + screen.width)
    bottom = min(bounds.y + bounds.height, screen.y + screen.height)
    return Rect(left, top, max(0.0, right - left), max(0.0, bottom - top))


def point_of(located: Located) -> tuple[float, float]:
    """Where a tap on the node lands: the centre of its on-screen part, from this read."""
    node = located.node
    if node.bounds is None or node.bounds.empty:
        raise ToolError("not-visible", f"{located.ref} ({node.role}) has no size on screen, so there is "
                        "nowhere to tap", ref=located.ref)
    visible = on_screen(node.bounds, located.hierarchy.root.bounds)
    if visible.empty:
        raise ToolError("not-visible", f"{located.ref} ({node.role}) is off screen: scroll it into view with "
                        "scroll (deltaY or to), then act", ref=located.ref)
    return visible.center
