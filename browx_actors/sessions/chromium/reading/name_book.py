"""The session's named refs: names an agent gave elements, and the anchors behind them.

``name_ref {ref, name}`` asks the page agent how to find the element again after a
re-render (``agent/anchors.js``: its test id, its id, its role and name, or its path
from the nearest ancestor that has one of those) and keeps that anchor here under the
name, for the whole session: every tab, and every document loaded later (a name given
on one page resolves on the next if the anchor matches there). Wherever a tool takes a
``ref`` the name works too (:func:`~.resolve.run_with_named_refs` resolves it, once, before
the handler runs).

Pure: no I/O. The book is bounded (:data:`MAX_NAMED_REFS`).
"""

from __future__ import annotations

from collections.abc import Iterator

import attrs

from ....errors import ToolError
from ....jsonsafe import JsonObject

__all__ = ["MAX_NAMED_REFS", "NamedRef", "NamedRefBook", "describe_anchor"]

#: Names one session may hold.
MAX_NAMED_REFS = 256


@attrs.frozen
class NamedRef:
    name: str
    #: How the page agent finds the element (see ``agent/anchors.js``).
    anchor: JsonObject
    #: Where it was named.
    url: str


def describe_anchor(anchor: JsonObject) -> str:
    """The anchor in a few words, for messages: ``data-testid="cart"``, ``button "Save"``."""
    by = anchor.get("by")
    if by == "testid":
        return f'{anchor.get("attr")}="{anchor.get("value")}"'
    if by == "id":
        return f'id="{anchor.get("value")}"'
    if by == "role":
        return f'{anchor.get("role")} "{anchor.get("name")}"'
    base = anchor.get("base")
    start = describe_anchor(base) if isinstance(base, dict) else "the document"
    return f"path of {len(anchor.get('steps') or [])} steps from {start}"


class NamedRefBook:
    def __init__(self) -> None:
        self._refs: dict[str, NamedRef] = {}

    def __len__(self) -> int:
        return len(self._refs)

    def __iter__(self) -> Iterator[NamedRef]:
        return iter(list(self._refs.values()))

    def add(self, name: str, anchor: JsonObject, url: str) -> bool:
        """Keep ``name`` for ``anchor``; True when it replaced an earlier one."""
        replaced = name in self._refs
        if not replaced and len(self._refs) >= MAX_NAMED_REFS:
            raise ToolError("too-large", f"this session already holds {MAX_NAMED_REFS} named refs",
                            limit=MAX_NAMED_REFS)
        self._refs[name] = NamedRef(name, anchor, url)
        return replaced

    def get(self, name: str) -> NamedRef:
        found = self._refs.get(name)
        if found is None:
            known = ", ".join(sorted(self._refs)) or "none"
            raise ToolError("target-not-found", f"no named ref {name!r} in this session (named: {known}); "
                            "name_ref gives one, list_named_refs lists them", name=name)
        return found
