"""Text into an editor as one paste, and what the editor shows afterwards.

A code editor rewrites what is typed into it: each line typed after a ``{`` is indented
again, a ``}`` typed where the editor closed one already doubles it. Monaco does so for
text committed as an input method commits it (``Input.insertText``) too. A paste is
text the editor inserts as it is: so fill pastes into an editor, a ``paste`` event
with the text as its clipboard data on the focused element, and commits the text as an
input method does when no listener takes the paste (a region with no editor behind
it). Then it reads what the editor shows (the agent's ``fieldText``), and a text the
editor does not show is ``verification-failed``, never a quiet success.

:func:`holds` is the comparison, pure: the sent lines must show, in order and next to
each other, among the lines the editor draws (a gutter's line numbers may come before
them; blank lines aside, which rich-text editors draw between paragraphs).
"""

from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING

import attrs

from ....cdp import CdpError, CdpTimeout
from ....errors import ToolError
from ....jsonsafe import JsonObject
from ....tools.targets import Element
from ..agent.calls import AgentHost, agent_call
from .commands import Command, insert_text, key_press, select_all
from .send import ACTION_TIMEOUT_MS, send_input

if TYPE_CHECKING:
    from ..session import ChromiumSession

__all__ = ["Paste", "check_filled", "holds", "pasting", "send_paste", "shown_lines"]

#: Dispatches a cancelable ``paste`` carrying the text on the focused element (inside
#: open shadow roots and same-origin frames; a cross-origin frame's editor is typed
#: into); true when a listener took it (called preventDefault).
_PASTE = """(text) => {
  let el = document.activeElement;
  for (;;) {
    if (el && el.shadowRoot && el.shadowRoot.activeElement) el = el.shadowRoot.activeElement;
    else if (el && el.contentDocument && el.contentDocument.activeElement) el = el.contentDocument.activeElement;
    else break;
  }
  if (!el || el.contentWindow) return false;
  const data = new DataTransfer();
  data.setData('text/plain', text);
  const event = new ClipboardEvent('paste', {clipboardData: data, bubbles: true, cancelable: true,
                                             composed: true});
  return !el.dispatchEvent(event);
}"""


@attrs.frozen
class Paste:
    """Direct input that pastes: ``keys`` first (the editor's select-all), then ``text``
    pasted into the focus, then ``after`` (Enter, for a fill that submits)."""

    keys: list[Command]
    text: str
    after: list[Command]


async def _dispatch_paste(session: ChromiumSession, text: str) -> bool:
    """Whether the page took the paste."""
    try:
        reply = await session.cdp.send("Runtime.evaluate", {
            "expression": f"({_PASTE})({json.dumps(text)})", "returnByValue": True,
        }, timeout=ACTION_TIMEOUT_MS / 1000)
    except CdpTimeout as err:
        raise ToolError("timeout", f"the page did not take a paste in {ACTION_TIMEOUT_MS // 1000}s") from err
    except CdpError:
        return False  # typed instead
    return "exceptionDetails" not in reply and reply["result"].get("value") is True


async def send_paste(session: ChromiumSession, action: str, paste: Paste, *, target: Element | None = None) -> str:
    """Select, paste (or type what no listener took), then ``after``; the input used:
    ``paste``, or ``cdp`` when the text was typed."""
    await send_input(session, action, paste.keys, target=target)
    taken = bool(paste.text) and await _dispatch_paste(session, paste.text)
    if not taken:
        await send_input(session, action, insert_text(paste.text), target=target)
    if paste.after:
        await send_input(session, action, paste.after, target=target)
    return "paste" if taken else "cdp"


def pasting(text: str, submit: bool) -> Paste:
    """The paste a fill of ``text`` sends (Enter after it when it submits)."""
    return Paste(keys=select_all(), text=text, after=key_press("Enter") if submit else [])


# -- what the editor shows ---------------------------------------------------------------

_GUTTER = re.compile(r"^\s*\d+\s*$")


def shown_lines(text: str) -> list[str]:
    """The lines of a text as compared: no-break spaces (an editor's drawn indent) as
    spaces, trailing blanks and blank lines dropped."""
    lines = (line.replace("\u00a0", " ").rstrip() for line in text.replace("\r\n", "\n").split("\n"))
    return [line for line in lines if line.strip()]


def _same(want: str, have: str) -> bool:
    """One line as sent and as drawn; a tab may be drawn as spaces."""
    if "\t" not in want:
        return want == have
    return re.fullmatch(r"(?: +|\t)".join(re.escape(part) for part in want.split("\t")), have) is not None


def _contains(have: list[str], want: list[str]) -> bool:
    return any(all(_same(w, h) for w, h in zip(want, have[i:i + len(want)], strict=True))
               for i in range(len(have) - len(want) + 1))


def holds(value: str, shown: str) -> bool:
    """Whether an editor that shows ``shown`` holds ``value``: its lines in order, next
    to each other. A view that draws only the lines in view (a long document, the
    caret at its end) shows the value's last lines."""
    want, have = shown_lines(value), shown_lines(shown)
    text = [line for line in have if not _GUTTER.match(line)]
    if not want:
        return not text
    if _contains(have, want):
        return True
    return len(want) > len(text) >= 1 and _contains(have, want[-len(text):])


async def check_filled(session: AgentHost, described: JsonObject, value: str) -> None:
    """An editor's fill answers ok only for text the editor shows: what it shows is read
    back (the agent's ``fieldText``) and compared (:func:`holds`). A field gone with
    its document (a fill that submits and navigates) has nothing left to read."""
    try:
        shown = await agent_call(session, "fieldText", described["ref"])
    except ToolError as err:
        if err.code in ("stale-element", "unknown-ref", "page-error"):
            return
        raise
    if not isinstance(shown, dict) or shown["editor"] is None or holds(value, shown["text"]):
        return
    text = shown["text"].replace("\u00a0", " ")
    raise ToolError("verification-failed", f"filled the {described.get('role')} {described.get('name')!r}, but "
                    "the editor shows other text than it was given", expected=value,
                    actual=text if len(text) <= 300 else "\u2026" + text[-299:])
