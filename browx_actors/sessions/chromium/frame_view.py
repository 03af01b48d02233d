"""Where a frame's viewport sits in its tab, and which part of the tab shows it.

A frame's page agent aims in its own viewport: it knows its element is in view there
and on top at its point, but not whether the ``<iframe>`` holding its document (or one
holding that) shows that part. A nested frame scrolled out of its parent frame's view
is still "in view" to itself, and input sent at its point lands on whatever the parent
shows there instead. So an aim inside a frame is checked against :class:`FrameView`:
the offset of the frame's viewport in the tab, and the part of the tab through which
every ``<iframe>`` above it, and every viewport those sit in, lets it be seen.

Pure: the boxes come from the ``<iframe>`` elements (see ``_owner_function`` in
:mod:`.frames`), top document first.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from typing import Any

import attrs

__all__ = ["FrameView", "OwnerBox", "frame_view"]


@attrs.frozen
class OwnerBox:
    """An ``<iframe>``'s content box in its document's viewport, and that viewport's size."""

    x: float
    y: float
    width: float
    height: float
    viewport_width: float
    viewport_height: float

    @classmethod
    def from_json(cls, value: Mapping[str, Any]) -> OwnerBox:
        return cls(float(value["x"]), float(value["y"]), float(value["w"]), float(value["h"]),
                   float(value["vw"]), float(value["vh"]))


@attrs.frozen
class FrameView:
    """The frame's viewport origin in the tab (``dx``, ``dy``), and the tab's rectangle
    (``left``, ``top``, ``right``, ``bottom``; right and bottom exclusive) that shows it."""

    dx: float = 0.0
    dy: float = 0.0
    left: float = -math.inf
    top: float = -math.inf
    right: float = math.inf
    bottom: float = math.inf

    def to_tab(self, x: float, y: float) -> tuple[float, float]:
        """A point of the frame's viewport in the tab's."""
        return x + self.dx, y + self.dy

    def shows(self, x: float, y: float) -> bool:
        """Whether a point of the tab (see :meth:`to_tab`) shows the frame."""
        return self.left <= x < self.right and self.top <= y < self.bottom

    def _clipped(self, left: float, top: float, right: float, bottom: float) -> FrameView:
        return attrs.evolve(self, left=max(self.left, left), top=max(self.top, top),
                            right=min(self.right, right), bottom=min(self.bottom, bottom))


def frame_view(owners: Iterable[OwnerBox]) -> FrameView:
    """The view of a frame held by ``owners``: the ``<iframe>`` in the top document
    first, the one holding the frame itself last."""
    view = FrameView()
    for owner in owners:
        # The document holding this <iframe> shows only its own viewport...
        view = view._clipped(view.dx, view.dy, view.dx + owner.viewport_width, view.dy + owner.viewport_height)
        # ...and the frame's viewport is the <iframe>'s content box in it.
        dx, dy = view.dx + owner.x, view.dy + owner.y
        view = attrs.evolve(view._clipped(dx, dy, dx + owner.width, dy + owner.height), dx=dx, dy=dy)
    return view
