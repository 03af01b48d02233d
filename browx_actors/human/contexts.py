"""Which execution contexts may answer: the bookkeeping behind the binding check.

A ``Runtime.bindingCalled`` event names the context it came from. The binding exists
only in contexts whose name is the session's world name, but the bridge still accepts
a call only from a context it has seen created, on that same flat session, as an
isolated world of exactly that name, and never from a context whose origin is an
extension's. The book is fed the session's ``Runtime.executionContext*`` events in
order (they share one subscription with the binding calls, so a call can never be
judged against a book that has not yet seen its context), and it does no I/O.
"""

from __future__ import annotations

from collections.abc import Mapping

import attrs

from ..jsonsafe import JsonValue

__all__ = ["ContextBook", "WorldContext", "is_extension_origin"]


def is_extension_origin(origin: str) -> bool:
    """``chrome-extension://...`` and its kin (moz-, safari-web-, edge...)."""
    scheme, sep, _ = origin.partition("://")
    return bool(sep) and scheme.lower().endswith("extension")


@attrs.frozen
class WorldContext:
    id: int
    frame_id: str
    origin: str


class ContextBook:
    """The live contexts of one world on one flat session."""

    def __init__(self, world: str) -> None:
        self.world = world
        self._contexts: dict[int, WorldContext] = {}

    def created(self, context: Mapping[str, JsonValue]) -> WorldContext | None:
        """Note a ``Runtime.executionContextCreated`` context; returns it if it is ours."""
        aux = context.get("auxData") or {}
        ctx_id = context.get("id")
        origin = context.get("origin") or ""
        if (
            context.get("name") != self.world
            or not isinstance(ctx_id, int)
            or aux.get("isDefault")
            or aux.get("type") != "isolated"
            or not isinstance(origin, str)
            or is_extension_origin(origin)
        ):
            return None
        entry = WorldContext(ctx_id, str(aux.get("frameId") or ""), origin)
        self._contexts[ctx_id] = entry
        return entry

    def destroyed(self, ctx_id: JsonValue) -> None:
        self._contexts.pop(ctx_id, None)

    def cleared(self) -> None:
        self._contexts.clear()

    def accepts(self, ctx_id: object) -> bool:
        return isinstance(ctx_id, int) and ctx_id in self._contexts

    def for_frame(self, frame_id: str) -> int | None:
        """The newest live world context in ``frame_id`` (None before it exists)."""
        found = [c.id for c in self._contexts.values() if c.frame_id == frame_id]
        return found[-1] if found else None

    def __len__(self) -> int:
        return len(self._contexts)
