"""The browser context a chromium session makes for itself (not an attached browser's own).

In the pool's shared browser it is a new context made with the session's options; on a
persistent profile it is that profile's browser's default context, made with the same
options at launch (:mod:`.persistent`). Either way the session's scripts go into it the
same way, in the same order: the page agent first, then open_session's ``initScript``
in the page's own world; and open_session's ``permissions`` become emulate's state, so
``emulate {}`` reports them and ``emulate`` changes them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from playwright.async_api import BrowserContext

from .. import init_script
from .agent.pageagent import AGENT_SOURCE
from .host import SessionHost
from .options import DEFAULT_VIEWPORT
from .page.state_file import state_for_playwright

if TYPE_CHECKING:
    from .page.emulation import Emulation

__all__ = ["ContextHost", "new_context", "prepare"]


class ContextHost(SessionHost, Protocol):
    """What making the context needs of the session: its options, browser and emulation."""

    emulation: Emulation


async def new_context(session: ContextHost) -> BrowserContext:
    """The session's context in the pool's browser, made with its options."""
    assert session.browser is not None
    width, height = session.options.viewport or DEFAULT_VIEWPORT
    extra = session.options.context.playwright()
    if session.options.context.storage_state is not None:  # Playwright's own loading: no helper pages
        extra["storage_state"] = await state_for_playwright(session.workspace, session.options.context.storage_state)
    context: BrowserContext = await session.pw(
        session.browser.playwright.new_context, viewport={"width": width, "height": height}, **extra,
    )
    return context


async def prepare(session: ContextHost, context: BrowserContext) -> None:
    """The session's scripts and permissions in ``context`` (see the module notes)."""
    await session.pw(context.add_init_script, script=AGENT_SOURCE)
    options = session.options.context
    if options.init_script is not None:  # after the agent's: the page's own world
        source = await init_script.read(session.workspace, options.init_script)
        await session.pw(context.add_init_script, script=init_script.as_statement(source))
    if options.permissions:
        session.emulation.state["permissions"] = list(options.permissions)
