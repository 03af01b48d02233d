"""The page as a whole: waits, screenshots, PDF, downloads, viewport, emulation, and
evaluating JavaScript (``eval``).
"""

from __future__ import annotations

import functools
import zoneinfo

from ..errors import ToolError
from ..jsonsafe import JsonObject
from ..policy.permissions import PERMISSION_NAMES
from .arguments import Unset, arg, arguments, param
from .contract import ACTS, CHANGES, READS, SessionArgs, session_tool
from .params import Param
from .rules import AtMostOne, Check, ExactlyOne, Excludes, JsonArgs
from .shapes import Geolocation, NetworkConditions, Rect
from .targets import REF, SELECTOR, TIMEOUT_MS

__all__ = ["EMULATED", "PAPER_FORMATS", "PERMISSION_NAMES", "check_timezone"]

_FORMAT = Param("format", "string", "", default="png", enum=("png", "jpeg"))
_QUALITY = Param("quality", "integer", "JPEG quality.", default=80, minimum=1, maximum=100)
_MAX_DIMENSION = Param("maxDimension", "integer", "Longest side in pixels.", default=2000, minimum=16, maximum=8000)
_PATH = Param("path", "string", "Also save at this workspace-relative path.", max_length=4096, secrets="mask")
#: A region's corner may lie this far either side of the viewport's origin; its sides
#: are at least one CSS pixel (a thinner one captures nothing, and is refused before the
#: session is touched) and at most this long (Chromium's largest capture side).
_REGION_LIMIT = 16_384
_REGION_PROPERTIES: dict[str, JsonObject] = {
    "x": {"type": "number", "minimum": -_REGION_LIMIT, "maximum": _REGION_LIMIT},
    "y": {"type": "number", "minimum": -_REGION_LIMIT, "maximum": _REGION_LIMIT},
    "width": {"type": "number", "minimum": 1, "maximum": _REGION_LIMIT},
    "height": {"type": "number", "minimum": 1, "maximum": _REGION_LIMIT},
}
_JSON_MAX = Param("maxBytes", "integer", "Largest JSON value to return.", default=1_000_000, minimum=1,
                  maximum=10_000_000)

#: Paper formats pdf_save takes.
PAPER_FORMATS = ("Letter", "Legal", "Tabloid", "Ledger", "A0", "A1", "A2", "A3", "A4", "A5", "A6")
#: Permissions as pages and Playwright spell them.



@arguments
class WaitForArgs(SessionArgs):
    """wait_for's arguments."""

    text: str | None = param("text", "string", "Visible text to wait for.", secrets="substitute")
    text_gone: str | None = param("textGone", "string", "Text to wait to disappear.", secrets="substitute")
    selector: str | None = param("selector", "string", "")
    ref: str | None = param("ref", "string", "")
    url: str | None = param("url", "string", "URL (glob) to wait for.")
    state: str = param("state", "string", "For text, selector or ref.", default="visible",
                       enum=("visible", "hidden", "attached", "detached"))
    timeout_ms: int = arg(TIMEOUT_MS)


WAIT_FOR = session_tool(
    "wait_for", WaitForArgs,
    title="Wait for", capability="read", hints=READS,
    summary="Wait for text, a selector, a ref or a URL to reach a state.",
    description="Wait for text, a selector, a ref or a URL to reach a state: `state`, the state to reach, applies to "
        "`text`, `selector` and `ref`; `textGone` waits until the text is hidden, `url` until the page's URL matches "
        "the glob.",
    rules=(ExactlyOne(("text", "textGone", "selector", "ref", "url")),),
)


