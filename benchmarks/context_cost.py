"""What an agent pays in context to load and to use the server, against Playwright MCP
and chrome-devtools-mcp (npm, pinned in ``peers/``) in the same run.

Both costs are what the agent's model reads:

* **Loading**: ``tools/list`` in bytes, as the MCP Inspector's CLI prints it
  (``--method tools/list --format json``), for this server at the default capabilities
  and with every capability on, for Playwright MCP and for chrome-devtools-mcp as
  shipped; and the ``instructions`` each server sends at ``initialize``.
* **Using**: the characters of text in every result of one scripted session, the same
  task on each server, by ref as an agent acts: open the bundled sign-up page, read it,
  fill the email and the password, choose a plan, tick the terms, submit, check the
  welcome. Twice: on the page as bundled (small) and with 200 links below the form.
  Each server is driven as its own tools say: this one takes ``open_session`` first and
  checks with ``verify_text``; Playwright MCP (0.0.86) writes the page's snapshot after
  ``browser_navigate`` to a file, so the agent reads it with ``browser_snapshot``, and
  checks with ``browser_wait_for`` on the text.

Characters are ``len`` of each ``TextContent`` in the result, the text a host hands the
model. (This server's results also carry the same envelope as ``structuredContent``;
hosts show the model one or the other.)

``--against DIR`` measures another checkout's server in the same run as well (``git
worktree add /tmp/before <commit>``), so a change is read as before and after.

Run: ``python -m benchmarks.context_cost [--against DIR]``.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
from importlib import resources
from pathlib import Path

import trio
from mcp import types
from mcp.client import Client
from mcp.client.stdio import StdioServerParameters

from browx_actors.cdp.launcher import find_chromium
from browx_actors.config import ALL_CAPABILITIES
from browx_actors.demo import serve_directory
from peers import NODE, inspector, peer_script

EMAIL = "lin@example.com"
#: Every capability, with what the server needs to start with each of them on.
ALL = ",".join(sorted(ALL_CAPABILITIES))
OPERATOR_ENV = {"BROWX_OPERATOR_SOCKET": "/nonexistent/browx-operator.sock", "BROWX_OPERATOR_TOKEN": "t" * 32}
LINKS = "".join(f'<li><a href="/item/{i}">Item number {i}</a></li>' for i in range(200))


def ours(workspace: Path, capabilities: str = "", env: dict[str, str] | None = None,
         tree: Path | None = None) -> tuple[list[str], dict[str, str]]:
    """This server's command line and environment (the Inspector takes no empty value);
    with ``tree``, that checkout's package instead of this one's."""
    workspace.mkdir(parents=True, exist_ok=True)
    chosen = {"BROWX_CAPABILITIES": capabilities} if capabilities else {}
    if tree is not None:
        chosen["PYTHONPATH"] = str(tree)
    return [sys.executable, "-m", "browx_actors", "serve"], {"BROWX_WORKSPACE": str(workspace), **chosen, **(env or {})}


def playwright_mcp() -> list[str]:
    return [*peer_script("@playwright/mcp", "playwright-mcp"), "--headless", "--isolated", "--no-sandbox",
            "--browser", "chromium", "--executable-path", find_chromium()]


def devtools_mcp() -> list[str]:
    return [*peer_script("chrome-devtools-mcp", "chrome-devtools-mcp"), "--headless", "--isolated",
            "--executablePath", find_chromium(), "--chromeArg=--no-sandbox"]


def listed_bytes(command: list[str], env: dict[str, str], cwd: Path) -> tuple[int, int]:
    """``tools/list`` as the Inspector's CLI prints it: bytes and tools."""
    pairs = [arg for key, value in env.items() for arg in ("-e", f"{key}={value}")]
    done = subprocess.run([*inspector(), "--cli", *pairs, "--method", "tools/list", "--format", "json", *command],
                          capture_output=True, text=True, timeout=180, check=False, cwd=cwd)
    if done.returncode != 0:
        raise RuntimeError(f"the Inspector could not list {command[:2]}: {done.stderr[-2000:]}")
    return len(done.stdout.encode()), len(json.loads(done.stdout)["result"]["tools"])


def params(command: list[str], env: dict[str, str], cwd: Path | None = None) -> StdioServerParameters:
    """Started in ``cwd``: Playwright MCP writes its files under the directory it starts in."""
    return StdioServerParameters(command=command[0], args=command[1:], env={**os.environ, **env}, cwd=cwd)


def text_of(result: types.CallToolResult) -> str:
    return "".join(block.text for block in result.content if isinstance(block, types.TextContent))


def ref(text: str, role: str, name: str) -> str:
    """The ref of the ``role "name"`` line of a snapshot (both servers print that form)."""
    found = re.search(rf'{role} "{re.escape(name)}"[^\n]*?\[ref=(e\d+)\]', text)
    if found is None:
        raise RuntimeError(f'no {role} "{name}" with a ref in:\n{text[:3000]}')
    return found.group(1)


async def call(client: Client, steps: list[tuple[str, int]], tool: str, args: dict[str, object]) -> str:
    result = await client.call_tool(tool, args)
    text = text_of(result)
    if result.is_error or '"ok": false' in text or '"ok":false' in text:
        raise RuntimeError(f"{tool} failed: {text[:2000]}")
    steps.append((tool, len(text)))
    return text


