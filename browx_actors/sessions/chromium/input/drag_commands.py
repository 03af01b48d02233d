"""HTML5 drag and drop as raw CDP commands: interception and ``Input.dispatchDragEvent``.

A page that makes an element ``draggable`` (or sets data in ``dragstart``) hands the
drag to the platform: the browser runs its own drag loop, which in a headed browser is
the OS's, out of reach of further input. With ``Input.setInterceptDrags`` on, Chromium
does not start that loop: it reports ``Input.dragIntercepted {data}`` (the drag data:
items, files, allowed operations) and the client drives the drag itself with
``dragEnter`` / ``dragOver`` / ``drop`` at points it chooses, which the page receives
as ``dragenter`` / ``dragover`` / ``drop``, and the source its ``dragend``.

Pure: functions return ``(method, params)`` commands.
"""

from __future__ import annotations

from ....jsonsafe import JsonObject
from .commands import Command

__all__ = ["DRAG_INTERCEPTED", "drag_event", "intercept_drags"]

#: The event Chromium sends instead of starting a platform drag, while interception is on.
DRAG_INTERCEPTED = "Input.dragIntercepted"
_KINDS = ("dragEnter", "dragOver", "drop", "dragCancel")


def intercept_drags(enabled: bool) -> list[Command]:
    return [("Input.setInterceptDrags", {"enabled": enabled})]


def drag_event(kind: str, x: float, y: float, data: JsonObject) -> list[Command]:
    """One step of an intercepted drag at a viewport point, carrying its drag data."""
    if kind not in _KINDS:
        raise ValueError(f"unknown drag event {kind!r}; known: {', '.join(_KINDS)}")
    return [("Input.dispatchDragEvent", {"type": kind, "x": x, "y": y, "data": data, "modifiers": 0})]
