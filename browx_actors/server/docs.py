"""Render docs/tools.md from the tool declarations and the error table, and
docs/engines.md from the engines' tables, so the reference cannot drift from either.

``python -m browx_actors.server.docs`` writes both into ``docs/``; a test checks they are
current.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from ..errors import CODES, CORE_CODES, WIRE_CODES
from ..runtime.factory import UNAVAILABLE
from ..tools import AFTER, AFTER_TOOLS, AnyTool, Param, Refusal, Runs
from ..tools.table import Entry
from .catalog import Catalog, default_catalog

__all__ = ["ENGINE_ORDER", "render", "render_engines"]

#: The engines' columns, in the order an agent meets them.
ENGINE_ORDER = ("chromium", "firefox", "chrome-android", "android-app", "ios-app")

HEADER = """# Tools

Generated from the tool declarations by `python -m browx_actors.server.docs`; do not
edit by hand. Every result is one JSON envelope: `{"ok": true, ...}` or
`{"ok": false, "code": "...", "error": "...", ...}`. Over MCP it is the first text
content and `structuredContent`, with `isError` set when `ok` is false; screenshots
also ride as image content.

`tools/list` shows the tools the server's capabilities allow, each with its title, its
four MCP hints, its first line below and its arguments' names, types and choices; the
arguments many tools share (`session`, `ref`, `selector`, `coords`) and `after` are
described once, in the server's instructions. The limits, defaults and full contract
listed here are the server's to check: a value past one answers `bad-arg` naming it.

Every tool that names a `session` defaults it to `"default"`, which opens by itself on
first use. Arguments are checked before anything runs (no browser is started, no
session opened, for a call that is refused): an unknown or mistyped argument, or one
that breaks a tool's rules, answers `bad-arg` with `field` naming it. Session tools run
inside their session, ordered with its other calls; their engines are listed.

## Action results

`click`, `hover`, `fill`, `press`, `select`, `scroll` and every tool built on them (the
pointer, touch and form tools, `drag`, `ui.perform_action` on a page) answer in one shape,
each thing said once. A field left out says nothing happened there:

- `target`: the element acted on: `ref`, `role`, `name`, and any state that is not the
  usual one (`visible` and `enabled` appear only when false, `focused` only when true;
  `value`, `checked`, `expanded`, `selected`, `pressed`, ... as they were); `tag` only for
  a `generic` element, `text` only when it is not the name. Left out when the action
  aimed at a point with nothing there.
- `element`: what the action changed on the target, as its fields after (`{"value":
  "Ann"}`, `{"checked": true}`; a state it lost reads `null`). The focus the action itself
  gives its target is not listed. Left out when nothing changed.
- `navigation`: where the page went, `{"to": url}`, with `sameDocument: true` for a
  history or hash change that kept the document and `reloaded: true` for a reload. Left
  out when the page stayed where it was.
- `structure`: nodes that `appeared` and were `removed` (with refs), `truncated: true`
  when more changed than are listed. Left out when nothing changed, and after a
  navigation (read the new page with `snapshot`).
- `console`: errors the page logged meanwhile; `opened`: tabs the action opened,
  `[{id, url}]` (tools stay on the current tab until `select_tab`). Left out when empty.
- `dialog`: the JavaScript dialog that opened under the action, which blocks the page
  until `handle_dialog` answers.
- `settled`: `by` (`task-turn`; `network-idle+task-turn` when the action started requests
  on its own tab (a tab it opened loads on its own); `animation`, `timer` or `frame` when
  the page's own update was waited for, with `pageMs`; `domcontentloaded` after a
  navigation; `tab-closed` when the action closed its own tab; `dialog`), `ms` for the
  whole call, and `input` when it was not the server's own input alone (`playwright`;
  `fill_form`'s `cdp+playwright`, or `none` when no field needed any).
- `warnings`: only when there is one. A selector that matches several elements acts on
  the first and warns.

