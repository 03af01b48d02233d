"""A firefox session with a Firefox of its own, not the pool's shared one, in two cases.

* A persistent profile, ``open_session({userDataDir, engine: "firefox"})``: the pool's
  Firefox runs on a throwaway profile, and a user context made in it
  (``browser.createUserContext``) gets a new id each time, so nothing it stored would be
  found again. The session runs Firefox on the folder (kept: neither swept nor removed)
  and works in its ``default`` user context, whose cookies and storage are the profile's.
* A proxy with credentials: Firefox keeps a proxy's accepted credentials for the whole
  browser, every user context included (a session on the same proxy without them, or
  with wrong ones, was let through with them), so on the shared Firefox one session's
  credentials would serve the others. Its own Firefox runs on a throwaway profile.

What ``createUserContext`` takes (``acceptInsecureCerts``, ``proxy``) goes into the BiDi
session's capabilities instead, as this browser is the session's alone.

:func:`hold_own_firefox` owns it for the session's life as the pool's task owns the
shared one: a profile folder is held first (:mod:`..profile_lock`: a second user is
refused at once), a Firefox that exits or drops its socket marks the :class:`~.pool.Firefox`
lost (the session ends with ``browser-crashed``), and the end asks Firefox to quit
(``browser.close``, :func:`quit_browser`, from the session's ``on_stop`` while the
connection still runs) and waits for its process, so what the pages stored is written
to the profile before the launcher's kill sweeps what is left.
"""

from __future__ import annotations

import contextlib
from contextlib import AsyncExitStack
from pathlib import Path
from typing import Protocol

import attrs
import trio

from ...bidi import BidiFailure, FirefoxError, launch_firefox, open_bidi_connection
from ...errors import ToolError
from ...jsonsafe import JsonObject
from ...workspace import folder_to_use
from ..chromium.pool import describe_exit
from ..context_options import ContextOptions
from ..profile_lock import hold_profile
from .host import FirefoxHost
from .pool import Firefox, new_bidi_session

__all__ = ["DEFAULT_USER_CONTEXT", "OwnFirefox", "OwnHost", "close_startup_tabs", "hold_own_firefox", "quit_browser",
           "runs_its_own", "start_own", "startup_tabs"]

class OwnHost(FirefoxHost, Protocol):
    """What running its own Firefox needs of the session, beyond any helper's."""

    context: ContextOptions
    browser: Firefox | None
    #: Set while it asks its Firefox to quit, so the socket's end is no crash.
    quitting: bool


#: The user context a Firefox's profile stores its cookies and storage for.
DEFAULT_USER_CONTEXT = "default"
_QUIT_S = 10.0


@attrs.define(eq=False)
class OwnFirefox(Firefox):
    """The session's own Firefox, which also says when its process has exited: its
    socket closes early in a quit, while the profile is still being written."""

    exited: trio.Event = attrs.Factory(trio.Event)


async def hold_own_firefox(folder: Path | None, relative: str, executable: str | None, headless: bool,
                           capabilities: JsonObject, *, task_status: trio.TaskStatus[OwnFirefox]) -> None:
    """Take the profile folder (None: a throwaway profile), start Firefox on it, hand over
    the :class:`OwnFirefox`, and hold it until cancelled or it dies."""
    with hold_profile(folder, relative) if folder is not None else contextlib.nullcontext():
        async with AsyncExitStack() as stack:
            try:
                process = await stack.enter_async_context(launch_firefox(executable, headless=headless,
                                                                         profile=folder))
                bidi = await stack.enter_async_context(open_bidi_connection(process.ws_url))
                version = await new_bidi_session(bidi, capabilities)
            except FirefoxError as exc:
                raise ToolError("engine-unavailable", str(exc), engine="firefox") from exc
            except BidiFailure as exc:
                raise ToolError("unavailable", f"could not start the session's Firefox{relative}: {exc}",
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


def runs_its_own(context: ContextOptions) -> bool:
    """Whether a session with these options needs a Firefox of its own (see the module notes)."""
    return context.user_data_dir is not None or (context.proxy is not None and "username" in context.proxy)


async def start_own(session: OwnHost, executable: str | None, headless: bool) -> Firefox:
    """The session's own Firefox, on its profile folder (checked by the workspace's
    chokepoint) if it has one, started in the session's nursery; a storage state beside
    a profile folder is refused (the profile keeps its own; ``storage_state_load`` loads
    one into it)."""
    context = session.context
    folder = None
    if context.user_data_dir is not None:
        if context.storage_state is not None:
            raise ToolError("bad-arg", "storageState: a userDataDir session starts from its profile's own storage; "
                            "open it without storageState and storage_state_load the file", field="storageState")
        folder = folder_to_use(session.workspace, context.user_data_dir, field="userDataDir")
    capabilities: JsonObject = {"acceptInsecureCerts": True} if context.ignore_https_errors else {}
    proxy = context.bidi_proxy()
    if proxy is not None:
        capabilities["proxy"] = proxy
    relative = "" if context.user_data_dir is None else f" on the profile {context.user_data_dir!r}"
    browser: Firefox = await session.nursery.start(hold_own_firefox, folder, relative, executable, headless,
                                                   capabilities)
    return browser


async def quit_browser(session: OwnHost) -> None:
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


async def close_startup_tabs(session: OwnHost, startup: list[str]) -> None:
    """Close the tabs the profile's Firefox opened by itself (after the session's own
    one is open: a Firefox whose last tab closes may quit)."""
    for context in startup:
        with contextlib.suppress(BidiFailure):
            await session.bidi.send("browsingContext.close", {"context": context})


async def startup_tabs(session: OwnHost) -> list[str]:
    """The top-level contexts open before the session made any (Firefox's start page)."""
    tree = await session.bidi.send("browsingContext.getTree", {"maxDepth": 0})
    return [str(c["context"]) for c in tree.get("contexts", []) if isinstance(c, dict)]
