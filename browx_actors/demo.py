"""``make demo``: a scripted agent session against the real server over stdio MCP.

It serves the bundled page (a sign-up form and a member list) on loopback, starts
``browx-actors serve`` as a subprocess through the MCP SDK's stdio client, and plays
what an agent would do: open a session, read the page, fill the form (the password as
a registered secret), submit, verify, save a screenshot to the workspace, then find a
control in the compact v2 visual tree and act on it and verify the page's answer in one
``tool.batch``. Each step's result is printed as the agent would see it.

Then it plays the same flow again, every step of it, in a second session on stock
Firefox (``engine: firefox``, over WebDriver BiDi), so one run shows both engines
answer alike.
"""

from __future__ import annotations

import functools
import http.server
import json
import os
import re
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from importlib import resources
from pathlib import Path

import mcp.types as types
import trio
from mcp.client import Client
from mcp.client.stdio import StdioServerParameters

from .jsonsafe import JsonObject


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass


@contextmanager
def serve_directory(directory: Path) -> Iterator[str]:
    """An HTTP server on 127.0.0.1 for ``directory``; yields its base URL."""
    handler = functools.partial(_QuietHandler, directory=str(directory))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def _print_step(number: int, tool: str, args: JsonObject, envelope: JsonObject) -> None:
    shown = {k: v for k, v in envelope.items() if k != "snapshot"}
    print(f"\n[{number}] {tool} {json.dumps(args)}")
    if "snapshot" in envelope:
        print(envelope["snapshot"])
    print(json.dumps(shown, indent=2)[:2000])


#: One step of the script: a tool and its arguments (placeholders filled in as it plays).
Step = tuple[str, JsonObject]


def script(session: str, base_url: str, *, engine: str | None = None) -> list[Step]:
    """The agent's session, as steps; ``engine`` names a non-default engine to open it on."""
    s: JsonObject = {"session": session}
    opened: JsonObject = {**s, "engine": engine} if engine else s
    shot = f"demo/after-signup{'-' + engine if engine else ''}.png"
    return [
        ("open_session", opened),
        ("navigate", {**s, "url": f"{base_url}/index.html"}),
        ("snapshot", s),
        ("register_secret", {**s, "name": "PASSWORD", "value": "correct horse battery"}),
        ("fill", {**s, "selector": "#email", "value": "linus@example.com"}),
        ("fill", {**s, "selector": "#password", "value": "<PASSWORD>"}),
        ("select", {**s, "selector": "#plan", "values": ["Pro"]}),
        ("click", {**s, "selector": "#terms"}),
        ("click", {**s, "ref": "<ref of the Create account button>"}),
        ("verify_text", {**s, "text": "Welcome, linus@example.com!"}),
        ("verify_count", {**s, "selector": "#members li", "count": 3}),
        ("find", {**s, "role": "listitem", "text": "linus"}),
        # The same page as the platform-neutral visual tree: find a button by its test
        # id, then act on it and verify the page's answer in one round trip.
        ("ui.query_nodes", {**s, "automationId": "count-members"}),
        ("tool.batch", {"calls": [
            {"tool": "ui.perform_action", "arguments": {**s, "reference": "<from ui.query_nodes>", "action": "tap"}},
            {"tool": "ui.wait", "arguments": {**s, "automationId": "member-count", "text": "3 members",
                                              "condition": "visible", "timeoutMs": 5000}},
        ]}),
        ("screenshot", {**s, "path": shot}),
        ("runtime_status", {}),
        ("close_session", s),
    ]


async def play(client: Client, steps: list[Step], *, first: int = 1) -> tuple[int, int]:
    """Play ``steps`` (numbered from ``first``), printing each; the steps run and failed."""
    failures = played = 0
    refs: dict[str, str] = {}
    reference: JsonObject = {}
    for number, (tool, args) in enumerate(steps, first):
        if args.get("ref", "").startswith("<ref"):
            args = {**args, "ref": refs.get("Create account", "missing")}
        if tool == "tool.batch":
            args = {"calls": [{**call, "arguments": {**call["arguments"], "reference": reference}}
                              if "reference" in call["arguments"] else call for call in args["calls"]]}
        result = await client.call_tool(tool, args)
        first_content = result.content[0]
        assert isinstance(first_content, types.TextContent)
        envelope = json.loads(first_content.text)
        if tool == "snapshot":
            # Act by ref, the way an agent reads refs out of the snapshot.
            refs.update(re.findall(r'button "([^"]+)" \[ref=(e\d+)\]', envelope.get("snapshot", "")))
        if tool == "ui.query_nodes" and envelope.get("matches"):
            reference = envelope["matches"][0]["reference"]
        _print_step(number, tool, args, envelope)
        played += 1
        if not envelope.get("ok") or envelope.get("failed"):  # a batch answers ok with its failures counted
            failures += 1
    return played, failures


async def run_demo(base_url: str, workspace: Path) -> int:
    # The caller's capabilities are kept (operator-channel,live-view lets a daemon watch the demo).
    capabilities = ",".join(filter(None, ("secrets", os.environ.get("BROWX_CAPABILITIES"))))
    env = {**os.environ, "BROWX_CAPABILITIES": capabilities, "BROWX_WORKSPACE": str(workspace)}
    params = StdioServerParameters(command=sys.executable, args=["-m", "browx_actors", "serve"], env=env)
    chromium = script("demo", base_url)
    # The same flow on stock Firefox over WebDriver BiDi.
    firefox = script("demo-firefox", base_url, engine="firefox")
    async with Client(params) as client:
        tools = await client.list_tools()
        print(f"server offers {len(tools.tools)} tools: {', '.join(t.name for t in tools.tools)}")
        print("\n== chromium ==")
        chromium_played, chromium_failed = await play(client, chromium)
        print("\n== firefox (WebDriver BiDi) ==")
        firefox_played, firefox_failed = await play(client, firefox, first=len(chromium) + 1)
    print(f"\ndemo finished: chromium {chromium_played - chromium_failed} of {len(chromium)} steps ok; "
          f"firefox {firefox_played - firefox_failed} of {len(firefox)} steps ok; "
          f"screenshots in {workspace / 'demo'}")
    return 1 if chromium_failed or firefox_failed else 0


def main() -> int:
    page_dir = Path(str(resources.files("browx_actors") / "demo_page"))
    workspace = Path(os.environ.get("BROWX_WORKSPACE") or ".browx").resolve()
    with serve_directory(page_dir) as base_url:
        return trio.run(run_demo, base_url, workspace)


if __name__ == "__main__":
    sys.exit(main())