@arguments
class ScreenshotArgs(SessionArgs):
    """screenshot's arguments."""

    format: str = arg(_FORMAT)
    quality: int = arg(_QUALITY)
    full_page: bool = param("fullPage", "boolean", "Capture the whole scrollable page.", default=False)
    ref: str | None = arg(REF)
    selector: str | None = arg(SELECTOR)
    region: Rect | None = param("region", "object", "Viewport rectangle in CSS pixels.",
                                properties=_REGION_PROPERTIES,
                                required_keys=("x", "y", "width", "height"))
    max_dimension: int = arg(_MAX_DIMENSION)
    path: str | None = arg(_PATH)


SCREENSHOT = session_tool(
    "screenshot", ScreenshotArgs,
    title="Screenshot", capability="read", hints=READS,
    summary="Capture the viewport, the full page, an element or a region as PNG or JPEG.",
    description="Capture the viewport, the full page, an element or a region as PNG or JPEG, scaled so the longest "
        "side fits maxDimension. With `path`, the image is also saved under the workspace at that relative path "
        "(not in diagnostics/).",
    rules=(AtMostOne(("ref", "selector", "region")),
           Excludes("fullPage", ("ref", "selector", "region"),
                    "fullPage captures the whole page; drop it to capture a part")),
)


@arguments
class ScreenshotRegionArgs(SessionArgs):
    """screenshot_region's arguments."""

    x: float = param("x", "number", "", required=True, minimum=-_REGION_LIMIT, maximum=_REGION_LIMIT)
    y: float = param("y", "number", "", required=True, minimum=-_REGION_LIMIT, maximum=_REGION_LIMIT)
    width: float = param("width", "number", "", required=True, minimum=1, maximum=_REGION_LIMIT)
    height: float = param("height", "number", "", required=True, minimum=1, maximum=_REGION_LIMIT)
    format: str = arg(_FORMAT)
    quality: int = arg(_QUALITY)
    max_dimension: int = arg(_MAX_DIMENSION)
    path: str | None = arg(_PATH)


SCREENSHOT_REGION = session_tool(
    "screenshot_region", ScreenshotRegionArgs,
    title="Screenshot region", capability="read", hints=READS,
    summary="Capture a viewport rectangle, in CSS pixels, as PNG or JPEG: screenshot with a region.",
    description="Capture a rectangle of the viewport (x, y, width, height in viewport CSS pixels) as PNG or JPEG: "
        "screenshot with a region, scaled so the longest side fits maxDimension. With `path`, the image is also "
        "saved under the workspace at that relative path (not in diagnostics/).",
)


@arguments
class PdfSaveArgs(SessionArgs):
    """pdf_save's arguments."""

    path: str | None = param("path", "string", "Workspace-relative file path.", max_length=1024, secrets="mask")
    format: str = param("format", "string", "", default="Letter",
                        enum=PAPER_FORMATS)
    landscape: bool = param("landscape", "boolean", "", default=False)
    print_background: bool = param("printBackground", "boolean", "Print background colours and images.", default=True)
    scale: float = param("scale", "number", "Rendering scale.", default=1, minimum=0.1, maximum=2)
    page_ranges: str | None = param("pageRanges", "string", "Pages to print, e.g. 1-3, 5; omitted: all.",
                                    max_length=200,
                                    pattern="\\s*\\d+(\\s*-\\s*\\d+)?(\\s*,\\s*\\d+(\\s*-\\s*\\d+)?)*\\s*")


PDF_SAVE = session_tool(
    "pdf_save", PdfSaveArgs,
    title="Save PDF", capability="read", hints=READS,
    summary="Print the page to a PDF file in the workspace; returns its path, size and page count.",
    description="Print the current page to PDF (print media styles) and save it in the workspace; returns the path, "
        "size and page count. `path` is the file under the workspace (default pdf/<session>-<time>.pdf); "
        "`format` is the paper format; `landscape` turns it to landscape orientation.",
)


@arguments
class DownloadsListArgs(SessionArgs):
    """downloads_list's arguments."""

    details: bool = param("details", "boolean", "Each download as an object.", default=False)