async def our_session(workspace: Path, url: str, tree: Path | None = None) -> list[tuple[str, int]]:
    steps: list[tuple[str, int]] = []
    command, env = ours(workspace, tree=tree)
    async with Client(params(command, env, tree)) as client:
        s = {"session": "task"}
        await call(client, steps, "open_session", s)
        await call(client, steps, "navigate", {**s, "url": url})
        page = json.loads(await call(client, steps, "snapshot", s))["snapshot"]
        await call(client, steps, "fill", {**s, "ref": ref(page, "textbox", "Email"), "value": EMAIL})
        await call(client, steps, "fill", {**s, "ref": ref(page, "textbox", "Password"), "value": "horse battery"})
        await call(client, steps, "select", {**s, "ref": ref(page, "combobox", "Plan"), "values": ["Pro"]})
        await call(client, steps, "click", {**s, "ref": ref(page, "checkbox", "I accept the terms")})
        await call(client, steps, "click", {**s, "ref": ref(page, "button", "Create account")})
        await call(client, steps, "verify_text", {**s, "text": f"Welcome, {EMAIL}!"})
    return steps


async def playwright_session(workspace: Path, url: str) -> list[tuple[str, int]]:
    steps: list[tuple[str, int]] = []
    async with Client(params(playwright_mcp(), {}, workspace)) as client:
        await call(client, steps, "browser_navigate", {"url": url})
        page = await call(client, steps, "browser_snapshot", {})
        await call(client, steps, "browser_type", {"element": "Email", "target": ref(page, "textbox", "Email"),
                                                   "text": EMAIL})
        await call(client, steps, "browser_type", {"element": "Password", "target": ref(page, "textbox", "Password"),
                                                   "text": "horse battery"})
        await call(client, steps, "browser_select_option", {"element": "Plan", "target": ref(page, "combobox", "Plan"),
                                                            "values": ["Pro"]})
        await call(client, steps, "browser_click", {"element": "terms",
                                                    "target": ref(page, "checkbox", "I accept the terms")})
        await call(client, steps, "browser_click", {"element": "Create account",
                                                    "target": ref(page, "button", "Create account")})
        await call(client, steps, "browser_wait_for", {"text": f"Welcome, {EMAIL}!"})
    return steps


async def instructions_of(command: list[str], env: dict[str, str]) -> int:
    async with Client(params(command, env)) as client:
        return len(client.instructions or "")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--against", type=Path, metavar="DIR",
                        help="also measure the server of another checkout (before and after, one run)")
    against = parser.parse_args().against
    if not NODE.exists():
        raise SystemExit("the npm peers are not installed: run `make peers`")
    ourselves: dict[str, Path | None] = {"browx-actors": None}
    if against is not None:
        ourselves = {f"browx-actors before ({against})": against.resolve(), "browx-actors": None}
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        listings: dict[str, tuple[int, int]] = {}
        for name, tree in ourselves.items():
            where = tree or root
            listings[f"{name}, default capabilities"] = listed_bytes(*ours(root / "a", tree=tree), cwd=where)
            listings[f"{name}, every capability"] = listed_bytes(*ours(root / "b", ALL, OPERATOR_ENV, tree), cwd=where)
        listings["Playwright MCP"] = listed_bytes(playwright_mcp(), {}, cwd=root)
        listings["chrome-devtools-mcp"] = listed_bytes(devtools_mcp(), {}, cwd=root)
        instructions = {
            "browx-actors": trio.run(instructions_of, *ours(root / "c")),
            "Playwright MCP": trio.run(instructions_of, playwright_mcp(), {}),
            "chrome-devtools-mcp": trio.run(instructions_of, devtools_mcp(), {}),
        }
        pages = root / "pages"
        pages.mkdir()
        bundled = (resources.files("browx_actors") / "demo_page" / "index.html").read_text(encoding="utf-8")
        (pages / "small.html").write_text(bundled)
        (pages / "links.html").write_text(bundled.replace("</body>", f'<ul aria-label="Directory">{LINKS}</ul></body>'))
        sessions: dict[str, dict[str, list[tuple[str, int]]]] = {}
        with serve_directory(pages) as base:
            for page in ("small", "links"):
                url = f"{base}/{page}.html"
                sessions[page] = {name: trio.run(our_session, root / page, url, tree)
                                  for name, tree in ourselves.items()}
                sessions[page]["Playwright MCP"] = trio.run(playwright_session, root / page, url)
    baseline = listings["Playwright MCP"][0]
    print("# What an agent pays in context, same run\n")
    print("| tools/list (Inspector CLI, --format json) | tools | bytes | / Playwright MCP |")
    print("| --- | --- | ---: | ---: |")
    for name, (size, count) in listings.items():
        print(f"| {name} | {count} | {size:,} | {size / baseline:.2f}x |")
    print("\n| instructions at initialize | characters |")
    print("| --- | ---: |")
    for name, size in instructions.items():
        print(f"| {name} | {size:,} |")
    for page, columns in sessions.items():
        label = "the bundled sign-up page" if page == "small" else "the same page with 200 links below the form"
        print(f"\nScripted session on {label}: characters of result text per call\n")
        print("| step | " + " | ".join(columns) + " |")
        print("| --- |" + " --- |" * len(columns))
        for i in range(max(len(steps) for steps in columns.values())):
            cells = [f"{steps[i][0]} {steps[i][1]:,}" if i < len(steps) else "" for steps in columns.values()]
            print(f"| {i + 1} | " + " | ".join(cells) + " |")
        totals = {name: sum(n for _, n in steps) for name, steps in columns.items()}
        print("| total | " + " | ".join(f"{total:,}" for total in totals.values()) + " |")
        theirs = totals["Playwright MCP"]
        print("\n" + "; ".join(f"{name} / Playwright MCP: {total / theirs:.2f}x" for name, total in totals.items()
                               if name != "Playwright MCP") + " (target <= 0.5x)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
