"""The tasks of ``benchmarks/realweb.py``: what an agent does on issue 28's real-library
test pages, scripted once per server the way an agent uses that server's tools.

Each script reads a snapshot, finds the ref of a ``role "name"`` in its text and acts by
ref, as a model would; it snapshots again where the server's last result does not show
what it needs next (Playwright MCP 0.0.86 writes the snapshot after an action to a file,
so its agent reads the page with ``browser_snapshot``; this server's action results list
what appeared). A script raises :class:`Failed` when the page does not offer what the
next step needs, which fails the task. The success check (``Task.check``, a JavaScript
expression that must be ``true``) is the benchmark's, run through each server's own
evaluate tool after the script and outside its counts.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Awaitable, Callable
from typing import Any

import attrs
import trio
from mcp import types
from mcp.client import Client

CODE = "function add(a, b) {\n  return a + b;\n}"
EMAIL = "ann@example.com"
#: A call of ours longer than this waited out a timeout rather than acting.
SLOW_CALL_S = 5.0


class Failed(Exception):
    """A step could not be taken, or a tool answered with an error: the task failed."""


def _text(result: types.CallToolResult) -> str:
    return "".join(block.text for block in result.content if isinstance(block, types.TextContent))


@attrs.define
class Driver:
    """One server's client, counting what each call costs the agent: its result text in
    characters, and its wall time."""

    client: Client
    ours: bool
    calls: list[tuple[str, int, float]] = attrs.Factory(list)
    last: str = ""

    async def call(self, tool: str, args: dict[str, Any]) -> str:
        start = time.perf_counter()
        result = await self.client.call_tool(tool, args)
        took = time.perf_counter() - start
        text = _text(result)
        self.calls.append((tool, len(text), took))
        if result.is_error or text.startswith('{"ok":false'):
            raise Failed(f"{tool} {json.dumps(args)[:300]} -> {text[:600]}")
        self.last = text
        return text

    async def snapshot(self) -> str:
        if self.ours:
            return json.loads(await self.call("snapshot", {}))["snapshot"]
        return await self.call("browser_snapshot", {})

    async def snapshot_until(self, needle: str, tries: int = 40) -> str:
        """Snapshot again until ``needle`` is in it, as an agent waits for a page that is
        still loading its library (each try is a call)."""
        for _ in range(tries):
            page = await self.snapshot()
            if needle in page:
                return page
            await trio.sleep(0.25)
        raise Failed(f"no {needle} after {tries} snapshots:\n{page[:1500]}")

    async def navigate(self, url: str) -> None:
        await self.call("navigate" if self.ours else "browser_navigate", {"url": url})

    async def click(self, ref: str, what: str) -> str:
        if self.ours:
            return await self.call("click", {"ref": ref})
        return await self.call("browser_click", {"element": what, "target": ref})

    async def evaluate(self, expr: str) -> Any:
        """The value of a JavaScript expression, through the server's own tool."""
        if self.ours:
            return json.loads(await self.call("eval_js", {"expr": expr}))["value"]
        text = await self.call("browser_evaluate", {"function": f"() => ({expr})"})
        found = re.search(r"### Result\n(.*?)\n(?:###|$)", text, re.S)
        if found is None:
            raise Failed(f"no result in {text[:600]}")
        return json.loads(found.group(1))


def find_ref(text: str, role: str, name: str, required: bool = True, last: bool = False) -> str:
    """The ref of ``role "name"`` in a server's text: a snapshot line (both servers print
    ``role "name" ... [ref=eN]``), a node of this server's JSON (``"ref":"eN",
    "role":...,"name":...``), or else the line whose text is ``name`` (Playwright MCP
    lists a hidden input without a ref and its label as ``generic [ref=eN]: name``,
    which is what an agent then clicks). ``last``: the last match, not the first."""
    plain = text.replace('\\"', '"')
    quoted = re.escape(name)
    for pattern in (rf'{role} "{quoted}"[^\n]*?\[ref=([^\]]+)\]',
                    rf'"ref":\s*"([^"]+)",\s*"role":\s*"{role}",\s*"name":\s*"{quoted}"',
                    rf'\[ref=([^\]]+)\][^\n]*?: {quoted}$'):
        found = re.findall(pattern, plain, re.M)
        if found:
            return found[-1] if last else found[0]
    if required:
        raise Failed(f'no {role} "{name}" with a ref in:\n{text[:1500]}')
    return ""


