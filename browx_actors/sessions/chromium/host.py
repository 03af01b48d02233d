"""What the session's helper modules need of the session actor, named as a Protocol.

``session.py`` wires in helpers that act back on the session: its tabs' lifecycle
(:mod:`.tab_lifecycle`), the selector warm-up (:mod:`.warmup`), the attached-browser
rules (:mod:`.attached`), downloads (:mod:`.downloads`), frames (:mod:`.frames`) and the
live view's screencast (:mod:`.screencast`). Were they to name :class:`ChromiumSession`
itself, each would import the module that imports it. They name :class:`SessionHost`, the part
of the session they use, so the imports run one way (session, then helpers, then this
leaf), and mypy checks that the session is a host wherever one is passed.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

import trio

from .driver import PlaywrightDriver
from .options import SessionOptions
from .page_events import PageEvents, Pulse
from .tabset import TabSet
from .wiring import TargetWiring

if TYPE_CHECKING:
    from ...human.bridge import HumanBridge
    from .dialogs import DialogBook
    from .pool import Browser
    from .tab_lifecycle import TabLifecycle
    from .warmup import SelectorWarmup

__all__ = ["SessionHost"]


class SessionHost(Protocol):
    session_id: str
    workspace: Path
    driver: PlaywrightDriver
    options: SessionOptions
    browser: Browser | None
    #: The session's Playwright ``BrowserContext``.
    context: Any
    tabs: TabSet
    #: Opens, adopts, wires, replaces and forgets the tabs (see :mod:`.tab_lifecycle`).
    tab_lifecycle: TabLifecycle
    events: PageEvents
    page_moved: Pulse
    wiring: TargetWiring | None
    #: Each tab's frame ids, by the tab's target id (see :mod:`.frames`).
    frame_books: dict[str, Any]
    #: The session's downloads (a :class:`~.downloads.Downloads`).
    downloads: Any
    dialogs: DialogBook
    human: HumanBridge | None
    #: Main-frame navigations of the current tab so far (counted on the Playwright thread).
    navigations: int
    #: Playwright's selector warm-up (see :mod:`.warmup`).
    warmup: SelectorWarmup

    @property
    def nursery(self) -> trio.Nursery: ...

    @property
    def page(self) -> Any: ...

    @property
    def attached(self) -> bool: ...

    async def pw(self, fn: Callable[..., Awaitable[Any]], *args: Any, **kwargs: Any) -> Any: ...
