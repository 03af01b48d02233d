"""How a chromium session comes up in its browser, and how it leaves it.

:func:`start` is the session's ``on_start``. It gets a browser one of three ways: an
attached one elsewhere (``open_session({cdpEndpoint})``, :mod:`.attached`), a Chromium
of its own on a profile folder (:mod:`.persistent`), or the pool's shared one. The
order after that is what keeps the session's promises: the download cap and the
origin policy go into the tabs' setup before any tab opens, so nothing slips past
them; the operator's policies are set before the first call; the browser watcher
(:func:`~.guard.watch_browser`) starts once there is a session to end.

:func:`stop` is its ``on_stop``: it closes what is the session's own in the browser,
and no more (an attached browser and the user's tabs in it live on), and skips what
someone else is about to do anyway.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol

import trio

from ...human.bridge import HumanBridge
from . import guard, own_context
from .attached import close_pages, default_context, hold_attached_browser
from .bridge.portal import Portal
from .own_context import ContextHost
from .page.download_cap import DownloadCap
from .persistent import PersistentBrowser, start_persistent
from .pool import AcquireBrowser
from .tabs.wiring import TargetWiring, hold_event_socket

if TYPE_CHECKING:
    from ...kernel.actor_ref import ActorRef
    from .network.routes import Routes
    from .page.permissions import Permissions
    from .tabs.screencast import LiveViewers

__all__ = ["start", "stop"]


class Starting(ContextHost, guard.Guarded, Protocol):
    """What starting and stopping need of the session, beyond making its context."""

    _pool: Callable[[], ActorRef]
    routes: Routes
    viewers: LiveViewers
    permissions: Permissions
    stop_reason: str | None

    @property
    def persistent(self) -> bool: ...

    @property
    def context_id(self) -> str | None: ...


async def start(session: Starting) -> None:
    """Bring the session up in its browser, with its first tab (module notes)."""
    session.dialogs.bind()
    persistent: PersistentBrowser | None = None
    if session.options.cdp_endpoint is not None:
        attach = functools.partial(hold_attached_browser, timeout=session.options.cdp_timeout)
        session.browser = await session.nursery.start(attach, session.options.cdp_endpoint, session.driver,
                                                      session.options.cdp_headers)
    elif session.persistent:
        persistent = await start_persistent(session)
        session.browser = persistent.browser
    else:
        # An attached pool's browser is reached in three steps, each within the CDP timeout.
        wait = max(60.0, 3 * session.options.cdp_timeout + 10)
        session.browser = await session._pool().call(AcquireBrowser(), timeout=wait)
    session.tab_lifecycle.bind()
    session.portal = Portal(trio.lowlevel.current_trio_token(), session.nursery)
    if session.browser.attached:
        # Its endpoint may start a browser per socket (a fleet): events share the one.
        socket = session.browser.cdp
    else:
        socket = await session.nursery.start(hold_event_socket, session.browser.ws_url)
    session.wiring = TargetWiring(session.browser.cdp, socket, session.events, session.nursery)
    await session.wiring.add_setup(DownloadCap(session).setup)  # before any tab: no download slips past the cap
    if session.routes.policy.active:  # before any tab too: no request slips past the origin policy
        await session.routes.installed()
    if session.attached:
        # The browser's own context: the user's cookies, and the user's other tabs,
        # which the agent never enters (its init script goes on our pages only).
        session.context = await session.pw(default_context, session.browser.playwright)
    else:
        session.context = persistent.context if persistent is not None else await own_context.new_context(session)
        await own_context.prepare(session, session.context)
    tab = await session.tab_lifecycle.open_first()
    if persistent is not None:  # the page the profile's browser opened by itself is no tab
        await session.pw(close_pages, list(persistent.startup_pages))
    assert tab.events is not None  # open_first wired it
    await _operator_policies(session)
    session.human = await session.nursery.start(
        HumanBridge(session.session_id, tab.events, socket, attach=session.wiring.attach).run
    )
    session.nursery.start_soon(guard.watch_browser, session, session.browser)


async def stop(session: Starting) -> None:
    """Close what is the session's own in its browser, unless another does it (module notes)."""
    await session.viewers.session_ending()
    if session.context is None or session.persistent:
        # A profile's browser is quit by its holder as the nursery closes
        # (persistent.py): closing its context here would end the browser under the
        # session's own watcher, as a crash.
        return
    if session.stop_reason == "shutdown" and session.browser is not None and not session.browser.attached \
            and not session.attached:
        # The whole tree is going down and the pool kills the browser it launched
        # next: closing the context first only costs time (a second on a busy page).
        # An attached browser is someone else's and keeps running: close ours in it.
        return
    with trio.move_on_after(5):
        if session.attached:
            # Only our own tabs: the browser and the user's tabs live on.
            await session.pw(close_pages, [tab.page for tab in session.tabs])
        else:
            await session.pw(session.context.close)


async def _operator_policies(session: Starting) -> None:
    """What the operator's policy file sets for dialogs and permissions, from the start."""
    policy = session.options.policy
    if policy.dialogs is not None:
        session.dialogs.policy = policy.dialogs  # type: ignore[assignment]  # checked when the file was read
    if policy.permissions is not None:
        session.permissions.operator = True
        await session.permissions.set(policy.permissions)
