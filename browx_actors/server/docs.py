"""Render docs/tools.md from the tool declarations and the error table, so the
reference cannot drift from either.

``python -m browx_actors.server.docs > docs/tools.md``; a test checks the file is current.
"""

from __future__ import annotations

import sys

from ..errors import CORE_CODES, WIRE_CODES
from ..sessions.native.refusals import refusal_for
from ..tools import AFTER, AFTER_TOOLS, Param, Tool
from .catalog import all_tools

HEADER = """# Tools

Generated from the tool declarations by `python -m browx_actors.server.docs`; do not
edit by hand. Every result is one JSON envelope: `{"ok": true, ...}` or
`{"ok": false, "code": "...", "error": "...", ...}`. Over MCP it is the first text
content and `structuredContent`, with `isError` set when `ok` is false; screenshots
also ride as image content.

Every tool that names a `session` defaults it to `"default"`, which opens by itself on
first use. Arguments are checked before anything runs (no browser is started, no
session opened, for a call that is refused): an unknown or mistyped argument, or one
that breaks a tool's rules, answers `bad-arg` with `field` naming it. Session tools run
inside their session, ordered with its other calls; their engines are listed.

## Action results

`click`, `hover`, `fill`, `press`, `select` and `scroll` answer in one shape:
`ok`, `action`, `target` (the element's ref, role and name), `navigation`
(`changed`, `from`, `to`), `structure` (`appeared` and `removed` nodes with refs, or
null after a navigation), `console` (errors logged meanwhile), `element` (the target's
state after), `opened` (tabs the action opened, `[{id, url}]`; tools stay on the current
tab until `select_tab`), `settled` (`by`: `task-turn`, `network-idle+task-turn` when the
action started requests on its own tab (a tab it opened loads on its own),
`domcontentloaded` after a navigation, or `tab-closed` when the action closed its own
tab; `input`: `cdp` when the session sent the input itself, `playwright` when
Playwright acted; and timings) and `warnings`. A selector that matches several
elements acts on the first and warns.

`click`, `hover` and `fill` check their element first, as Playwright's actionability
checks do: visible, enabled (click, fill), not moved by a running animation or
transition, in view (scrolled to the centre when it is not) and on top at its point
(click, hover); an `<input>` of a text type, a `<textarea>` or a contenteditable element
that is not read-only (fill). A ready element gets trusted input at once: the mouse
events of the click at the centre of its first visible box, or the field focused, its
content selected and the value inserted (an empty value presses Delete). Otherwise
Playwright acts, waiting up to 10 s for the element to become ready, and its error names
what it waited for. A link that starts a navigation answers once the new document has
reached `domcontentloaded`, or once its request has ended without one (a 204, a
download).
## Visual tree results

The `ui.*` tools answer the compact v2 visual-tree contract. `ui.get_visual_tree`'s
envelope is the payload itself beside `ok`: `format` (`ansight.dom.visual-tree.compact.v2`
for a page), `platform`, `source`, `snapshotId`, `revision` (per session and source,
increasing), `nodeIdentity`, `capturedAtUtc`, `types` (read a node's type as
`types[typeId]`) and `root`. `ui.inspect_node` answers the same header with `node` and
`ancestors` (root first); `ui.query_nodes` and `ui.wait` with `count`, `truncated` and
`matches`, each `{reference: {source, snapshotId, revision, nodeId}, node}`. Pass a
reference to `ui.inspect_node` or `ui.perform_action`; once a newer capture of the source
exists it answers `stale_node_reference` with `refreshWith: "ui.query_nodes"` (so does a
page node that left the page, or a page that loaded another document). Colours are
`#AARRGGBB`; `label`, `visual.text` and `visual.value` keep at most 256 characters
(`labelClipped`, ... when cut); a password's value is never captured. `maxDepth`,
`maxNodes` and `rootNodeId` truncate: children beyond `maxDepth` are placeholders
`{id, typeId, truncated: true, childCount}`, and `childCount` always counts every child.
No payload nests more than 64 levels below its root (the MCP SDK's JSON parser refuses
documents nested 200 deep): read deeper with `rootNodeId`. A page's frames (same-origin
and out-of-process) hang under their `<iframe>` nodes: a frame's node ids carry its id
from `frames_list` (`f2n5`), its bounds are in the tab's viewport, and a frame that could
not be read counts as a child left out of its `<iframe>`, with a warning naming it.
`ui.perform_action` on a page
answers as `click` (tap, toggle), `fill` (setValue; `select` for a `<select>`) or the
shared action result (focus, unfocus, typeText) does, with `action`, `performedWith`
and the `reference`.
"""


