"""Render docs/tools.md from the tool declarations, so the reference cannot drift.

``python -m browx_actors.server.docs > docs/tools.md``; a test checks the file is current.
"""

from __future__ import annotations

import sys

from .schema import Param
from .tools import all_tools

HEADER = """# Tools

Generated from the tool declarations by `python -m browx_actors.server.docs`; do not
edit by hand. Every result is one JSON envelope: `{"ok": true, ...}` or
`{"ok": false, "code": "...", "error": "...", ...}`. Over MCP it is the first text
content and `structuredContent`, with `isError` set when `ok` is false; screenshots
also ride as image content.

Every tool that names a `session` defaults it to `"default"`, which opens by itself on
first use. Arguments are checked before anything runs: an unknown or mistyped argument
answers `bad-arg` with `field` naming it.

## Error codes

| code | meaning |
| --- | --- |
| `bad-arg` | an argument is missing, unknown, of the wrong type or out of range; `field` names it |
| `capability-denied` | the tool's capability is off on the server or the client; `capability` names it |
| `unknown-tool` | no tool by that name |
| `unknown-session` | no open session by that id (only `default` opens by itself) |
| `session-exists` | `open_session` for an id that is already open |
| `unknown-engine` | `open_session` with an engine that does not exist |
| `engine-unavailable` | a native engine that this build does not include yet |
| `browser-crashed` | the session's Chromium died; the message says how. The id is free again afterwards |
| `browser-unavailable` | Chromium could not be started or reached |
| `start-failed` | the session could not start; the message says why |
| `session-crashed`, `session-closed` | the session's actor ended while the call waited |
| `page-error` | the page threw or went away during a read |
| `stale-element` | the ref no longer points at a live element: take a new snapshot |
| `target-not-found` | no element matches the selector |
| `action-failed` | Playwright refused the action (not visible, not editable, covered...) |
| `navigation-failed` | the URL could not be loaded |
| `tab-not-found` | `select_tab` / `close_tab` with an id that is not open; `tabs` lists the open ones |
| `tab-closed` | the current tab closed before the call could use it; `list_tabs` shows what is open |
| `timeout` | the wait or action did not finish in time |
| `verification-failed` | a `verify_*` check disagreed; `expected` and `actual` say how |
| `eval-error` | the JavaScript threw; the message is the page's error |
| `too-large` | a value exceeds its stated limit |
| `not-visible` | the element has no visible box to capture |
| `no-human-channel` | `await_human` on a session with no isolated world and no operator channel |
| `operator-aborted`, `operator-channel-down` | the operator daemon aborted the prompt, or its socket dropped while the prompt was out |
| `human-busy` | a prompt is already waiting on this session |
| `not-available` | a documented feature this build does not offer yet (`pick_element`) |
| `too-many-steps`, `no-transform`, `no-adapter` | canvas refusals, as in the spec |
| `taint-or-encode`, `taint-or-read` | the canvas is tainted by a cross-origin image |
| `capture-evicted`, `unknown-capture`, `size-mismatch` | `canvas_diff` by id or of images of different sizes |
| `internal` | a bug in the server; the call failed, the server keeps running |

## Action results

`click`, `hover`, `fill`, `press`, `select` and `scroll` answer in one shape:
`ok`, `action`, `target` (the element's ref, role and name), `navigation`
(`changed`, `from`, `to`), `structure` (`appeared` and `removed` nodes with refs, or
null after a navigation), `console` (errors logged meanwhile), `element` (the target's
state after), `opened` (tabs the action opened, `[{id, url}]`; tools stay on the current
tab until `select_tab`), `settled` (`by`: `task-turn`, `network-idle+task-turn` when the
action started requests, `domcontentloaded` after a navigation, or `tab-closed` when the
action closed its own tab; `input`: `cdp` when the session sent the input itself,
`playwright` when Playwright acted; and timings) and `warnings`. A selector that matches
several elements acts on the first and warns.

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
    if p.max_length is not None:
        notes.append(f"at most {p.max_length:,} characters")
    if p.minimum is not None or p.maximum is not None:
        notes.append(f"range {p.minimum:g}..{p.maximum:g}" if p.minimum is not None and p.maximum is not None
                     else f"min {p.minimum:g}" if p.minimum is not None else f"max {p.maximum:g}")
    return f"| `{p.name}` | {kind} | {p.description} {'; '.join(notes)} |"


def render() -> str:
    parts = [HEADER]
    for tool in all_tools():
        parts.append(f"\n## `{tool.name}`\n\ncapability: `{tool.capability}`\n\n{tool.description}\n")
        if tool.params:
            parts.append("| argument | type | notes |\n| --- | --- | --- |")
            parts.extend(_param_row(p) for p in tool.params)
        else:
            parts.append("No arguments.")
    return "\n".join(parts) + "\n"


if __name__ == "__main__":
    sys.stdout.write(render())
