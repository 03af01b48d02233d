"""Helpers of the firefox e2e tests, over :mod:`e2e_support`.

:func:`ok` and :func:`fails` are e2e_support's, re-exported so each test imports from
one place; :func:`open_firefox` opens a firefox session and checks it is one.
"""

from __future__ import annotations

from typing import Any

from mcp.client import Client

from e2e_support import fails, ok

__all__ = ["fails", "ok", "open_firefox"]


async def open_firefox(client: Client, session: str = "ff", **extra: Any) -> dict[str, Any]:
    """Open ``session`` on firefox (refused loudly when the server picked another engine)."""
    opened = await ok(client, "open_session", {"session": session, "engine": "firefox", **extra})
    assert opened.get("engine") == "firefox", opened
    return opened