def _param_row(p: Param) -> str:
    kind = p.type if p.items is None else f"{p.type} of {p.items}"
    if p.properties:
        kind += " {" + ", ".join(p.properties) + "}"
    notes = []
    if p.required:
        notes.append("required")
    if p.default is not None:
        notes.append(f"default `{p.default!r}`".replace("'", '"'))
    if p.enum:
        notes.append("one of " + ", ".join(f"`{v}`" for v in p.enum))
    if p.item_enum:
        notes.append("items one of " + ", ".join(f"`{v}`" for v in p.item_enum))
    if p.min_items is not None:
        notes.append(f"at least {p.min_items:,} item" + ("s" if p.min_items != 1 else ""))
    if p.max_items is not None:
        notes.append(f"at most {p.max_items:,} items")
    if p.pattern is not None:
        notes.append(f"matches `{p.pattern}`")
    if p.secrets == "mask":
        notes.append("registered secrets are masked in it")
    if p.nullable:
        notes.append("`null` clears it")
    if p.max_length is not None:
        notes.append(f"at most {p.max_length:,} characters")
    if p.minimum is not None or p.maximum is not None:
        notes.append(f"range {p.minimum:g}..{p.maximum:g}" if p.minimum is not None and p.maximum is not None
                     else f"min {p.minimum:g}" if p.minimum is not None else f"max {p.maximum:g}")
    return f"| `{p.name}` | {kind} | {p.description} {'; '.join(notes)} |"


def _after() -> list[str]:
    """``after``, once: every tool takes it (each input schema lists it too)."""
    keys = ", ".join(f"`{key}` ({f'`{tool}`'})" for key, tool in AFTER_TOOLS.items())
    return [
        "\n## `after`\n",
        f"Every tool takes `after` beside the arguments listed for it. {AFTER.description}\n",
        f"Its keys, and the tool each capture runs as: {keys}. The capture's arguments are checked against that "
        "tool's own arguments and rules, and its capability against both gates, before the call runs (a bad one is "
        "`bad-arg` with `field` such as `after.visualTree.maxDepth`, and nothing runs). A call that was refused "
        "captures nothing. The captures run in the call's session once the call has run, whether it succeeded or "
        "failed, and never open a session: with none open, each says `unknown-session`. Images of a screenshot "
        "capture ride after the call's own.",
    ]


def _errors() -> list[str]:
    rows = ["\n## Error codes\n",
            "Every failed call's `code` is one of these (`browx_actors/errors.py`). The diagnostics recorder "
            "counts each under the failure kind shown.\n",
            "| code | meaning | failure kind |", "| --- | --- | --- |"]
    rows += [f"| `{c.name}` | {c.meaning} | {c.kind} |" for c in CORE_CODES.values()]
    rows += ["\nThe live-view lines on the operator socket (never tool results) carry their own codes and "
             "stop reasons:\n", "| code | meaning |", "| --- | --- |"]
    rows += [f"| `{name}` | {meaning} |" for name, meaning in WIRE_CODES.items()]
    return rows


