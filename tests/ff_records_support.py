"""Shared by the firefox records, storage and waits tests: a runtime with real headless
Firefox sessions, and calls that insist on their outcome.

The runtime is the library API (``open_runtime``), which runs the same dispatch an MCP
client reaches over stdio, without a subprocess per test.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from browx_actors import RuntimeConfig, open_runtime


@asynccontextmanager
async def firefox_runtime(workspace: Path, capabilities: str = "eval,storage",
                          sessions: tuple[str, ...] = ("ff",)) -> AsyncIterator[Any]:
    """A runtime whose ``sessions`` (default one, ``ff``) are firefox sessions."""
    config = RuntimeConfig.from_env({"BROWX_CAPABILITIES": capabilities}, workspace=workspace)
    wanted = ["read", "navigation", "action", *capabilities.split(",")]
    async with open_runtime(config=config, capabilities=wanted) as runtime:
        for name in sessions:
            opened = await runtime.call_tool("open_session", {"session": name, "engine": "firefox"})
            assert opened["ok"] is True, opened
        yield runtime


async def ok(runtime: Any, tool: str, args: dict[str, Any] | None = None, session: str = "ff") -> dict[str, Any]:
    """``tool`` on firefox session ``session``, insisting it succeeded."""
    envelope: dict[str, Any] = await runtime.call_tool(tool, {"session": session, **(args or {})})
    assert envelope["ok"] is True, f"{tool} {args} failed: {envelope}"
    return envelope


async def fails(runtime: Any, tool: str, args: dict[str, Any] | None, code: str,
                session: str = "ff") -> dict[str, Any]:
    """``tool`` on firefox session ``session``, insisting it failed with ``code``."""
    envelope: dict[str, Any] = await runtime.call_tool(tool, {"session": session, **(args or {})})
    assert envelope["ok"] is False and envelope["code"] == code, f"{tool} {args}: {envelope}"
    return envelope
