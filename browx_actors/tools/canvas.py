"""Canvas apps (capability ``canvas``): capture a <canvas>, diff two captures, run a pointer
program, map world and screen coordinates, and query an app through an adapter plugin.

A ``gesture_chain`` program is checked whole before any step runs (:func:`plan_steps`),
so a malformed one is refused (``bad-arg`` naming ``steps[i].field``) instead of failing
halfway with the button held down:

- ``down`` / ``up`` / ``move`` need numeric ``x`` and ``y`` (viewport CSS pixels);
  ``move`` takes an optional ``ms`` pacing delay after the move, floored at 5 ms with
  a warning (tighter pacing rarely changes app behaviour and starves the renderer);
- ``wait`` sleeps ``ms``, clamped at 5000 ms with a warning;
- ``wheel`` needs a non-zero ``deltaX`` or ``deltaY`` and may move to ``x, y`` first;
- at most 200 steps (``too-many-steps``);
- ``pointerId`` is accepted and routed through the single mouse; several distinct
  ids in one program get a warning naming the touch tools, which send real touch points.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

import attrs

from ..errors import ToolError
from ..jsonsafe import JsonObject, JsonValue
from .arguments import arg, arguments, param
from .contract import ACTS, READS, SESSION_CALL_TIMEOUT, SessionArgs, runtime_tool, session_tool
from .params import COORDINATE, MAX_COORDINATE, MAX_ID, Param
from .rules import AtMostOne, Check, ExactlyOne, JsonArgs
from .shapes import ChainStep, Region, Transform

__all__ = ["CAPTURE_FORMATS", "CAPTURE_MAX_SIDE", "MAX_STEPS", "MAX_WAIT_MS", "MAX_WORLD", "MIN_MOVE_MS",
           "MULTI_TOUCH", "MULTI_TOUCH_TOOLS", "RGBA_FORMATS", "Plan", "Step", "check_transform", "plan_steps"]

#: What canvas_capture reads.
CAPTURE_FORMATS = ("png", "2d-imagedata", "webgl-framebuffer")
#: Canvases larger than this on either side refuse with ``too-large``.
CAPTURE_MAX_SIDE = 16384
#: The base64 encodings canvas_diff reads as RGBA.
RGBA_FORMATS = ("rgba", "2d-imagedata", "webgl-framebuffer")
#: How many captures a session keeps for canvas_diff, and how many bytes of pixels at most.
CACHE_ENTRIES = 16
CACHE_BYTES = 256 * 1024 * 1024
#: World coordinates are the app's own: far larger than screen pixels, still finite.
MAX_WORLD = 1e12

# -- the pointer program ---------------------------------------------------------------

MAX_STEPS = 200
MIN_MOVE_MS = 5
#: Where a program that wants several pointers goes instead: real touch points.
MULTI_TOUCH_TOOLS = ("touch_start", "touch_move", "touch_end", "gesture_pinch", "gesture_swipe")
MULTI_TOUCH = ("several pointers at once use touch_start / touch_move / touch_end (one finger per point), "
               "gesture_pinch (two fingers) or gesture_swipe")
MAX_WAIT_MS = 5000
KINDS = ("down", "up", "move", "wait", "wheel")
#: What the dispatch checks of every step before the plan's own rules run: each number
#: finite and in range (a move to x=1e308 hung the browser's input pipeline).
STEP_PROPERTIES: dict[str, Mapping[str, JsonValue]] = {
    "kind": {"type": "string", "enum": list(KINDS)},
    "x": COORDINATE,
    "y": COORDINATE,
    "deltaX": {"type": "number", "minimum": -10 * MAX_COORDINATE, "maximum": 10 * MAX_COORDINATE},
    "deltaY": {"type": "number", "minimum": -10 * MAX_COORDINATE, "maximum": 10 * MAX_COORDINATE},
    "ms": {"type": "number", "minimum": 0, "maximum": MAX_ID},
    "pointerId": {"type": "number", "minimum": -MAX_ID, "maximum": MAX_ID},
}
_KEYS = frozenset(STEP_PROPERTIES)


@attrs.frozen
class Step:
    kind: str
    x: float | None = None
    y: float | None = None
    delta_x: float = 0.0
    delta_y: float = 0.0
    #: Delay after the step in milliseconds (a move's pacing or a wait), already clamped.
    ms: float = 0.0


@attrs.frozen
class Plan:
    steps: tuple[Step, ...]
    warnings: tuple[str, ...]

    @property
    def planned_ms(self) -> float:
        return sum(s.ms for s in self.steps)


def _bad(message: str, field: str) -> ToolError:
    return ToolError("bad-arg", message, field=field)


def _number(step: JsonObject, key: str, where: str, *, required: bool) -> float | None:
    value = step.get(key)
    if value is None:
        if required:
            raise _bad(f"{where}.{key} is required for {step['kind']} steps", f"{where}.{key}")
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise _bad(f"{where}.{key} must be a number, got {type(value).__name__}", f"{where}.{key}")
    try:
        number = float(value)
    except OverflowError:
        number = math.inf
    if not math.isfinite(number):
        raise _bad(f"{where}.{key} must be a finite number", f"{where}.{key}")
    return number


def plan_steps(steps: JsonValue) -> Plan:
    """Checked, clamped steps and the warnings clamping produced; raises on any bad step."""
    if not isinstance(steps, list):
        raise _bad("steps must be an array of step objects", "steps")
    if len(steps) > MAX_STEPS:
        raise ToolError("too-many-steps", f"{len(steps)} steps is more than the {MAX_STEPS} a chain may "
                        "hold; split the program across several gesture_chain calls",
                        stepCount=len(steps), maxSteps=MAX_STEPS)
    if not steps:
        raise _bad("steps is empty: give at least one step", "steps")
    planned: list[Step] = []
    warnings: list[str] = []
    pointer_ids: set[float] = set()
    for index, step in enumerate(steps):
        where = f"steps[{index}]"
        if not isinstance(step, dict):
            raise _bad(f"{where} must be an object like {{kind, x, y}}", where)
        unknown = sorted(set(step) - _KEYS)
        if unknown:
            raise _bad(f"unknown key {unknown[0]!r} in {where} (known: {', '.join(sorted(_KEYS))})",
                       f"{where}.{unknown[0]}")
        kind = step.get("kind")
        if kind not in KINDS:
            raise _bad(f"{where}.kind must be one of {', '.join(KINDS)}, got {kind!r}", f"{where}.kind")
        pointer = step.get("pointerId")
        if pointer is not None:
            if isinstance(pointer, bool) or not isinstance(pointer, (int, float)):
                raise _bad(f"{where}.pointerId must be a number", f"{where}.pointerId")
            pointer_ids.add(pointer)
        planned.append(_plan_one(step, kind, where, warnings))
    if len(pointer_ids) > 1:
        warnings.append(f"{len(pointer_ids)} pointerIds were given, but every step routes through the "
                        f"single mouse pointer; for {MULTI_TOUCH}")
    return Plan(tuple(planned), tuple(warnings))


def _plan_one(step: JsonObject, kind: str, where: str, warnings: list[str]) -> Step:
    if kind in ("down", "up", "move"):
        x = _number(step, "x", where, required=True)
        y = _number(step, "y", where, required=True)
        for key in ("deltaX", "deltaY"):
            if step.get(key) is not None:
                raise _bad(f"{where}.{key} belongs to wheel steps, not {kind}", f"{where}.{key}")
        ms = _number(step, "ms", where, required=False) if kind == "move" else None
        if kind != "move" and step.get("ms") is not None:
            raise _bad(f"{where}.ms belongs to move and wait steps, not {kind}", f"{where}.ms")
        if ms is not None and ms < MIN_MOVE_MS:
            warnings.append(f"{where}: move pacing {ms:g} ms raised to the {MIN_MOVE_MS} ms floor")
            ms = MIN_MOVE_MS
        return Step(kind, x, y, ms=ms or 0.0)
    if kind == "wait":
        ms = _number(step, "ms", where, required=True)
        assert ms is not None
        if ms < 0:
            raise _bad(f"{where}.ms must be at least 0", f"{where}.ms")
        if ms > MAX_WAIT_MS:
            warnings.append(f"{where}: wait {ms:g} ms clamped to {MAX_WAIT_MS} ms; split longer waits "
                            "across calls")
            ms = MAX_WAIT_MS
        for key in ("x", "y", "deltaX", "deltaY"):
            if step.get(key) is not None:
                raise _bad(f"{where}.{key} does not apply to a wait step", f"{where}.{key}")
        return Step(kind, ms=ms)
    # wheel
    dx = _number(step, "deltaX", where, required=False) or 0.0
    dy = _number(step, "deltaY", where, required=False) or 0.0
    if dx == 0 and dy == 0:
        raise _bad(f"{where}: a wheel step needs a non-zero deltaX or deltaY", f"{where}.deltaY")
    x = _number(step, "x", where, required=False)
    y = _number(step, "y", where, required=False)
    if (x is None) != (y is None):
        missing = "y" if y is None else "x"
        raise _bad(f"{where}: give both x and y (to move first) or neither", f"{where}.{missing}")
    if step.get("ms") is not None:
        raise _bad(f"{where}.ms belongs to move and wait steps, not wheel", f"{where}.ms")
    return Step(kind, x, y, dx, dy)


# -- transforms ------------------------------------------------------------------------


def _finite(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def check_transform(raw: Mapping[str, JsonValue]) -> None:
    """An explicit ``transform``: scale, panX and panY given, every number finite, the scale not 0."""
    for key in ("scale", "panX", "panY"):
        if key not in raw:
            raise ToolError("bad-arg", f"missing transform.{key}", field=f"transform.{key}")
    for key, value in raw.items():
        if not _finite(value):
            raise ToolError("bad-arg", f"transform.{key} must be a finite number", field=f"transform.{key}")
    if raw["scale"] == 0:
        raise ToolError("bad-arg", "transform.scale must not be 0 (the transform would not be invertible)",
                        field="transform.scale")


def _check_transform(args: JsonArgs) -> None:
    if args["transform"] is not None:
        check_transform(args["transform"])


_WORLD = {"type": "number", "minimum": -MAX_WORLD, "maximum": MAX_WORLD}
_TRANSFORM = Param(
    "transform", "object", "Affine: screenX = (worldX + panX) * scale + originX, same for y.",
    properties={"scale": {"type": "number", "minimum": -1e6, "maximum": 1e6}, "panX": _WORLD, "panY": _WORLD,
                "originX": COORDINATE, "originY": COORDINATE},
    required_keys=("scale", "panX", "panY"),
)
_TRANSFORM_RULE = Check(_check_transform, "an explicit `transform` has a non-zero scale")
CANVAS_REF = Param("ref", "string", "Ref of the <canvas>; default: the first canvas.")
CANVAS_SELECTOR = Param("selector", "string", "Selector of the <canvas>.")
#: What docs say of CANVAS_REF and CANVAS_SELECTOR, for the tools that take them.
_CANVAS_TARGET = ("ref (from snapshot or find) or selector (when no ref is at hand) names the <canvas>; with "
                  "neither, the first canvas.")

#: A region of an image, in pixels: clamped to the image, so only absurd values are refused.
_PIXELS = {"type": "number", "minimum": -1e9, "maximum": 1e9}

# -- the tools -------------------------------------------------------------------------

@arguments
class CanvasCaptureArgs(SessionArgs):
    """canvas_capture's arguments."""

    ref: str | None = arg(CANVAS_REF)
    selector: str | None = arg(CANVAS_SELECTOR)
    format: str = param("format", "string", "", required=True, enum=CAPTURE_FORMATS)
    include_content: bool = param("includeContent", "boolean", "Return contentBase64 (false: only captureId and size).",
                                  default=True)


