"""A tab's frames as the session knows them: each frame's place (:class:`Frame`) and the
book of their short ids (:class:`FrameBook`), ``fN`` per CDP frame id for the frame's life.

Plain data, kept by the session per tab and filled by :mod:`.tree`.
"""

from __future__ import annotations

import itertools

import attrs

from ....cdp import TargetLink

__all__ = ["Frame", "FrameBook"]


@attrs.define(eq=False)
class Frame:
    frame_id: str
    #: ``fN``; None for the tab's top document.
    short: str | None
    url: str
    name: str
    origin: str
    parent: str | None
    #: The flat session whose renderer hosts the frame's document.
    host: TargetLink
    #: True when the frame is the root of its host session (the top document, or an
    #: out-of-process frame): then no context id is needed to reach its main world.
    root: bool
    out_of_process: bool


class FrameBook:
    """One tab's frame ids: ``fN`` per CDP frame id, stable for the frame's life."""

    def __init__(self) -> None:
        self._short: dict[str, str] = {}
        self._ids = itertools.count(1)
        self.frames: dict[str, Frame] = {}

    def short_of(self, frame_id: str) -> str:
        found = self._short.get(frame_id)
        if found is None:
            found = self._short[frame_id] = f"f{next(self._ids)}"
        return found

    def by_short(self, short: str) -> Frame | None:
        return next((f for f in self.frames.values() if f.short == short), None)