`navigate`, `go_back` and `go_forward` answer `url` (where the tab is now),
`sameDocument: true` when no load happened, the document's `status` (none for a
same-document navigation), its `title`, `console` errors when any and `settled` (`by`,
`ms`). Any result's `warnings` appears only when there is one.

A `verify_*` check that holds answers `ok` and its evidence only: `actual` when it is not
exactly the value expected (a text that contains it), `matches` for a page-wide
`verify_text`. One that does not hold fails with `verification-failed`, carrying `check`,
`expected`, `actual` (and `element` for `verify_visible`). `snapshot`, `find` and
`text_search` say `truncated: true` only when not everything is listed.

`click`, `hover` and `fill` check their element first, as Playwright's actionability
checks do: visible, enabled (click, fill), not moved by a running animation or
transition, in view (scrolled to the centre when it is not) and on top at its point
(click, hover); an `<input>` of a text type, a `<textarea>` or a contenteditable element
that is not read-only (fill). A ready element gets trusted input at once: the mouse
events of the click at the centre of its first visible box, or the field focused, its
content selected and the value inserted (an empty value presses Delete). An editor (a
code editor's hidden input or EditContext element, a contenteditable region) gets its
whole text selected with Control+A and the value as one paste, which it takes as it is
where typing would be re-indented; then what it shows is read back, and text it does not
show is `verification-failed` (`settled.input` is `paste`). Otherwise Playwright acts,
waiting up to 10 s for the element to become ready, and its error names what it waited
for. A link that starts a navigation answers once the new document has reached
`domcontentloaded`, or once its request has ended without one (a 204, a download). A
`scroll` answers once the scroll ended (a smooth one too) and the page's scroll handlers
ran in the next frame. `choose_option` says in `chosen.verifiedBy` how it saw the choice
take: `value` (the trigger shows it), `selected`, `chip` (a multi-select's chip beside
the trigger) or `select` (the `<select>` the widget stands for).
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
        notes.append(f"default `{json.dumps(p.default)}`")
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
        notes.append(f"range {_number(p.minimum)}..{_number(p.maximum)}" if p.minimum is not None
                     and p.maximum is not None else f"min {_number(p.minimum)}" if p.minimum is not None
                     else f"max {_number(p.maximum)}")
    text = " ".join(part for part in (p.description, "; ".join(notes)) if part)
    return f"| `{p.name}` | {kind} | {text} |"


def _number(value: float | None) -> str:
    """A limit as a reader reads it: 2147483647, not 2.14748e+09; 0.5 as 0.5."""
    assert value is not None
    return str(int(value)) if float(value).is_integer() else f"{value:g}"


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


def _runs_on(catalog: Catalog, tool: AnyTool) -> list[str]:
    return [engine for engine in _engines(catalog) if isinstance(catalog.engines[engine].entry(tool.name), Runs)]


def _engines(catalog: Catalog) -> list[str]:
    return sorted(catalog.engines, key=lambda e: ENGINE_ORDER.index(e) if e in ENGINE_ORDER else len(ENGINE_ORDER))


def _tool(catalog: Catalog, tool: AnyTool) -> list[str]:
    engines = "" if tool.scope == "runtime" else \
        f" · engines: {', '.join(f'`{e}`' for e in _runs_on(catalog, tool))}"
    named = (("read-only", tool.hints.read_only), ("destructive", tool.hints.destructive),
             ("idempotent", tool.hints.idempotent), ("open world", tool.hints.open_world))
    hints = ", ".join(name for name, on in named if on) or "none"
    # The summary is what tools/list shows; the description, when it says more.
    said = tool.description and tool.description.rstrip(".") not in tool.summary
    body = f"{tool.summary}\n\n{tool.description}" if said else tool.summary
    parts = [f"\n## `{tool.name}`: {tool.title}\n\ncapability: `{tool.capability}`{engines} · hints: {hints}\n\n"
             f"{body}\n"]
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

Screenshots: `android-app` captures PNG off screencap (JPEG refuses); `ios-app` captures
element-scoped and JPEG screenshots too: Pillow crops the capture to the bounds just read
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

What each session tool does on each engine, and why an engine refuses what it refuses,
is in [engines.md](engines.md).
"""


def render(catalog: Catalog | None = None) -> str:
    """docs/tools.md."""
    catalog = default_catalog() if catalog is None else catalog
    parts = [HEADER, *_after(), NATIVE, *_errors()]
    for tool in catalog:
        parts.extend(_tool(catalog, tool))
    return "\n".join(parts) + "\n"


ENGINES_HEADER = """# Engines

Generated from the engines' tables by `python -m browx_actors.server.docs`; do not edit by
hand. Every session tool is declared once (`browx_actors/tools/`); each engine's table
(`browx_actors/sessions/<engine>/table.py`) either runs it with a handler or refuses it,
naming the code an agent gets and what the engine lacks. The server does not start if
any engine's table leaves a session tool out. Runtime tools (`open_session`,
`tool.batch`, `device_list`, `await_human`...) run outside any session and are not
listed here.