CANVAS_CAPTURE = session_tool(
    "canvas_capture", CanvasCaptureArgs,
    title="Capture canvas", capability="canvas", hints=READS,
    summary="Read a <canvas>'s pixels as PNG or RGBA, with a captureId for canvas_diff.",
    description="Read a <canvas> (ref, selector, or the first one): format png (toDataURL) returns {format, "
        "contentBase64, byteLength, width, height}; 2d-imagedata returns RGBA (row-major, top-left origin) "
        "with channelCount 4; webgl-framebuffer reads the WebGL drawing buffer (flipped to top-left order) "
        "with isWebGL true; it never gives a canvas a context, so one that reads fully transparent (no context yet, "
        "nothing drawn, or a buffer the platform cleared) is returned as read, without isWebGL, with a warning. "
        "Every capture also returns captureId, kept by the session (the "
        f"{CACHE_ENTRIES} most recently used captures, at most {CACHE_BYTES // (1024 * 1024)} MiB, least "
        "recently used evicted first) for canvas_diff beforeId/afterId, and box (the canvas's viewport "
        "rectangle in CSS pixels). includeContent false returns only captureId and the size, for diffs by id "
        f"without shipping the pixels. {_CANVAS_TARGET} Refuses: too-large (over 16384x16384), "
        "taint-or-encode / taint-or-read (tainted by cross-origin content), not-a-canvas, context-mismatch "
        "(webgl-framebuffer on a 2D canvas), empty-canvas.",
    rules=(AtMostOne(("ref", "selector")),),
)


