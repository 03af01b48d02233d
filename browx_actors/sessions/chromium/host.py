"""What the session's helper modules need of the session actor, named as a Protocol.

``session.py`` wires in helpers that act back on the session: the attached-browser rules
(:mod:`.attached`), downloads (:mod:`.downloads`), frames (:mod:`.frames`) and the live
view's screencast (:mod:`.screencast`). Were they to name :class:`ChromiumSession` itself,
each would import the module that imports it. They name :class:`SessionHost`, the part
of the session they use, so the imports run one way (session, then helpers, then this
leaf), and mypy checks that the session is a host wherever one is passed.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, Protocol

import trio

from .driver import PlaywrightDriver
from .page_events import PageEvents, Pulse
from .tabset import Tab, TabSet
from .wiring import TargetWiring

__all__ = ["SessionHost"]


class SessionHost(Protocol):
    session_id: str
    workspace: Path
    driver: PlaywrightDriver
    tabs: TabSet
    events: PageEvents
    page_moved: Pulse
    wiring: TargetWiring | None
    #: Each tab's frame ids, by the tab's target id (see :mod:`.frames`).
    frame_books: dict[str, Any]
    #: The session's downloads (a :class:`~.downloads.Downloads`).
    downloads: Any

    @property
    def nursery(self) -> trio.Nursery: ...

    async def pw(self, fn: Callable[..., Awaitable[Any]], *args: Any, **kwargs: Any) -> Any: ...

    async def attach_current(self) -> None: ...

    def _adopt(self, page: Any) -> Tab: ...
