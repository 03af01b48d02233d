"""What the session's helper modules need of the session actor, named as a Protocol.

``session.py`` wires in helpers that act back on the session: its tabs' lifecycle
(:mod:`.tabs.lifecycle`), the selector warm-up (:mod:`.warmup`), the attached-browser
rules (:mod:`.attached`), downloads (:mod:`.page.saves`), frames (:mod:`.frames`) and
the live view's screencast (:mod:`.tabs.screencast`). Were they to name
:class:`~.session.ChromiumSession` itself, each would import the module that imports it.
They name :class:`SessionHost`, the part of the session they use, so the imports run one
way (session, then helpers, then this leaf), and mypy checks that the session is a host
wherever one is passed.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

import trio
from playwright.async_api import BrowserContext, Page

from .bridge.driver import PlaywrightDriver
from .options import SessionOptions
from .tabs.events import PageEvents, Pulse
from .tabs.tabset import Tab, TabSet
from .tabs.wiring import TargetWiring

if TYPE_CHECKING:
    from ...human.bridge import HumanBridge
    from ...jsonsafe import JsonObject
    from ...tools.human import PromptSpec
    from .bridge.portal import Portal
    from .dialogs.book import DialogBook
    from .frames.book import FrameBook
    from .page.downloads import Downloads
    from .pool import Browser

__all__ = ["SessionHost", "TabKeeper", "WarmupHook"]

T = TypeVar("T")


class TabKeeper(Protocol):
    """What the helpers ask of the tab lifecycle (a :class:`~.tabs.lifecycle.TabLifecycle`),
    named here so that this leaf does not import the module that imports it."""

    def adopt(self, page: Page) -> Tab: ...

    async def attach_current(self) -> None: ...

    async def replace(self, tab: Tab, why: str = "crashed") -> None: ...

    def bind(self) -> None: ...

    async def open_first(self) -> Tab: ...


class WarmupHook(Protocol):
    """What the tab lifecycle asks of the selector warm-up (a :class:`~.warmup.SelectorWarmup`)."""

    def new_tab(self) -> None: ...


class SessionHost(Protocol):
    session_id: str
    workspace: Path
    driver: PlaywrightDriver
    options: SessionOptions
    browser: Browser | None
    #: The session's Playwright context (None until it starts).
    context: BrowserContext | None
    tabs: TabSet
    events: PageEvents
    page_moved: Pulse
    wiring: TargetWiring | None
    #: Each tab's frame ids, by the tab's target id (see :mod:`.frames.tree`).
    frame_books: dict[str, FrameBook]
    #: The session's downloads.
    downloads: Downloads
    dialogs: DialogBook
    human: HumanBridge | None
    #: Main-frame navigations of the current tab so far (counted on the Playwright thread).
    navigations: int
    #: Lets the Playwright thread await Trio (None until the session starts).
    portal: Portal | None

    @property
    def url(self) -> str: ...

    async def ask_person(self, spec: PromptSpec) -> JsonObject:
        """Ask through the session's human channel and wait (``human/await_human.py``)."""
        ...

    @property
    def tab_lifecycle(self) -> TabKeeper:
        """Opens, adopts, wires, replaces and forgets the tabs (see :mod:`.tabs.lifecycle`)."""
        ...

    @property
    def warmup(self) -> WarmupHook:
        """Playwright's selector warm-up (see :mod:`.warmup`)."""
        ...

    @property
    def nursery(self) -> trio.Nursery: ...

    # Any: the current tab's Page, or None (see ChromiumSession.page).
    @property
    def page(self) -> Any: ...

    @property
    def attached(self) -> bool: ...

    async def pw(self, fn: Callable[..., Awaitable[T]], *args: object, **kwargs: object) -> T: ...
