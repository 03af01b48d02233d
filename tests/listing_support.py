"""What the listing tests share: the byte budgets of ``tools/list``, how the bytes are
counted, and how to start a server with every capability on."""

from __future__ import annotations

import json

from mcp import types

# Every capability, and what the server needs to start with each of them on: the
# configurations benchmarks/context_cost.py measures.
from benchmarks.context_cost import ALL, OPERATOR_ENV

__all__ = ["ALL", "ALL_BUDGET", "DEFAULT_BUDGET", "OPERATOR_ENV", "printed"]

#: Bytes of ``tools/list``, as ``mcp-inspector --cli --method tools/list --format json``
#: prints it. The ceilings hold what was reached (see benchmarks/RESULTS.md, "What an agent
#: pays to load the server"), so a tool or a description cannot grow the listing unseen.
DEFAULT_BUDGET = 45_000
ALL_BUDGET = 65_000


def printed(listing: types.ListToolsResult) -> int:
    """Bytes of the listing as the Inspector's CLI prints it with ``--format json``."""
    result = listing.model_dump(by_alias=True, exclude_none=True, mode="json")
    return len(json.dumps({"result": result}, separators=(",", ":"), ensure_ascii=False).encode()) + 1
