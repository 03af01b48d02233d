"""A firefox session on a persistent profile: ``open_session({userDataDir, engine: "firefox"})``.

The pool's Firefox runs on a throwaway profile, and a user context made in it
(``browser.createUserContext``) gets a new id each time, so nothing it stored would be
found again. Such a session therefore runs a Firefox of its own on the folder
(:func:`~browx_actors.bidi.launcher.launch_firefox` with that profile, kept) and works
in its ``default`` user context, whose cookies and storage are the profile's. What
``createUserContext`` takes (``acceptInsecureCerts``, ``proxy``) goes into the BiDi
session's capabilities instead, as this browser is the session's alone.

:func:`hold_persistent_firefox` owns it for the session's life as the pool's task owns
the shared one: the profile is held first (:mod:`..profile_lock`: a second user is
refused at once), a Firefox that exits or drops its socket marks the :class:`~.pool.Firefox`
lost (the session ends with ``browser-crashed``), and the end asks Firefox to quit
(``browser.close``, :func:`quit_browser`, from the session's ``on_stop`` while the
connection still runs) and waits for it, so what the pages stored is written to the
profile before the launcher's kill sweeps what is left.
"""

from __future__ import annotations

import contextlib
from contextlib import AsyncExitStack
from pathlib import Path
from typing import TYPE_CHECKING

import attrs
import trio

from ...bidi import BidiFailure, FirefoxError, launch_firefox, open_bidi_connection
from ...errors import ToolError
from ...jsonsafe import JsonObject
from ...workspace import folder_to_use
from ..chromium.pool import describe_exit
from ..profile_lock import hold_profile
from .pool import Firefox, new_bidi_session

if TYPE_CHECKING:
    from .session import FirefoxSession

__all__ = ["DEFAULT_USER_CONTEXT", "OwnFirefox", "close_startup_tabs", "hold_persistent_firefox", "quit_browser",
           "start_persistent", "startup_tabs"]

#: The user context a Firefox's profile stores its cookies and storage for.
DEFAULT_USER_CONTEXT = "default"
_QUIT_S = 10.0


@attrs.define(eq=False)
class OwnFirefox(Firefox):
    """The session's own Firefox, which also says when its process has exited: its
    socket closes early in a quit, while the profile is still being written."""

    exited: trio.Event = attrs.Factory(trio.Event)


async def hold_persistent_firefox(folder: Path, relative: str, executable: str | None, headless: bool,
                                  capabilities: JsonObject, *, task_status: trio.TaskStatus[OwnFirefox]) -> None:
    """Take the profile, start its Firefox, hand over the :class:`~.pool.Firefox`, and
    hold it until cancelled or it dies; then quit it gracefully."""
    with hold_profile(folder, relative):
        async with AsyncExitStack() as stack:
            try:
                process = await stack.enter_async_context(launch_firefox(executable, headless=headless,
                                                                         profile=folder))
                bidi = await stack.enter_async_context(open_bidi_connection(process.ws_url))
                version = await new_bidi_session(bidi, capabilities)
            except FirefoxError as exc:
                raise ToolError("engine-unavailable", str(exc), engine="firefox") from exc
            except BidiFailure as exc:
                raise ToolError("unavailable", f"could not start Firefox on the profile {relative!r}: {exc}",
                                component="browser") from exc
            browser = OwnFirefox(0, bidi, process.pid, version)
            try:
                task_status.started(browser)
                async with trio.open_nursery() as watch:
                    async def on_socket_loss() -> None:  # the session ends; its Firefox is killed with it
                        browser.mark_lost(f"the BiDi connection to Firefox was lost: {await bidi.wait_lost()}")
                    watch.start_soon(on_socket_loss)
                    returncode = await process.wait_exit()
                    browser.exited.set()
                    watch.cancel_scope.cancel()
                browser.mark_lost(f"Firefox (pid {process.pid}) exited with {describe_exit(returncode)}")
            finally:
                browser.mark_lost("the session closed")


async def start_persistent(session: FirefoxSession, executable: str | None, headless: bool) -> Firefox:
    """The session's own Firefox on its profile folder (checked by the workspace's
    chokepoint), started in the session's nursery; a storage state beside it is refused
    (the profile keeps its own; ``storage_state_load`` loads one into it)."""
    context = session.context
    assert context.user_data_dir is not None
    if context.storage_state is not None:
        raise ToolError("bad-arg", "storageState: a userDataDir session starts from its profile's own storage; "
                        "open it without storageState and storage_state_load the file", field="storageState")
    folder = folder_to_use(session.workspace, context.user_data_dir, field="userDataDir")
    capabilities: JsonObject = {"acceptInsecureCerts": True} if context.ignore_https_errors else {}
    proxy = context.bidi_proxy()
    if proxy is not None:
        capabilities["proxy"] = proxy
    browser: Firefox = await session.nursery.start(hold_persistent_firefox, folder, context.user_data_dir,
                                                   executable, headless, capabilities)
    return browser


async def quit_browser(session: FirefoxSession) -> None:
    """Ask the session's own Firefox to quit (``browser.close``) and wait until it has,
    while its connection still runs (the session's end, before its nursery closes): a
    Firefox killed instead loses what it had not written yet (localStorage is written
    late). Whatever is left then is killed by the launcher."""
    browser = session.browser
    if not isinstance(browser, OwnFirefox) or browser.lost.is_set():
        return
    session.quitting = True
    with trio.CancelScope(shield=True), trio.move_on_after(_QUIT_S):
        with contextlib.suppress(BidiFailure):
            await browser.bidi.send("browser.close", {}, timeout=5)
        await browser.exited.wait()


async def close_startup_tabs(session: FirefoxSession, startup: list[str]) -> None:
    """Close the tabs the profile's Firefox opened by itself (after the session's own
    one is open: a Firefox whose last tab closes may quit)."""
    for context in startup:
        with contextlib.suppress(BidiFailure):
            await session.bidi.send("browsingContext.close", {"context": context})


async def startup_tabs(session: FirefoxSession) -> list[str]:
    """The top-level contexts open before the session made any (Firefox's start page)."""
    tree = await session.bidi.send("browsingContext.getTree", {"maxDepth": 0})
    return [str(c["context"]) for c in tree.get("contexts", []) if isinstance(c, dict)]
