"""Every error code the server answers with, in one table, and :class:`ToolError`.

A failed tool call answers ``{"ok": false, "code": ..., "error": ..., ...}``. The
``code`` is always one of :data:`CODES` below; each entry says in one line what it means
(the error table of ``docs/tools.md`` is generated from it) and which of the five
diagnostics failure kinds it counts as (the recorder folds codes through it).
Constructing a :class:`ToolError` with a code that is not in the table raises
:class:`UnknownErrorCode`, so a new code cannot slip out unlisted and be counted as
``internal`` by accident: it has to be added here, with its meaning and its kind.
Plugins (canvas adapters) declare their own codes, which :func:`register_codes` adds
when the plugin loads.

Near-synonyms are merged: a missing element, tab, device or supervisor child is
``target-not-found`` (its details say what was looked for); a part of the runtime that
cannot be reached (the browser, an engine's toolchain, a runtime child) is
``unavailable`` (``component`` names it). A code another contract names keeps its
spelling there: the visual-tree contract's ``stale_node_reference``, underscores and all.

The live-view wire has its own small vocabulary (error lines and stop reasons on the
operator socket, never tool results); it is listed here too, in :data:`WIRE_CODES`,
so that every code a user can meet is in one place.

This is a leaf module: it imports nothing from the package.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

import attrs

__all__ = [
    "CODES",
    "CORE_CODES",
    "FAILURE_KINDS",
    "WIRE_CODES",
    "Code",
    "ToolError",
    "UnknownErrorCode",
    "failure_kind",
    "register_codes",
]

#: The diagnostics failure kinds, in the order the report lists them.
FAILURE_KINDS = ("capability-denied", "timeout", "target-not-found", "bad-arg", "internal")

# Shorter names for the table below.
_DENIED, _TIMEOUT, _MISSING, _BAD, _INTERNAL = FAILURE_KINDS


@attrs.frozen
class Code:
    """One error code: its name, what it means to a caller, its failure kind."""

    name: str
    meaning: str
    kind: str = attrs.field(validator=attrs.validators.in_(FAILURE_KINDS))


def _table(*rows: tuple[str, str, str]) -> dict[str, Code]:
    table: dict[str, Code] = {}
    for name, kind, meaning in rows:
        if name in table:
            raise ValueError(f"error code {name!r} is listed twice")
        table[name] = Code(name, meaning, kind)
    return table


#: Every code a tool result can carry, grouped by where it comes from.
CODES: dict[str, Code] = _table(
    # -- the dispatch path ----------------------------------------------------------
    ("bad-arg", _BAD, "an argument is missing, unknown, of the wrong type, out of range, or breaks a rule "
     "between arguments; `field` names it"),
    ("capability-denied", _DENIED, "the tool's capability (or one its arguments need) is off on the server "
     "or the client; `capability` names it"),
    ("unknown-tool", _BAD, "no tool by that name"),
    ("internal", _INTERNAL, "a bug in the server; the call failed, the server keeps running"),
    ("timeout", _TIMEOUT, "the wait or action did not finish in time"),
    # -- sessions and the runtime ---------------------------------------------------
    ("unknown-session", _MISSING, "no open session by that id (only `default` opens by itself)"),
    ("session-exists", _BAD, "`open_session` for an id that is already open"),
    ("unknown-engine", _BAD, "`open_session` with an engine that does not exist"),
    ("origin-blocked", _DENIED, "the operator's origin policy keeps the URL's origin out of reach "
     "(--allowed-origins / --blocked-origins); `origin` and `rule` name it"),
    ("policy-locked", _DENIED, "the operator's policy file sets this policy, and no tool call can change it; "
     "`policy` names it"),
    ("confirmation-denied", _DENIED, "a confirm rule of the policy routed the call to a person, who said no (or "
     "aborted); nothing ran. `rule` names the rule"),
    ("confirmation-timeout", _TIMEOUT, "a confirm rule routed the call to a person, who did not answer in time; "
     "nothing ran. `rule` names the rule"),
    ("engine-unavailable", _MISSING, "the engine exists but cannot run here: its browser or driver is not installed "
     "or not on this platform; the message names what is missing and `engine` names the engine"),
    ("unavailable", _INTERNAL, "a part the call needs cannot be reached or started (`component` names it: "
     "the browser, an engine, a runtime child); the message says why"),
    ("start-failed", _INTERNAL, "the session could not start; the message says why"),
    ("browser-crashed", _INTERNAL, "the session's browser died; the message says how. The id is free again "
     "afterwards"),
    ("session-crashed", _INTERNAL, "the session's actor failed while the call waited"),
    ("session-closed", _INTERNAL, "the session was closed while the call waited"),
    ("already-started", _BAD, "a supervisor was asked to start a child whose id is taken"),
    ("not-supported", _BAD, "the session's engine has no primitive for this tool; the message names what "
     "is missing and `engine` names the engine"),
    # -- pages, elements and actions ------------------------------------------------
    ("target-not-found", _MISSING, "nothing matches what was asked for: an element, a tab, a device; the "
     "details name it"),
    ("stale-element", _MISSING, "the ref no longer points at a live element: take a new snapshot"),
    ("unknown-ref", _MISSING, "the ref was never issued on this page: take a snapshot first (refs come from "
     "snapshot, find and action results)"),
    ("not-visible", _MISSING, "the element has no visible box, or no action can reach it (no area, clipped "
     "away); `reason` says which"),
    ("dialog-open", _BAD, "a JavaScript dialog (alert, confirm, prompt, beforeunload) is open on the tab and "
     "blocks the page: answer it with `handle_dialog {accept, promptText?}`; `dialog` describes it"),
    ("no-dialog", _MISSING, "`handle_dialog` with no dialog open on the tab"),
    ("page-error", _INTERNAL, "the page threw or went away during a read"),
    ("action-failed", _INTERNAL, "the action was refused by the page or the browser (not visible, not "
     "editable, covered...); the message says why"),
    ("navigation-failed", _INTERNAL, "the URL could not be loaded"),
    ("tab-closed", _MISSING, "the current tab closed before or during the call; `list_tabs` shows what is "
     "open"),
    ("tab-crashed", _MISSING, "the current tab's renderer crashed (`list_tabs` marks it `crashed`); `navigate` "
     "loads a fresh page in the same tab, `close_tab` discards it"),
    ("verification-failed", _INTERNAL, "a `verify_*` check disagreed; `expected` and `actual` say how"),
    ("eval-error", _INTERNAL, "the JavaScript threw; the message is the page's error"),
    ("too-large", _BAD, "a value exceeds its stated limit"),
    # -- what the page did: console, network, routes, files -------------------------
    ("recording-off", _BAD, "`network_read` on a server started with BROWX_PAGE_RECORDING=off, which keeps no "
     "request records (console errors are still kept)"),
    # -- the human helper -----------------------------------------------------------
    ("no-human-channel", _INTERNAL, "`await_human`, a confirm rule or an ask-human policy on a session with no "
     "isolated world and no operator channel; a confirmed call does not run (it fails closed)"),
    ("operator-aborted", _INTERNAL, "the operator daemon aborted the prompt"),
    ("operator-channel-down", _INTERNAL, "the operator socket dropped while the prompt was out"),
    ("human-aborted", _INTERNAL, "the human aborted the prompt from DevTools (`__browx.abort`)"),
    ("human-busy", _BAD, "a prompt is already waiting on this session"),
    ("cancelled", _INTERNAL, "the prompt was withdrawn because the asking session went away"),
    ("not-available", _INTERNAL, "a documented feature this build does not offer yet (`pick_element`)"),
    # -- canvas ---------------------------------------------------------------------
    ("too-many-steps", _BAD, "`gesture_chain` with more than 200 steps"),
    ("no-transform", _MISSING, "no world/screen transform could be discovered: pass `transform`"),
    ("no-adapter", _MISSING, "no canvas adapter is registered under that namespace"),
    ("adapter-unavailable", _INTERNAL, "the canvas adapter is installed but failed to load"),
    ("unknown-op", _BAD, "the canvas adapter has no operation by that name"),
    ("adapter-failed", _INTERNAL, "the canvas adapter's operation answered something that is not an object"),
    ("taint-or-encode", _INTERNAL, "`toDataURL` refused: the canvas is tainted by cross-origin content"),
    ("taint-or-read", _INTERNAL, "`getImageData` refused: the canvas is tainted by cross-origin content"),
    ("not-a-canvas", _BAD, "the target of a canvas capture is not a `<canvas>`"),
    ("context-mismatch", _BAD, "`webgl-framebuffer` asked of a canvas whose context is not WebGL"),
    ("empty-canvas", _BAD, "the canvas has no pixels (0 wide or high)"),
    ("capture-failed", _INTERNAL, "the canvas could not be read; the message is the page's error"),
    ("unknown-capture", _MISSING, "`canvas_diff` by a capture id this session never issued"),
    ("capture-evicted", _MISSING, "`canvas_diff` by a capture id that was evicted from the bounded cache"),
    ("size-mismatch", _BAD, "`canvas_diff` of two images of different sizes"),
    # -- native engines and devices ---------------------------------------------------
    ("ambiguous-target", _BAD, "a native ref or selector matches more than one element, so nothing was done; "
     "`count` says how many: narrow it (a testID is unique by design)"),
    ("native-hierarchy-not-idle", _TIMEOUT, "uiautomator dump could not get an idle window (an animation or an "
     "indeterminate spinner keeps it busy); wait for the screen to settle and retry"),
    ("native-pinch-needs-multitouch-driver", _BAD, "`gesture_pinch` on android-app: adb has no two-finger "
     "primitive, and real multi-touch needs a device-side UiAutomator2 server, which is not shipped"),
    ("device-ambiguous", _BAD, "several devices fit and none was named: set the engine's device variable "
     "(BROWX_ANDROID_APP_SERIAL, BROWX_IOS_DEVICE) to one of `candidates`"),
    ("device-leased", _BAD, "the device is leased by another session (`holder` names it): one UiAutomator or "
     "WebDriverAgent owner per device"),
    ("not-configured", _BAD, "the server's environment lacks a variable the engine needs (`variable` names it, "
     "e.g. BROWX_IOS_APP_ID); set it and restart the server"),
    ("physical-device", _BAD, "`device_shutdown` on a physical device: browx powers off emulators only, never "
     "the operator's phone"),
    ("install-failed", _INTERNAL, "`app_install` failed; the message is the platform tool's own reason"),
    ("adb-failed", _INTERNAL, "an adb command failed; the message is adb's own output and `exitCode` its status"),
    ("simctl-failed", _INTERNAL, "`xcrun simctl` failed or printed what it never prints; the message is simctl's "
     "own and `exitCode` its exit status"),
    ("wda-unreachable", _INTERNAL, "nothing answers at BROWX_IOS_WDA_URL: build and run WebDriverAgent for the "
     "simulator and point BROWX_IOS_WDA_URL at it"),
    ("wda-error", _INTERNAL, "WebDriverAgent refused the command, or answered something that is not its JSON; "
     "`wdaError` is WDA's own error name and the message is WDA's"),
    # -- the visual tree --------------------------------------------------------------
    ("stale_node_reference", _MISSING, "the node reference is from an older capture of this source; query again "
     "(`refreshWith` names the tool)"),
)

#: The server's own codes, as listed above: what the reference documents. Codes that
#: plugins register later are added to :data:`CODES` only.
CORE_CODES: Mapping[str, Code] = MappingProxyType(dict(CODES))

#: Codes of the operator socket's live-view lines (``{"type": "error", "code"}`` and the
#: ``reason`` of ``view.stopped``; ``docs/operator-channel.md``). Never in a tool result.
WIRE_CODES: dict[str, str] = {
    "view-disabled": "error: the live-view capability is off",
    "invalid-view": "error: a view.start field has the wrong type, or format is not jpeg",
    "unknown-session": "error: no open session by that name (a view never opens one)",
    "view-unsupported": "error: the session's engine has no frame source",
    "view-limit": "error: 4 streams are running already",
    "view-failed": "error: the stream could not start",
    "daemon": "stopped: the daemon sent view.stop",
    "session-closed": "stopped: the session closed (or its browser went away)",
    "channel-down": "stopped: the operator socket dropped",
    "channel-closed": "stopped: the operator channel was shut down",
    "stalled": "stopped: no frame was acked for 30 s",
    "page-closed": "stopped: the session's page closed and it has no other",
    "source-error": "stopped: the frame source failed",
}


def register_codes(*codes: Code) -> None:
    """Add the codes a plugin declares (a canvas adapter's own refusals, say).

    Registering a code the table already holds with the same meaning and kind is a
    no-op; with a different one it is refused, so a plugin cannot redefine a core code.
    """
    for code in codes:
        known = CODES.get(code.name)
        if known is not None and known != code:
            raise ValueError(f"error code {code.name!r} is already defined as {known.meaning!r} ({known.kind})")
        CODES[code.name] = code


class UnknownErrorCode(ValueError):
    """A ToolError was built with a code that :data:`CODES` does not list (a bug)."""


class ToolError(Exception):
    """An expected failure with a stable code, answered to the caller as a value.

    ``code`` is one of :data:`CODES`; ``details`` are extra envelope fields
    (``field``, ``capability``, ...).
    """

    # Any: details are JSON envelope fields (jsonsafe's JsonValue, which this leaf
    # module may not import: the two share the bottom layer and import nothing of each other).
    def __init__(self, code: str, message: str, **details: Any) -> None:
        if code not in CODES:
            raise UnknownErrorCode(f"error code {code!r} is not in browx_actors.errors.CODES")
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message
        self.details = details

    # Any: a JSON envelope (jsonsafe's JsonObject; see __init__).
    def to_envelope(self) -> dict[str, Any]:
        return {"ok": False, "code": self.code, "error": self.message, **self.details}


def failure_kind(code: object) -> str:
    """The diagnostics failure kind of an envelope's ``code`` (``internal`` when unknown)."""
    entry = CODES.get(code) if isinstance(code, str) else None
    return _INTERNAL if entry is None else entry.kind
