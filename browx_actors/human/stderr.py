"""Where prompts are written: the server's stderr.

stdout carries the MCP protocol, so a prompt cannot go there; stderr is what a human
watching the terminal sees and what an agent host keeps in its server log. The stream
is looked up at each call (not bound at import) so tests and embedders that swap
``sys.stderr`` see the lines.
"""

from __future__ import annotations

import sys

__all__ = ["emit"]


def emit(text: str) -> None:
    """Write ``text`` as whole lines and flush, so a prompt is never stuck in a buffer."""
    stream = sys.stderr
    stream.write(text if text.endswith("\n") else text + "\n")
    stream.flush()