@arguments
class CanvasDiffArgs(SessionArgs):
    """canvas_diff's arguments."""

    before_base64: str | None = param("beforeBase64", "string", "Base64 RGBA, or PNG with inputFormat png.")
    after_base64: str | None = param("afterBase64", "string", "Like beforeBase64.")
    before_id: str | None = param("beforeId", "string", "A captureId from canvas_capture.")
    after_id: str | None = param("afterId", "string", "Like beforeId.")
    width: int | None = param("width", "integer", "For base64 RGBA inputs.", minimum=1, maximum=CAPTURE_MAX_SIDE)
    height: int | None = param("height", "integer", "For base64 RGBA inputs.", minimum=1, maximum=CAPTURE_MAX_SIDE)
    region: Region | None = param("region", "object", "Image rectangle to compare, in pixels.",
                                  properties={k: _PIXELS for k in ("x", "y", "w", "h")},
                                  required_keys=("x", "y", "w", "h"))
    input_format: str = param("inputFormat", "string", "Encoding of the base64 inputs.", default="rgba",
                              enum=(*RGBA_FORMATS, "png"))


CANVAS_DIFF = runtime_tool(
    "canvas_diff", CanvasDiffArgs,
    title="Canvas diff", capability="read", hints=READS,
    summary="Compare two canvas captures pixel by pixel: how much changed, and where.",
    description="Pixel delta of two captures (pure byte math): {changedPixelCount, changedBytes (sum of absolute "
        "per-channel deltas), percentageChanged (of the compared area, 0-100), bboxOfChanges {x,y,w,h} in "
        "image pixels or null, warnings}. Give each side as base64 (RGBA needs width and height; inputFormat "
        "png decodes PNGs and takes their sizes; rgba, 2d-imagedata and webgl-framebuffer all mean RGBA) or as a "
        "captureId from canvas_capture in this session (beforeId / afterId), which ships no pixels. region is "
        "clamped to the image (never refused). Errors: size-mismatch, unknown-capture, capture-evicted.",
    rules=(ExactlyOne(("beforeBase64", "beforeId")), ExactlyOne(("afterBase64", "afterId"))),
)