Script = Callable[[Driver, str], Awaitable[None]]


@attrs.define(frozen=True)
class Task:
    name: str
    check: str
    ours: Script
    playwright: Script
    #: What the page holds, to say in a failed check's report.
    detail: str = ""


# -- label controls: the input is hidden, a person clicks its label ----------------------


def _ticks(page: str, controls: tuple[tuple[str, str], ...]) -> tuple[Script, Script]:
    async def script(d: Driver, base: str) -> None:
        await d.navigate(f"{base}/{page}")
        snap = await d.snapshot()
        for role, name in controls:
            try:
                await d.click(find_ref(snap, role, name), name)
            except Failed as failed:
                # Playwright MCP waits out its 5 s for an input its label covers, and says
                # so; an agent then clicks the label. Ours gets no second try.
                if d.ours or "intercepts pointer events" not in str(failed):
                    raise
                snap = await d.snapshot()
                await d.click(find_ref(snap, "generic", name, last=True), name)

    return script, script


_btn_check = _ticks("label_controls.html", (("radio", "Large"), ("checkbox", "Bold")))
_hidden = _ticks("label_controls.html", (("checkbox", "Newsletter"), ("checkbox", "Accept terms"),
                                         ("checkbox", "Dark mode")))


# -- Bootstrap: a modal that fades in, tabs whose panes fade -------------------------------


async def _modal_ours(d: Driver, base: str) -> None:
    await d.navigate(f"{base}/bootstrap_fades.html")
    opened = await d.click(find_ref(await d.snapshot(), "button", "Invite member"), "Invite member")
    await d.call("fill", {"ref": find_ref(opened, "textbox", "Email"), "value": EMAIL})
    await d.click(find_ref(opened, "button", "Send invite"), "Send invite")


async def _modal_playwright(d: Driver, base: str) -> None:
    await d.navigate(f"{base}/bootstrap_fades.html")
    await d.click(find_ref(await d.snapshot(), "button", "Invite member"), "Invite member")
    snap = await d.snapshot()
    await d.call("browser_type", {"element": "Email", "target": find_ref(snap, "textbox", "Email"), "text": EMAIL})
    await d.click(find_ref(snap, "button", "Send invite"), "Send invite")


async def _tab_ours(d: Driver, base: str) -> None:
    await d.navigate(f"{base}/bootstrap_fades.html")
    shown = await d.click(find_ref(await d.snapshot(), "tab", "Billing"), "Billing")
    find_ref(shown, "button", "Add card")  # the new pane, read from the click's result


async def _tab_playwright(d: Driver, base: str) -> None:
    await d.navigate(f"{base}/bootstrap_fades.html")
    await d.click(find_ref(await d.snapshot(), "tab", "Billing"), "Billing")
    find_ref(await d.snapshot(), "button", "Add card")


# -- Monaco: a multi-line function, read back ---------------------------------------------


async def _monaco_ours(d: Driver, base: str) -> None:
    await d.navigate(f"{base}/real_monaco.html")
    snap = await d.snapshot_until('textbox "Editor content"')
    await d.call("fill", {"ref": find_ref(snap, "textbox", "Editor content"), "value": CODE})
    await d.evaluate("editor.getValue()")


def _code_ref(snap: str) -> str:
    found = re.search(r"- code \[ref=([^\]]+)\]", snap)
    if found is None:
        raise Failed(f"no code region with a ref in:\n{snap[:1500]}")
    return found.group(1)


async def _monaco_playwright(d: Driver, base: str) -> None:
    await d.navigate(f"{base}/real_monaco.html")
    # Its textbox is listed without a ref: the agent clicks the code region and types
    # there (fill refuses a <div>, so keystrokes: ``slowly``).
    snap = await d.snapshot_until('textbox "Editor content"')
    await d.click(_code_ref(snap), "editor")
    code = _code_ref(await d.snapshot())
    await d.call("browser_type", {"element": "editor", "target": code, "text": CODE, "slowly": True})
    await d.evaluate("editor.getValue()")


