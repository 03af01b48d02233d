"""The two capability gates every call passes, and the count of what they refused.

The server grants capabilities (``BROWX_CAPABILITIES`` / ``--caps``) and a library
client grants its own (``open_runtime(capabilities=...)``); a call needs both. A refusal
says which gate withheld the capability and how to open it, and is counted per tool
(the diagnostics records carry the running total).
"""

from __future__ import annotations

from collections import Counter

from ..errors import ToolError

__all__ = ["Gates"]


class Gates:
    def __init__(self, server: frozenset[str], client: frozenset[str]) -> None:
        self.server = server
        self.client = client
        self.denials: Counter[str] = Counter()

    def allows(self, capability: str) -> bool:
        return capability in self.server and capability in self.client

    def refuse(self, capability: str, what: str) -> ToolError:
        """The refusal for ``what`` (a tool, or ``adapter.op``), counted."""
        self.denials[what] += 1
        missing = []
        if capability not in self.server:
            missing.append("the server (add it to BROWX_CAPABILITIES or --caps)")
        if capability not in self.client:
            missing.append("the client (open_runtime(capabilities=...))")
        return ToolError(
            "capability-denied",
            f"{what} needs the {capability!r} capability, which is not enabled by " + " or ".join(missing),
            capability=capability,
        )

    def require(self, capability: str, what: str) -> None:
        if not self.allows(capability):
            raise self.refuse(capability, what)

    @property
    def denied_total(self) -> int:
        return sum(self.denials.values())