def _check_steps(args: JsonArgs) -> None:
    plan_steps(args["steps"])


@arguments
class GestureChainArgs(SessionArgs):
    """gesture_chain's arguments."""

    steps: list[ChainStep] = param("steps", "array", "The program, in order.", required=True, items="object",
                                   properties=STEP_PROPERTIES)


def _chain_timeout(args: GestureChainArgs) -> float:
    """The session call gets room for the waits the program asked for."""
    return SESSION_CALL_TIMEOUT + plan_steps(args.steps).planned_ms / 1000


GESTURE_CHAIN = session_tool(
    "gesture_chain", GestureChainArgs,
    title="Pointer program", capability="canvas", hints=ACTS,
    summary="Multi-step pointer program through the mouse pipeline.",
    description="Multi-step pointer program through the mouse pipeline. steps: [{kind, x?, y?, deltaX?, deltaY?, ms?,"
        " pointerId?}]; down/up/move need x and y (viewport CSS pixels); move takes an optional ms pacing "
        "delay (floored at 5 ms with a warning); wait sleeps ms (clamped at 5000 ms with a warning); wheel "
        "needs a non-zero deltaX or deltaY and may move to x, y first. At most 200 steps (too-many-steps). "
        "pointerId is accepted; all steps use the single mouse (touch_start / touch_move / touch_end and "
        "gesture_pinch send real touch points). Returns {stepsExecuted, totalDurationMs, warnings}.",
    rules=(Check(_check_steps, "every step is checked (kinds, coordinates, pacing) before any runs"),),
    call_timeout=_chain_timeout,
)


