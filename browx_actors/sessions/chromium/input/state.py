"""What a tab's input devices are doing: where the mouse is, what is held, which fingers are down.

The browser keeps this state too, but does not report it, and the raw input commands
need it: a move while a button is held must say so, ``mouse_up`` with no coordinates
acts where the pointer is, ``touch_move`` moves fingers that are down. So every command
the session sends is also applied here (:meth:`InputState.track`), one state per tab,
and the tools read it.

Where Playwright moved the mouse itself (an action it performed, ``gesture_chain``)
the state is set from what that action did, or the position is forgotten when it is
not known (:meth:`InputState.forget_position`): a tool that needs it then asks for
coordinates instead of acting at a guess.

Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Iterable

import attrs

from ....jsonsafe import JsonObject
from .commands import BUTTONS, Command
from .motion import Point

__all__ = ["InputState"]


@attrs.define
class InputState:
    #: The mouse pointer, in viewport CSS pixels (None: not known).
    x: float | None = None
    y: float | None = None
    #: Buttons held, as the mask of :data:`~.commands.BUTTONS`.
    buttons: int = 0
    #: Touch points down, by id.
    touches: dict[int, Point] = attrs.Factory(dict)
    #: Whether touch emulation was turned on for the tab.
    touch_emulation: bool = False

    def position(self) -> Point | None:
        return None if self.x is None or self.y is None else (self.x, self.y)

    def held(self) -> list[str]:
        """Names of the buttons held, in :data:`~.commands.BUTTONS` order."""
        return [name for name, bit in BUTTONS.items() if self.buttons & bit]

    def forget_position(self) -> None:
        self.x = self.y = None

    def moved(self, x: float, y: float) -> None:
        self.x, self.y = float(x), float(y)

    def track(self, commands: Iterable[Command]) -> None:
        """Apply commands that were sent to the tab."""
        for method, params in commands:
            if method == "Input.dispatchMouseEvent":
                self._mouse(params)
            elif method == "Input.dispatchTouchEvent":
                self._touch(params)
            elif method == "Input.dispatchDragEvent":
                self.moved(params["x"], params["y"])
            elif method == "Emulation.setTouchEmulationEnabled":
                self.touch_emulation = bool(params["enabled"])

    def _mouse(self, params: JsonObject) -> None:
        self.moved(params["x"], params["y"])
        kind = params["type"]
        if kind in ("mousePressed", "mouseReleased"):
            self.buttons = int(params.get("buttons", 0))

    def _touch(self, params: JsonObject) -> None:
        kind = params["type"]
        points = {int(p["id"]): (float(p["x"]), float(p["y"])) for p in params.get("touchPoints", ())}
        if kind in ("touchStart", "touchMove"):
            self.touches.update(points)
        elif kind == "touchEnd" and points:
            for point_id in points:
                self.touches.pop(point_id, None)
        else:  # touchEnd with no points, touchCancel: every finger is up
            self.touches.clear()

    def describe(self) -> dict[str, object]:
        """The pointer as results show it: ``{x, y, buttons: [names held]}``."""
        return {"x": self.x, "y": self.y, "buttons": self.held()}

    def describe_touches(self) -> list[dict[str, object]]:
        return [{"id": i, "x": x, "y": y} for i, (x, y) in sorted(self.touches.items())]
