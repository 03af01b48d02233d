"""World/screen coordinates for canvas apps: the explicit affine and the discovery probe.

Explicit mode is one formula and touches no page::

    screenX = (worldX + panX) * scale + originX     worldX = (screenX - originX) / scale - panX

(the same for y), so the two directions are exact inverses up to floating point.

Discovery mode reads ``window.app`` in the page (:func:`probe_js`) and recognises three
shapes, in this order:

- ``app.viewport.zoom`` + ``app.viewport.center.{x,y}`` (Figma / Excalidraw,
  ``adapterHint: "figma"``): the world point ``center`` sits at the middle of the
  canvas, so ``scale = zoom``, ``pan = -center``, ``origin = canvas centre``;
- ``app.scale`` + ``app.offset.{x,y}`` (Tldraw, ``"tldraw"``): ``scale = scale``,
  ``pan = offset``, ``origin = canvas top-left``;
- ``app.transform.matrix`` ``[a, b, c, d, e, f]`` (``"generic"``): the canvas 2D /
  DOMMatrix convention, ``screen = (a*x + c*y + e, b*x + d*y + f) + canvas top-left``.

"Screen" is the viewport in CSS pixels, the space ``gesture_chain`` and ``click``
take, which is why the discovered origin includes the canvas element's position (the
``ref`` / ``selector`` target, else the first canvas, else the viewport's corner).
The first two shapes come back as an explicit transform an agent can pass straight
back as ``transform``. A shape with a zero scale or a singular matrix does not count:
it cannot be inverted, so it would be a wrong answer rather than no answer.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping

import attrs

from ..jsonsafe import JsonObject, JsonValue
from ..tools.canvas import check_transform

__all__ = [
    "HEURISTIC_WARNING",
    "NO_TRANSFORM",
    "PROBE_TEMPLATE",
    "Affine",
    "Discovered",
    "ExplicitTransform",
    "explicit_transform",
    "interpret_probe",
    "probe_js",
]

NO_TRANSFORM = ("no transform discoverable — pass `transform` explicitly OR use a canvas-app "
                "adapter plugin")
HEURISTIC_WARNING = (
    "discovery probes are HEURISTIC — the transform was inferred from window.app's shape, which "
    "apps do not promise to keep; for production pass `transform` explicitly (read it from the "
    "app's state with eval_js) or use a canvas-app adapter plugin via canvas_query"
)


@attrs.frozen
class ExplicitTransform:
    scale: float
    pan_x: float
    pan_y: float
    origin_x: float = 0.0
    origin_y: float = 0.0

    def to_screen(self, wx: float, wy: float) -> tuple[float, float]:
        return (wx + self.pan_x) * self.scale + self.origin_x, (wy + self.pan_y) * self.scale + self.origin_y

    def to_world(self, sx: float, sy: float) -> tuple[float, float]:
        return (sx - self.origin_x) / self.scale - self.pan_x, (sy - self.origin_y) / self.scale - self.pan_y

    def describe(self) -> dict[str, float]:
        return {"scale": self.scale, "panX": self.pan_x, "panY": self.pan_y,
                "originX": self.origin_x, "originY": self.origin_y}


@attrs.frozen
class Affine:
    """``screen = (a*x + c*y + e + originX, b*x + d*y + f + originY)``; invertible by construction."""

    matrix: tuple[float, float, float, float, float, float]
    origin_x: float = 0.0
    origin_y: float = 0.0

    def to_screen(self, wx: float, wy: float) -> tuple[float, float]:
        a, b, c, d, e, f = self.matrix
        return a * wx + c * wy + e + self.origin_x, b * wx + d * wy + f + self.origin_y

    def to_world(self, sx: float, sy: float) -> tuple[float, float]:
        a, b, c, d, e, f = self.matrix
        det = a * d - b * c
        u, v = sx - self.origin_x - e, sy - self.origin_y - f
        return (d * u - c * v) / det, (a * v - b * u) / det

    def describe(self) -> JsonObject:
        return {"matrix": list(self.matrix), "originX": self.origin_x, "originY": self.origin_y}


Transform = ExplicitTransform | Affine


@attrs.frozen
class Discovered:
    transform: Transform
    adapter_hint: str


def _finite(*values: object) -> bool:
    return all(isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) for v in values)


def explicit_transform(raw: Mapping[str, JsonValue]) -> ExplicitTransform:
    """The caller's ``transform`` argument, checked (``tools/canvas.py``) and made a transform."""
    check_transform(raw)
    return ExplicitTransform(float(raw["scale"]), float(raw["panX"]), float(raw["panY"]),
                             float(raw.get("originX", 0.0)), float(raw.get("originY", 0.0)))