@arguments
class CanvasWorldToScreenArgs(SessionArgs):
    """canvas_world_to_screen's arguments."""

    world_x: float = param("worldX", "number", "", required=True, minimum=-MAX_WORLD, maximum=MAX_WORLD)
    world_y: float = param("worldY", "number", "", required=True, minimum=-MAX_WORLD, maximum=MAX_WORLD)
    ref: str | None = arg(CANVAS_REF)
    selector: str | None = arg(CANVAS_SELECTOR)
    transform: Transform | None = arg(_TRANSFORM)


CANVAS_WORLD_TO_SCREEN = runtime_tool(
    "canvas_world_to_screen", CanvasWorldToScreenArgs,
    title="World to screen", capability="canvas", hints=READS,
    summary="App world coordinates to viewport CSS pixels.",
    description="App world coordinates to viewport CSS pixels. With transform (the explicit affine screenX = "
        "(worldX + panX) * scale + originX, same for y): pure math. Without: probes window.app for "
        "app.viewport.{zoom,center} (adapterHint figma), app.scale + app.offset (tldraw) or app.transform.matrix "
        "[a,b,c,d,e,f] (generic), anchored on the canvas, and returns transformDiscovered, adapterHint and a "
        f"HEURISTIC warning; no-transform when nothing matches. {_CANVAS_TARGET}",
    rules=(_TRANSFORM_RULE,),
)


@arguments
class CanvasScreenToWorldArgs(SessionArgs):
    """canvas_screen_to_world's arguments."""

    screen_x: float = param("screenX", "number", "Viewport x in CSS pixels.", required=True, minimum=-MAX_COORDINATE,
                            maximum=MAX_COORDINATE)
    screen_y: float = param("screenY", "number", "Viewport y in CSS pixels.", required=True, minimum=-MAX_COORDINATE,
                            maximum=MAX_COORDINATE)
    ref: str | None = arg(CANVAS_REF)
    selector: str | None = arg(CANVAS_SELECTOR)
    transform: Transform | None = arg(_TRANSFORM)


CANVAS_SCREEN_TO_WORLD = runtime_tool(
    "canvas_screen_to_world", CanvasScreenToWorldArgs,
    title="Screen to world", capability="canvas", hints=READS,
    summary="Viewport CSS pixels to app world coordinates; the inverse of canvas_world_to_screen.",
    description="Viewport CSS pixels to app world coordinates; the exact inverse of canvas_world_to_screen under the "
        "same transform (explicit, the affine screenX = (worldX + panX) * scale + originX, same for y; or, when "
        f"omitted, discovered the same way from the page's window.app: HEURISTIC). {_CANVAS_TARGET}",
    rules=(_TRANSFORM_RULE,),
)


@arguments
class CanvasQueryArgs(SessionArgs):
    """canvas_query's arguments."""

    adapter: str = param("adapter", "string", "Adapter namespace, e.g. figma.", required=True)
    op: str = param("op", "string", "", required=True)
    args: JsonObject | None = param("args", "object", "")


CANVAS_QUERY = runtime_tool(
    "canvas_query", CanvasQueryArgs,
    title="Canvas adapter query", capability="canvas", hints=ACTS,
    summary="Run an operation of a canvas-app adapter plugin in the session.",
    description="Run <adapter>.<op> of a canvas-app adapter plugin (Python entry point group "
        "browx_actors.canvas_adapters) with args, in the session. The op's own capability is enforced as well"
        " as canvas. no-adapter (with requestedAdapter, requestedOp and registeredAdapters) when no plugin "
        "has that namespace; unknown-op when it lacks the op.",
)
