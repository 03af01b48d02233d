"""The platform-neutral node tree both native engines read their hierarchy into.

An Android UiAutomator dump and an iOS WebDriverAgent source tree both become a tree
of :class:`NativeNode`, so that snapshot text, refs, selectors, ``find`` and the visual
tree are written once for both platforms. A node keeps what the platform reported,
normalised (booleans are booleans, bounds are a :class:`Rect`), plus its ``path``: the
child indexes from the root, which is what a ref is keyed on when the node has no
test id.

Coordinates are the platform's input space: device pixels on Android (what ``input
tap`` takes), points on iOS (what WebDriverAgent's ``/wda/tap`` takes).

Both are named tuples, not attrs classes: a dump of 2,000 nodes builds 2,000 of each on
every action, and a frozen attrs class sets each field through ``object.__setattr__``,
which made construction a third of the parse. A tuple is as immutable and builds in C.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import NamedTuple

__all__ = ["SECRET_MASK", "NativeNode", "Rect"]

#: What a password field's value is once it holds something: its content is never read
#: into a node, not even its length.
SECRET_MASK = "********"


class Rect(NamedTuple):
    """An axis-aligned rectangle: top-left corner and size, in input coordinates."""

    x: float
    y: float
    width: float
    height: float

    @property
    def center(self) -> tuple[float, float]:
        return self.x + self.width / 2, self.y + self.height / 2

    @property
    def empty(self) -> bool:
        return self.width <= 0 or self.height <= 0


class NativeNode(NamedTuple):
    """One element of a native view hierarchy.

    ``role`` is the platform-neutral role (``button``, ``text``, ``textbox``, ``image``,
    ``generic``...) from the platform's class or type table; ``tag`` is the raw class or
    type the platform reported, kept because the table is coarse. ``name`` is the
    accessibility label (Android content-desc, iOS label); ``text`` the rendered string;
    ``value`` the current value of an editable or ranged control. ``test_id`` is the
    tier-1 selector: Android's resource-id, iOS's accessibilityIdentifier.
    """

    role: str
    tag: str
    name: str = ""
    text: str = ""
    value: str | None = None
    test_id: str | None = None
    bounds: Rect | None = None
    enabled: bool = True
    visible: bool = True
    focusable: bool = False
    focused: bool = False
    clickable: bool = False
    long_clickable: bool = False
    scrollable: bool = False
    checkable: bool = False
    checked: bool = False
    selected: bool = False
    #: A secure text entry. Its ``value`` is its placeholder while it is empty and
    #: :data:`SECRET_MASK` once it holds something; its ``text`` is empty. The hierarchy
    #: parsers guarantee it: no node carries a secret's characters or its length.
    password: bool = False
    #: Child indexes from the root (the root is ``()``).
    path: tuple[int, ...] = ()
    children: tuple[NativeNode, ...] = ()

    def walk(self) -> Iterator[NativeNode]:
        """This node and every descendant, depth first, in document order."""
        stack = [self]
        while stack:
            node = stack.pop()
            yield node
            if node.children:  # most nodes are leaves
                stack.extend(node.children[::-1])