DOWNLOADS_LIST = session_tool(
    "downloads_list", DownloadsListArgs,
    title="List downloads", capability="read", hints=READS,
    summary="List the session's downloads, saved in the workspace under downloads/<session>/.",
    description="The session's downloads, saved into the workspace under downloads/<session>/: one line each (`dN "
        "state name size path from url`), or whole with `details`.",
)


@arguments
class SetViewportArgs(SessionArgs):
    """set_viewport's arguments."""

    width: int = param("width", "integer", "CSS pixels.", required=True, minimum=100, maximum=7680)
    height: int = param("height", "integer", "CSS pixels.", required=True, minimum=100, maximum=4320)


SET_VIEWPORT = session_tool(
    "set_viewport", SetViewportArgs,
    title="Set viewport", capability="action", hints=CHANGES,
    summary="Resize the session's viewport.",
)


_GEOLOCATION = Param("geolocation", "object", "Position for the Geolocation API; grant its permission too.",
                     properties={"latitude": {"type": "number", "minimum": -90, "maximum": 90},
                                 "longitude": {"type": "number", "minimum": -180, "maximum": 180},
                                 "accuracy": {"type": "number", "minimum": 0, "maximum": 1_000_000}},
                     required_keys=("latitude", "longitude"), nullable=True)
_NETWORK_CONDITIONS = Param("networkConditions", "object", "For network custom.",
                            properties={"latencyMs": {"type": "number", "minimum": 0, "maximum": 60_000},
                                        "downloadKbps": {"type": "number", "minimum": 1, "maximum": 10_000_000},
                                        "uploadKbps": {"type": "number", "minimum": 1, "maximum": 10_000_000}},
                            nullable=True)
_PERMISSIONS = Param("permissions", "array", "Permissions granted to the session's pages.",
                     items="string", item_enum=PERMISSION_NAMES, max_items=len(PERMISSION_NAMES), nullable=True)


@arguments
class EmulateArgs(SessionArgs):
    """emulate's arguments."""

    color_scheme: str | Unset | None = param("colorScheme", "string", "prefers-color-scheme.",
                                             enum=("light", "dark", "no-preference"), nullable=True)
    reduced_motion: str | Unset | None = param("reducedMotion", "string", "prefers-reduced-motion.",
                                               enum=("reduce", "no-preference"), nullable=True)
    locale: str | Unset | None = param("locale", "string", "BCP 47 locale, e.g. de-DE.",
                                       max_length=35, pattern="[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})*", nullable=True)
    timezone: str | Unset | None = param("timezone", "string", "IANA time zone, e.g. Asia/Tokyo.", max_length=64,
                                         pattern="[A-Za-z0-9_+\\-/]+", nullable=True)
    geolocation: Geolocation | Unset | None = arg(_GEOLOCATION)
    user_agent: str | Unset | None = param("userAgent", "string", "", max_length=1000, nullable=True)
    network: str | Unset | None = param("network", "string", "",
                                        enum=("offline", "slow-3g", "fast-3g", "custom"), nullable=True)
    network_conditions: NetworkConditions | Unset | None = arg(_NETWORK_CONDITIONS)
    cpu_slowdown: float | Unset | None = param("cpuSlowdown", "number", "CPU slowdown factor (1 is none).", minimum=1,
                                               maximum=20, nullable=True)
    permissions: list[str] | Unset | None = arg(_PERMISSIONS)


#: What emulate sets, each by its argument's name.
EMULATED = ("colorScheme", "reducedMotion", "locale", "timezone", "geolocation", "userAgent", "network",
            "networkConditions", "cpuSlowdown", "permissions")


def _check_custom(args: JsonArgs) -> None:
    if args.get("network") == "custom" and not args.get("networkConditions"):
        raise ToolError("bad-arg", "network custom needs networkConditions", field="networkConditions")
    if args.get("networkConditions") and args.get("network") not in ("custom", None):
        raise ToolError("bad-arg", "networkConditions go with network custom", field="networkConditions")