| tool | {engines} |
| --- | {rules} |
"""


ENGINES_NOTES = """
## firefox

Stock Firefox (Debian's `firefox-esr`, or `BROWX_FIREFOX` / `--firefox-path`) over WebDriver
BiDi, on a raw client (`browx_actors/bidi/`); Playwright's Firefox needs Playwright's own
patched build, and Firefox has no CDP. One Firefox serves every firefox session, each in a
user context of its own (cookies and storage apart, as a Chromium browser context). The
page agent, the same script as chromium's, runs in a BiDi sandbox realm, so page scripts
can neither see nor alter it, and a snapshot reads the same on both engines. Input is
trusted (`input.performActions`) after the same actionability checks. `bidiEndpoint`
attaches a session to a Firefox someone else runs with `--remote-debugging-port`.
`await_human` answers `no-human-channel` on firefox sessions: its isolated world is made
over CDP.

## Engines that cannot run here

Probed on this kind of machine (Debian 12, no display): `open_session` refuses these with
`engine-unavailable` and what is missing.
"""


def _cell(line: Entry | None) -> str:
    if isinstance(line, Runs):
        return "runs"
    if isinstance(line, Refusal):
        return f"refuses `{line.code}`"
    return "missing"


def render_engines(catalog: Catalog | None = None) -> str:
    """docs/engines.md: tool x engine -> runs, or refuses with its code; then each refusal's reason."""
    catalog = default_catalog() if catalog is None else catalog
    engines = _engines(catalog)
    parts = [ENGINES_HEADER.format(engines=" | ".join(f"`{e}`" for e in engines),
                                   rules=" | ".join("---" for _ in engines)).rstrip("\n")]
    session_tools = [tool for tool in catalog if tool.scope == "session"]
    for tool in session_tools:
        cells = " | ".join(_cell(catalog.engines[e].entry(tool.name)) for e in engines)
        parts.append(f"| `{tool.name}` | {cells} |")
    for engine in engines:
        refusals = [line for tool in session_tools
                    if isinstance(line := catalog.engines[engine].entry(tool.name), Refusal)]
        if not refusals:
            continue
        parts.append(f"\n## What `{engine}` refuses, and why\n")
        for line in refusals:
            code = "" if line.code == "not-supported" else f" (`{line.code}`: {CODES[line.code].meaning})"
            parts.append(f"- `{line.tool.name}`{code}: {line.missing}".replace("<", "&lt;"))
    parts.append("\nA refusal answers `{ok: false, code, error, engine, tool}`, the error saying "
                 "`<tool> is not available on <engine>: <what it lacks>`.")
    parts.append(ENGINES_NOTES)
    for engine, missing in UNAVAILABLE.items():
        parts.append(f"- `{engine}`: {missing}.")
    return "\n".join(parts) + "\n"


def write(folder: Path) -> None:
    catalog = default_catalog()
    (folder / "tools.md").write_text(render(catalog))
    (folder / "engines.md").write_text(render_engines(catalog))


if __name__ == "__main__":
    write(Path(sys.argv[1]) if len(sys.argv) > 1 else Path("docs"))
