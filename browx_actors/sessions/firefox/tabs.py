"""A firefox session's tabs: the top-level browsing contexts of its user context.

BiDi names every browsing context with an opaque string; the tab tools speak in small
integers, as on chromium (``list_tabs``, ``select_tab {tab}``, an action's ``opened``).
:class:`Tabs` keeps that mapping and which tab is current. It learns of tabs from the
browser's ``browsingContext.contextCreated`` / ``contextDestroyed`` events, so a tab the
page opens (``window.open``, ``target=_blank``) is known whoever opened it; frames
(contexts with a parent) are numbered per tab (``f1``...). A :class:`Prompt` is a page's
dialog open on a tab. Pure bookkeeping, no I/O.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator

import attrs

__all__ = ["Prompt", "Tab", "Tabs"]


@attrs.define(eq=False)
class Tab:
    id: int
    context: str
    url: str = "about:blank"
    #: Set once the browser reported the context destroyed.
    closed: bool = False
    #: Where the session's mouse is on this tab (viewport CSS pixels), once an input placed it.
    pointer: tuple[float, float] | None = None
    #: Mouse buttons held down on this tab (mouse_down without mouse_up yet).
    buttons: set[str] = attrs.Factory(set)
    #: The tab's frames: context -> its id in the tab (``f1``, ``f2``... never reused), and its parent's context.
    _frame_ids: dict[str, str] = attrs.Factory(dict)
    _parents: dict[str, str] = attrs.Factory(dict)
    _frames_made: int = 0

    def add_frame(self, context: str, parent: str) -> str:
        """Number a frame the browser created in this tab; its id."""
        if context not in self._frame_ids:
            self._frames_made += 1
            self._frame_ids[context] = f"f{self._frames_made}"
            self._parents[context] = parent
        return self._frame_ids[context]

    def drop_frame(self, context: str) -> None:
        self._frame_ids.pop(context, None)
        self._parents.pop(context, None)

    def frame_id(self, context: str) -> str | None:
        return self._frame_ids.get(context)

    def frame_context(self, frame_id: str) -> str | None:
        return next((c for c, short in self._frame_ids.items() if short == frame_id), None)

    def parent_of(self, context: str) -> str | None:
        return self._parents.get(context)

    def frames(self) -> list[tuple[str, str, str]]:
        """Every frame of the tab, in creation order: (id, context, parent context)."""
        return [(short, context, self._parents[context]) for context, short in self._frame_ids.items()]


class Tabs:
    def __init__(self) -> None:
        self._ids = itertools.count(1)
        self._by_context: dict[str, Tab] = {}
        self.current: Tab | None = None
        #: Tabs opened since :meth:`take_opened` last ran (pages' popups, new windows).
        self._opened: list[Tab] = []

    def __iter__(self) -> Iterator[Tab]:
        """The open tabs, in opening order."""
        return iter(list(self._by_context.values()))

    def __len__(self) -> int:
        return len(self._by_context)

    def of(self, context: str) -> Tab | None:
        return self._by_context.get(context)

    def by_id(self, tab_id: int) -> Tab | None:
        return next((tab for tab in self._by_context.values() if tab.id == tab_id), None)

    def add(self, context: str, url: str = "about:blank", *, ours: bool = False) -> Tab:
        """The tab of ``context``, added if new; ``ours``: the session opened it itself."""
        tab = self._by_context.get(context)
        if tab is None:
            tab = Tab(next(self._ids), context, url)
            self._by_context[context] = tab
            if not ours:
                self._opened.append(tab)
        elif ours and tab in self._opened:  # its creation event came before the answer that named it
            self._opened.remove(tab)
        if self.current is None:
            self.current = tab
        return tab

    def remove(self, context: str) -> Tab | None:
        tab = self._by_context.pop(context, None)
        if tab is None:
            return None
        tab.closed = True
        if tab in self._opened:
            self._opened.remove(tab)
        if self.current is tab:
            rest = list(self._by_context.values())
            self.current = rest[-1] if rest else None
        return tab

    def take_opened(self) -> list[Tab]:
        opened, self._opened = self._opened, []
        return [tab for tab in opened if not tab.closed]


@attrs.frozen
class Prompt:
    """A page's dialog, open and waiting for its answer."""

    type: str
    message: str
    default_value: str
    context: str

    def describe(self) -> dict[str, str]:
        return {"type": self.type, "message": self.message, "defaultValue": self.default_value}
