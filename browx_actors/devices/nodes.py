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

A hierarchy is at most :data:`MAX_DEPTH` levels deep. Each parser refuses a deeper one
(:func:`too_deep`) as soon as it reads that far, before it builds the nodes down there:
every node carries its path, so the paths of a 5,000-level chain alone hold 12.5
million indexes, and the walks over a tree that recurse (the visual tree's, the
snapshot printer's) would overrun Python's recursion limit.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import NamedTuple

from ..errors import ToolError

__all__ = ["MAX_DEPTH", "SECRET_MASK", "NativeNode", "Rect", "too_deep"]

#: What a password field's value is once it holds something: its content is never read
#: into a node, not even its length.
SECRET_MASK = "********"
#: The deepest node a hierarchy may hold, in levels below its root. Real screens nest
#: tens of levels (WebDriverAgent's own snapshot stops at 50 by default); this is far
#: past any of them and well inside what the recursive walks over a tree can take.
MAX_DEPTH = 256


def too_deep(source: str) -> ToolError:
    """``too-large`` for a hierarchy that nests past :data:`MAX_DEPTH`; ``source`` says
    which reader found it (``uiautomator dump``, ``WebDriverAgent source``)."""
    return ToolError("too-large", f"the screen's hierarchy ({source}) nests deeper than {MAX_DEPTH} levels, the "
                     f"limit; nothing was read from it", source=source, limit=MAX_DEPTH)


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
