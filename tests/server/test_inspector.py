"""The MCP Inspector's own CLI (npm, pinned in ``peers/``) lists the real server's tools
over stdio: its strict schema-portability check finds nothing, and its printed listing
is the size ``test_listing.py`` measures and budgets."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from browx_actors.config import ALL_CAPABILITIES, DEFAULT_CAPABILITIES
from browx_actors.server.catalog import default_catalog
from e2e_support import server_env
from listing_support import ALL, ALL_BUDGET, DEFAULT_BUDGET, OPERATOR_ENV
from peers import inspector


def inspect(workspace: Path, capabilities: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    workspace.mkdir(parents=True, exist_ok=True)
    # The Inspector takes no empty value; an unset variable means the same to the server.
    pairs = [arg for key, value in server_env(workspace, capabilities, env).items() if value
             for arg in ("-e", f"{key}={value}")]
    return subprocess.run([*inspector(), "--cli", *pairs, "--cwd", str(workspace), "--method", "tools/list",
                           "--format", "json", "--strict", sys.executable, "-m", "browx_actors", "serve"],
                          capture_output=True, text=True, timeout=120, check=False)


def test_the_inspector_lists_every_allowed_tool_with_no_portability_warning(tmp_path: Path) -> None:
    for capabilities, env, allowed, budget in [("", None, DEFAULT_CAPABILITIES, DEFAULT_BUDGET),
                                               (ALL, OPERATOR_ENV, ALL_CAPABILITIES, ALL_BUDGET)]:
        done = inspect(tmp_path / (capabilities[:8] or "default"), capabilities, env)
        assert done.returncode == 0, done.stderr
        assert "Warning" not in done.stderr and "portability" not in done.stderr, done.stderr
        listed = json.loads(done.stdout)["result"]["tools"]
        assert [tool["name"] for tool in listed] == [t.name for t in default_catalog() if t.capability in allowed]
        assert len(done.stdout.encode()) <= budget, len(done.stdout.encode())