# -- Tom Select: two people into a multi-select --------------------------------------------


async def _tom_ours(d: Driver, base: str) -> None:
    await d.navigate(f"{base}/real_selects.html")
    members = find_ref(await d.snapshot_until('combobox "Members"'), "combobox", "Members")
    for person in ("Bob Stone", "Dee Park"):
        await d.call("choose_option", {"ref": members, "option": person})


async def _tom_playwright(d: Driver, base: str) -> None:
    await d.navigate(f"{base}/real_selects.html")
    await d.click(find_ref(await d.snapshot_until('combobox "Members"'), "combobox", "Members"), "Members")
    for person in ("Bob Stone", "Dee Park"):
        # The last: the first is the hidden <select>'s, listed too (its click times out).
        await d.click(find_ref(await d.snapshot(), "option", person, last=True), person)


# -- flatpickr: a day of the inline calendar -----------------------------------------------


async def _date(d: Driver, base: str) -> None:
    await d.navigate(f"{base}/real_datepicker.html")
    snap = await d.snapshot()
    day = find_ref(snap, r"\w+", "December 24, 2026")
    await d.click(day, "December 24, 2026")


# -- @tanstack/virtual-core: a row far down a table that draws only what is in view --------


async def _virtual_ours(d: Driver, base: str) -> None:
    await d.navigate(f"{base}/real_virtual.html")
    grid = find_ref(await d.snapshot_until('grid "Orders"'), "grid", "Orders")
    text = await d.call("scroll", {"ref": grid, "deltaY": 3600})
    if not find_ref(text, "gridcell", "Order 121", required=False):
        text = await d.snapshot()
    find_ref(text, "gridcell", "Order 121")


async def _virtual_playwright(d: Driver, base: str) -> None:
    # Playwright MCP has no scroll tool by default: the agent scrolls the box by script.
    await d.navigate(f"{base}/real_virtual.html")
    grid = find_ref(await d.snapshot_until('grid "Orders"'), "grid", "Orders")
    await d.call("browser_evaluate", {"element": "Orders grid", "target": grid,
                                      "function": "(el) => { el.scrollTop += 3600; }"})
    find_ref(await d.snapshot(), "gridcell", "Order 121")


def _by_id(ids: tuple[str, ...]) -> str:
    return " && ".join(f"document.getElementById('{i}').checked" for i in ids)


_MEMBERS = "[...document.getElementById('members').selectedOptions].map(o => o.value)"

TASKS = (
    Task("Bootstrap .btn-check: tick Large and Bold by their labels", _by_id(("size-l", "bold")), *_btn_check),
    Task("hidden inputs (visually-hidden, opacity 0, display none): tick three",
         _by_id(("news", "terms", "dark")), *_hidden),
    Task("Bootstrap modal: open, fill Email, send",
         f"document.getElementById('sent').textContent === '{EMAIL}' && "
         "getComputedStyle(document.getElementById('invite-modal')).display === 'none'",
         _modal_ours, _modal_playwright),
    Task("Bootstrap tab: switch to Billing, read its pane",
         "document.getElementById('billing').classList.contains('show')", _tab_ours, _tab_playwright),
    Task("Monaco: fill a 3-line function, read it back", f"editor.getValue() === {json.dumps(CODE)}",
         _monaco_ours, _monaco_playwright, detail="editor.getValue()"),
    Task("Tom Select: add Bob Stone and Dee Park", f"{_MEMBERS}.join() === 'bob,dee'", _tom_ours, _tom_playwright,
         detail=_MEMBERS),
    Task("flatpickr: pick December 24, 2026", "document.getElementById('picked').textContent === '2026-12-24'",
         _date, _date),
    Task("virtual table: scroll to Order 121, read it",
         "document.querySelector('#scroller [aria-rowindex=\"121\"]') !== null", _virtual_ours, _virtual_playwright),
)