def probe_js(agent_key: str) -> str:
    """The probe: reads the three shapes and the canvas position (through the page agent
    at ``window[agent_key]``); never throws (hostile getters are caught)."""
    return PROBE_TEMPLATE.replace("AGENT_KEY", json.dumps(agent_key))


PROBE_TEMPLATE = """(ref) => {
  const read = (f) => { try { const v = f(); return typeof v === 'number' ? v : null; } catch (e) { return null; } };
  let app = null;
  try { app = window.app; } catch (e) {}
  const out = {figma: null, tldraw: null, generic: null, rect: null,
               viewport: {width: innerWidth, height: innerHeight}};
  if (app && typeof app === 'object') {
    out.figma = {zoom: read(() => app.viewport.zoom), x: read(() => app.viewport.center.x),
                 y: read(() => app.viewport.center.y)};
    out.tldraw = {scale: read(() => app.scale), x: read(() => app.offset.x), y: read(() => app.offset.y)};
    try {
      const m = app.transform.matrix;
      if (m && typeof m.length === 'number' && m.length === 6) out.generic = Array.from(m, Number);
    } catch (e) {}
  }
  let el = null;
  if (ref !== null) { const agent = window[AGENT_KEY]; el = agent ? agent.resolve(ref) : null; }
  else el = document.querySelector('canvas');
  if (el) { const r = el.getBoundingClientRect(); out.rect = {x: r.x, y: r.y, width: r.width, height: r.height}; }
  return out;
}"""


def interpret_probe(probe: JsonObject) -> tuple[Discovered | None, list[str]]:
    """The first valid shape in the probe's answer (or None), and notes about the origin."""
    notes: list[str] = []
    rect = probe.get("rect")
    if rect is None or not _finite(rect.get("x"), rect.get("y"), rect.get("width"), rect.get("height")):
        viewport = probe.get("viewport") or {}
        width, height = viewport.get("width", 0), viewport.get("height", 0)
        rect = {"x": 0.0, "y": 0.0, "width": width if _finite(width) else 0.0,
                "height": height if _finite(height) else 0.0}
        notes.append("no <canvas> to anchor on: screen coordinates are relative to the viewport's corner")
    left, top = float(rect["x"]), float(rect["y"])
    figma = probe.get("figma") or {}
    if _finite(figma.get("zoom"), figma.get("x"), figma.get("y")) and figma["zoom"] != 0:
        transform = ExplicitTransform(float(figma["zoom"]), -float(figma["x"]), -float(figma["y"]),
                                      left + rect["width"] / 2, top + rect["height"] / 2)
        return Discovered(transform, "figma"), notes
    tldraw = probe.get("tldraw") or {}
    if _finite(tldraw.get("scale"), tldraw.get("x"), tldraw.get("y")) and tldraw["scale"] != 0:
        transform = ExplicitTransform(float(tldraw["scale"]), float(tldraw["x"]), float(tldraw["y"]),
                                      left, top)
        return Discovered(transform, "tldraw"), notes
    matrix = probe.get("generic")
    if isinstance(matrix, list) and len(matrix) == 6 and _finite(*matrix):
        a, b, c, d = matrix[:4]
        if a * d - b * c != 0:
            e, f = matrix[4:]
            six = (float(a), float(b), float(c), float(d), float(e), float(f))
            return Discovered(Affine(six, left, top), "generic"), notes
    return None, notes