def _tool(tool: Tool) -> list[str]:
    engines = "" if tool.scope == "runtime" else f" · engines: {', '.join(f'`{e}`' for e in tool.engines)}"
    parts = [f"\n## `{tool.name}`\n\ncapability: `{tool.capability}`{engines}\n\n{tool.description}\n"]
    if tool.params:
        parts.append("| argument | type | notes |\n| --- | --- | --- |")
        parts.extend(_param_row(p) for p in tool.params)
    else:
        parts.append("No arguments.")
    if tool.rules:
        parts.append("\nRules: " + "; ".join(rule.describe() for rule in tool.rules) + ".")
    return parts


NATIVE = """
## Native engines

`android-app` (an Android device or emulator over adb), `ios-app` (an iOS Simulator
through WebDriverAgent and simctl) and `chrome-android` (Chrome on the Android device,
driven by the chromium engine's handlers on the session's own tab) open behind the
`native-device` capability; the device comes from the environment (README). On
`android-app` and `ios-app` every action reads a fresh hierarchy, resolves its target in
that read and acts at the point it gave: a ref on an element with a test id (Android's
resource-id, iOS's accessibilityIdentifier) survives a layout change that moves it, a
positional ref of a moved element answers `stale-element`, and a ref or selector that
matches several elements acts on none (`ambiguous-target`, with the count). Selectors:
`~id`, `testID=`/`id=`, `[testID="..."]`/`[identifier="..."]`/`[accessibilityIdentifier="..."]`,
`label=`, `text=`, `role=button[name="..."]`, a ref, or a bare string (test id, then
label, then text; `matchedBy` says which). Coordinates are the platform's input space:
device pixels on Android, points on iOS. Registered secrets do not materialise: `fill`
types a `<NAME>` alias literally and says so in its warnings.

Screenshots: `android-app` captures PNG off screencap (JPEG refuses, as the spec has
it); `ios-app` goes past the spec's refusal of element-scoped and JPEG captures, whose
reason (no PNG decoder) is gone here: Pillow crops the capture to the bounds just read
(points times the screen scale) and encodes JPEG. A full-page capture refuses on both.

Gestures: `gesture_swipe` is `input swipe` / WebDriverAgent's drag between points read
freshly; `touch_*` drive one raw finger through `input motionevent` (Android 11 and up; a
second finger refuses); `gesture_pinch` is WebDriverAgent's pinch about the app's
centre on `ios-app` (centred elsewhere, it refuses). `name_ref` anchors a name on the
element's test id when no other element shares it (it then survives layout changes),
else on its index path, with a warning. `find_feedback` lists the dialogs, snackbars and
field errors in the hierarchy, `new` against the screen the last action acted on. A live
view (not a tool) of an `android-app` session streams screencap frames re-encoded as
JPEG; `ios-app` answers `view-unsupported`.

What each session tool does on the two app engines (a refusal is `not-supported` naming
what the platform lacks, unless it says otherwise):
"""


def _native() -> list[str]:
    rows = [NATIVE, "| tool | android-app | ios-app |", "| --- | --- | --- |"]
    for tool in all_tools():
        if tool.scope != "session":
            continue
        cells = []
        for engine in ("android-app", "ios-app"):
            if engine in tool.engines:
                cells.append("runs")
            else:
                reason = refusal_for(engine, tool.name)
                cells.append("refuses: " + reason.split(": ", 1)[1] if reason else "refuses")
        if tool.name == "gesture_pinch" and "android-app" in tool.engines:
            cells[0] = "refuses: `native-pinch-needs-multitouch-driver`"
        rows.append(f"| `{tool.name}` | {cells[0]} | {cells[1]} |".replace("<", "&lt;"))
    return rows


def render() -> str:
    parts = [HEADER, *_after(), *_native(), *_errors()]
    for tool in all_tools():
        parts.extend(_tool(tool))
    return "\n".join(parts) + "\n"


if __name__ == "__main__":
    sys.stdout.write(render())