def check_timezone(args: JsonArgs) -> None:
    """Chromium takes an unknown zone without a word and runs the page in UTC, so the
    name is checked against the system's time zone database (when it has one)."""
    zone = args.get("timezone")
    if zone is None or not _known_zones():
        return
    try:
        zoneinfo.ZoneInfo(zone)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError) as err:
        raise ToolError("bad-arg", f"unknown time zone {zone!r} (IANA names, e.g. Europe/Paris)",
                        field="timezone") from err


@functools.cache
def _known_zones() -> bool:
    return bool(zoneinfo.available_timezones())


EMULATE = session_tool(
    "emulate", EmulateArgs,
    title="Emulate", capability="action", hints=CHANGES,
    summary="Emulate settings for all the session's tabs; an omitted field stays, null clears it.",
    description="Emulate, for every tab of the session: colorScheme, reducedMotion, locale, timezone, geolocation, "
        "userAgent, network (offline, slow-3g, fast-3g, or custom with networkConditions), cpuSlowdown, "
        "permissions. A field left out keeps its value, null clears it; {} reports what is in force. `locale` sets "
        "Intl, navigator.language and Accept-Language; `userAgent` the User-Agent header and navigator.userAgent. "
        "`geolocation` is the position reported to the Geolocation API (grant the geolocation permission for pages "
        "to read it). `networkConditions` gives the latency and throughput for network custom. `permissions` are "
        "granted to the session's pages (null revokes them all).",
    rules=(Check(_check_custom, "`networkConditions` goes with `network` custom, which needs it"),
           Check(check_timezone, "`timezone` is a known IANA time zone"),),
)


@arguments
class EvalJsArgs(SessionArgs):
    """eval_js's arguments."""

    expr: str = param("expr", "string", "Expression or function source.", required=True, secrets="substitute")
    return_type: str = param("returnType", "string", "", default="json", enum=("json", "void"))
    max_bytes: int = arg(_JSON_MAX)


EVAL_JS = session_tool(
    "eval_js", EvalJsArgs,
    title="Evaluate JavaScript", capability="eval", hints=ACTS,
    summary="Run JavaScript in the page and return its JSON value.",
    description="Evaluate JavaScript in the page (an expression or a function source) and return its JSON value. "
        "`returnType` json returns the value; void discards it.",
)


@arguments
class PollEvalArgs(SessionArgs):
    """poll_eval's arguments."""

    expr: str = param("expr", "string", "Expression or function source.", required=True, max_length=100_000,
                      secrets="substitute")
    until: str | None = param("until", "string", "Predicate source, value => boolean; omitted: truthy.",
                              max_length=100_000, secrets="substitute")
    interval_ms: int = param("intervalMs", "integer", "From the start of one attempt to the next.",
                             default=100, minimum=10, maximum=10_000)
    timeout_ms: int = param("timeoutMs", "integer", "", default=5000, minimum=0, maximum=60_000)
    max_bytes: int = arg(_JSON_MAX)


def _poll_timeout(args: PollEvalArgs) -> float:
    """The session call outlives the poll by what its last attempt may take."""
    return args.timeout_ms / 1000 + 30


POLL_EVAL = session_tool(
    "poll_eval", PollEvalArgs,
    title="Poll expression", capability="eval", hints=ACTS,
    summary="Re-evaluate JavaScript until its value is truthy or the until predicate holds.",
    description="Evaluate JavaScript (an expression or a function source, as eval_js) every intervalMs until its "
        "value is truthy, or until the predicate until (a function source: value => boolean) holds; returns the "
        "value, the attempts and the time taken, or timeout. `until` is called with the value; the poll ends when "
        "it returns true (default: the value is truthy). `intervalMs` runs from the start of one attempt to the "
        "next; `timeoutMs` is how long to poll.",
    call_timeout=_poll_timeout,
)
