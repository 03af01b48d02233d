"""The firefox session actor: a BiDi user context in the shared Firefox, and its tabs.

A session is what a chromium session is, on BiDi: its own user context (cookies and
storage of its own, as a browser context), created at start and removed at the end, with
its tabs (:mod:`.tabs`), the page agent in a sandbox realm of every document
(:mod:`.sandbox`), and what its pages logged and requested (:mod:`.records`). Every
event of the browser arrives on the one shared socket; the session's
:class:`~.events.SessionEvents` keeps those of this session's contexts (frames are folded
into their tab) and wakes whoever waits for news (:meth:`FirefoxSession.news`).

Dialogs. The BiDi session leaves prompts open (``unhandledPromptBehavior: ignore``), so
they are the session's to answer, by the same policy as chromium: under ``ask`` (the
default) the call in flight on that tab is cut short and answers ``dialog: {type,
message, defaultValue}``, and every later call on the tab answers ``dialog-open`` until
``handle_dialog``; under ``accept`` / ``dismiss`` the session answers at once and the
next result lists the dialog (``dialogs``). ``navigate`` and the tab tools run anyway:
they are the ways out. A dialog's arrival is handled in :mod:`.events`; the refusal and
the cut-short reply here, in :meth:`FirefoxSession.perform`.

Loss. The pool's Firefox dying marks it lost; the session then crashes with
:class:`~..chromium.losses.BrowserLost`, which the runtime answers as
``browser-crashed``, and the next session gets a fresh Firefox.
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import trio

from ...bidi import BidiConnection, BidiConnectionLost, BidiError, BidiFailure, BidiTimeout
from ...canvas.cache import CaptureCache
from ...config import DOWNLOAD_MAX_BYTES
from ...credentials import redact_url
from ...errors import ToolError
from ...jsonsafe import JsonObject, JsonValue
from ...kernel.actor_ref import ActorRef
from ...origins import OriginPolicy
from ...policy.confirm import ConfirmPolicy
from ...tools import Arguments, Handler, Reply, Table, Tool
from .. import init_script
from ..chromium.dialogs.book import dialog_refusal, interrupted_reply
from ..chromium.losses import BrowserLost, PageScriptError, first_line
from ..chromium.page.downloads import safe_filename
from ..chromium.reading.name_book import NamedRefBook
from ..chromium.reading.resolve import run_with_named_refs
from ..context_options import ContextOptions
from ..session import Session, Work
from . import own_firefox, sandbox
from .events import SessionEvents
from .origin_grants import OriginGrants
from .page import emulation
from .page.downloads import FirefoxDownloads
from .pool import AcquireFirefox, Firefox, hold_attached
from .proxy_auth import ProxyAuth
from .reading import frames
from .records import webstorage
from .records.books import ConsoleBook, NetworkBook
from .records.collector import collect
from .records.intercept import Interceptor
from .records.routes import Routes
from .tabs import Prompt, Tab, Tabs

__all__ = ["DIALOG_FREE", "FirefoxSession"]

#: Tools that run while a dialog blocks the current tab: the ways out, and reads of the server's own records.
DIALOG_FREE = frozenset({"handle_dialog", "set_dialog_policy", "navigate", "list_tabs", "select_tab", "new_tab",
                         "close_tab", "console_read", "network_read"})
#: The longest one BiDi command of a call may take, whatever the call's deadline.
COMMAND_SECONDS = 30.0


class FirefoxSession(Session):
    engine = "firefox"

    def __init__(self, session_id: str, *, table: Table, workspace: Path, pool: Callable[[], ActorRef],
                 viewport: tuple[int, int], endpoint: str | None = None,
                 download_max_bytes: int = DOWNLOAD_MAX_BYTES, origins: OriginPolicy | None = None,
                 context: ContextOptions | None = None, executable: str | None = None, headless: bool = True,
                 dialogs: str | None = None, confirm: Callable[[], ConfirmPolicy] = ConfirmPolicy) -> None:
        super().__init__(session_id, table=table, workspace=workspace)
        self._pool = pool
        #: The Firefox a session runs when it needs its own (``own_firefox.py``), and
        #: whether the session is quitting it (its end then is no crash).
        self._firefox_to_run = (executable, headless)
        self.quitting = False
        #: Answers the proxy's challenges with its credentials (``proxy_auth.py``).
        self.proxy_auth: ProxyAuth | None = None
        #: open_session's permissions, granted to each origin the pages go to (``origin_grants.py``).
        self.grants: OriginGrants | None = None
        self.viewport = viewport
        #: What open_session asked of the user context (the runtime refused what BiDi cannot set).
        self.context = context or ContextOptions()
        self.endpoint = endpoint
        self.browser: Firefox | None = None
        self.user_context: str | None = None
        self.tabs = Tabs()
        self.console = ConsoleBook()
        self.network = NetworkBook()
        #: route / unroute / route_queue (:mod:`.records.routes`): idle until the first route.
        self.routes = Routes(self, origins)
        #: Open dialogs by tab context, the policy, and the dialogs answered by it since the last result.
        self.dialogs: dict[str, Prompt] = {}
        # The operator's policy, failing closed where it needs a person: firefox has no
        # human channel, so ask-human dismisses (never accepts) what nobody can answer.
        self.dialog_policy = "dismiss" if dialogs == "ask-human" else dialogs or "ask"
        self.answered: list[dict[str, str]] = []
        #: Navigation events of this session's tabs: (context, event name, url), newest last.
        self.page_events: list[tuple[str, str, str]] = []
        #: The browser's events, sorted for this session (:mod:`.events`).
        self.events = SessionEvents(self)
        self._unlisten: Callable[[], None] | None = None
        #: What the pages downloaded, saved under <workspace>/downloads/<session>/.
        self.downloads = FirefoxDownloads(workspace.resolve() / "downloads" / safe_filename(session_id, "session"),
                                          download_max_bytes, confirm)
        #: canvas_capture's captures, for canvas_diff by id.
        self.canvas_cache = CaptureCache()
        #: What emulate set, by JSON name (applied to the whole user context).
        self.emulation: JsonObject = {}
        #: Names given to elements (name_ref), resolved before every call that takes a ref (run_tool).
        self.named_refs = NamedRefBook()
        #: No isolated world made over CDP: await_human answers no-human-channel (or asks the operator).
        self.human = None

    # -- start and stop ----------------------------------------------------------------

    @property
    def bidi(self) -> BidiConnection:
        assert self.browser is not None, "the session has not started"
        return self.browser.bidi

    @property
    def own_browser(self) -> bool:
        """In a Firefox of its own (a profile folder, a proxy's credentials: ``own_firefox.py``)."""
        return own_firefox.runs_its_own(self.context) and self.endpoint is None

    async def on_start(self) -> None:
        startup: list[str] = []
        if self.endpoint is not None:
            self.browser = await self.nursery.start(hold_attached, self.endpoint)
        elif self.own_browser:
            self.browser = await own_firefox.start_own(self, *self._firefox_to_run)
        else:
            self.browser = await self._pool().call(AcquireFirefox(), timeout=90)
        bidi = self.bidi
        self._unlisten = bidi.listen(self.events.on_event)
        if self.own_browser:  # its Firefox's own context, made with the options at start
            startup = await own_firefox.startup_tabs(self)
            self.user_context = own_firefox.DEFAULT_USER_CONTEXT
        else:
            made: JsonObject = {"acceptInsecureCerts": True} if self.context.ignore_https_errors else {}
            proxy = self.context.bidi_proxy()
            if proxy is not None:
                made["proxy"] = proxy
            self.user_context = str((await bidi.send("browser.createUserContext", made))["userContext"])
        await emulation.start_with(self, self.context)  # before the first tab: it opens emulated
        await sandbox.preload(bidi, self.user_context)
        if self.context.block_service_workers:  # before any page script can register one
            await bidi.send("script.addPreloadScript", {"functionDeclaration": init_script.BLOCK_SERVICE_WORKERS,
                                                        "userContexts": [self.user_context]})
        if self.context.init_script is not None:  # the page's realm (no sandbox), before its scripts
            await self._preload_init_script(self.context.init_script)
        await self._join_proxy_auth()  # before the first request: the proxy's challenge answered
        if self.context.permissions:
            self.grants = OriginGrants(bidi, self.user_context, self.context.permissions, self.nursery)
        await collect(bidi, self.user_context)  # before the first request: bodies for network_body
        await self.downloads.enable(self)
        if self.routes.policy.active:  # in the intercept before the first tab: no request slips past the policy
            await self.routes.installed()
            await self.routes.sync()
        created = await bidi.send("browsingContext.create", {"type": "tab", "userContext": self.user_context})
        tab = self.tabs.add(str(created["context"]), ours=True)
        await own_firefox.close_startup_tabs(self, startup)
        await self.size(tab.context)
        if self.context.storage_state is not None:  # before the agent's first call: it opens signed in
            await webstorage.load_at_start(self, self.context.storage_state)
        self.nursery.start_soon(self._watch_browser, self.browser)

    async def _join_proxy_auth(self) -> None:
        proxy = self.context.proxy
        if proxy is not None and "username" in proxy and self.browser is not None:
            self.proxy_auth = ProxyAuth(self.bidi, self.owns, self.nursery, proxy["username"],
                                        proxy.get("password", ""))
            await self.browser.auth_interceptor.join(self.proxy_auth)

    async def _preload_init_script(self, relative: str) -> None:
        source = await init_script.read(self.workspace, relative)
        try:
            await self.bidi.send("script.addPreloadScript", {"functionDeclaration": init_script.as_function(source),
                                                             "userContexts": [self.user_context]})
        except BidiError as err:  # a syntax error, as Firefox words it
            raise ToolError("bad-arg", f"Firefox refused initScript: {err.message or err.error}",
                            field="initScript") from err

    async def on_stop(self) -> None:
        if self._unlisten is not None:
            self._unlisten()
        self.downloads.close()
        if self.browser is None or self.browser.lost.is_set() or self.user_context is None:
            return
        # Held requests are let go while their tabs still exist (not failed by the removal).
        with trio.CancelScope(shield=True):
            await self.routes.close()
            if self.proxy_auth is not None:
                await self.browser.auth_interceptor.leave(self.proxy_auth)
        if self.own_browser:  # its Firefox quits, writing what the pages stored to a kept profile
            await own_firefox.quit_browser(self)
            return
        # The browser going or gone leaves nothing of ours to close.
        with trio.CancelScope(shield=True), trio.move_on_after(5), contextlib.suppress(BidiFailure):
            await self.bidi.send("browser.removeUserContext", {"userContext": self.user_context}, timeout=5)

    async def _watch_browser(self, browser: Firefox) -> None:
        await browser.lost.wait()
        if self.quitting:
            return
        lost = BrowserLost(self.session_id, browser.lost_reason)
        self._mark_crashed(lost)
        raise lost

    @property
    def interceptor(self) -> Interceptor:
        """The connection's shared network intercept (routes, :mod:`.records.intercept`)."""
        assert self.browser is not None, "the session has not started"
        return self.browser.interceptor

    def owns(self, context: str) -> bool:
        """Whether ``context`` is one of this session's tabs or their frames (for routes)."""
        return self.tabs.of(self.events.top_of(context)) is not None

    async def size(self, context: str) -> None:
        width, height = self.viewport
        params: JsonObject = {"context": context, "viewport": {"width": width, "height": height}}
        if self.context.device_scale_factor is not None:
            params["devicePixelRatio"] = self.context.device_scale_factor
        await self.bidi.send("browsingContext.setViewport", params)

    # -- dialogs and news ------------------------------------------------------------

    async def answer(self, context: str, accept: bool, text: str | None) -> None:
        params: JsonObject = {"context": context, "accept": accept}
        if text is not None:
            params["userText"] = text
        try:
            await self.bidi.send("browsingContext.handleUserPrompt", params, timeout=self.left())
        except BidiError as err:
            if err.error != "no such alert":  # answered meanwhile (the page went): nothing to answer
                raise
        self.dialogs.pop(context, None)

    async def news(self, timeout: float) -> bool:
        """Wait up to ``timeout`` s for the next event of this session; whether one came."""
        return await self.events.news(timeout)

    # -- what handlers use -------------------------------------------------------------

    @property
    def tab(self) -> Tab:
        """The current tab; refused when the session has none."""
        tab = self.tabs.current
        if tab is None:
            raise ToolError("target-not-found", "the session has no open tab; new_tab opens one")
        return tab

    def left(self) -> float:
        """How long one command of the call in hand may take."""
        remaining = self.deadline - trio.current_time()
        return COMMAND_SECONDS if math.isinf(remaining) else max(0.05, min(COMMAND_SECONDS, remaining))

    async def agent(self, method: str, arg: JsonValue = None) -> JsonValue:
        """One call of the page agent's ``method`` in the current tab's sandbox, or in the
        frame its ref or scope names (:func:`.frames.route`)."""
        return await frames.route(self, method, f"(agent, a) => agent[{method!r}](a)", arg)

    async def in_sandbox(self, fn: str, arg: JsonValue = None) -> JsonValue:
        """``fn(agent, arg)`` (JavaScript source) in the current tab's sandbox, or in the
        frame ``arg["ref"]`` names."""
        return await frames.route(self, "", fn, arg)

    @property
    def url(self) -> str:
        tab = self.tabs.current
        return "" if tab is None else tab.url

    def ref_was_shown(self, ref: str) -> bool:
        return False  # refs are told apart by the agent of each document; see the module notes

    # -- the session's hooks (sessions/session.py) -------------------------------------

    async def perform(self, tool: str, work: Work, args: object) -> object:
        tab = self.tabs.current
        if tab is not None and tool not in DIALOG_FREE:
            pending = self.dialogs.get(tab.context)
            if pending is not None:
                raise dialog_refusal(pending, tab.id, tool)
        blocked = self.routes.blocked.total
        with trio.CancelScope() as scope:
            self.events.in_flight = (scope, tab.context) if tab is not None else None
            try:
                result = await work(self, args)
            finally:
                self.events.in_flight = None
        if scope.cancelled_caught:
            assert tab is not None
            return interrupted_reply(self.dialogs.get(tab.context), tool, tab.url)
        if self.answered and isinstance(result, Reply):
            result["dialogs"], self.answered = self.answered, []
        return self.routes.blocked.told(result, blocked)

    # Any: as the base's (a table line's tool and handler).
    async def run_tool(self, tool: Tool[Any], handler: Handler[Any, Any], args: Arguments) -> object:
        return await run_with_named_refs(self, tool, handler, args)

    def fatal(self, exc: BaseException) -> bool:
        return isinstance(exc, BrowserLost)

    async def guard(self, tool: str, work: Callable[[], Awaitable[object]]) -> object:
        """A call that failed because Firefox went away waits for the loss to end the session."""
        try:
            return await work()
        except BidiConnectionLost:
            assert self.browser is not None
            with trio.move_on_after(2):
                await self.browser.lost.wait()
                await trio.sleep_forever()  # the watcher ends the session with BrowserLost
            raise

    async def explain(self, tool: str, args: object, exc: Exception) -> ToolError | None:
        if isinstance(exc, BidiTimeout):
            return ToolError("timeout", f"{tool}: Firefox did not answer {exc.method} in time")
        if isinstance(exc, BidiError) and exc.error == "no such frame":
            return ToolError("tab-closed", f"the tab closed during {tool}; list_tabs shows the open tabs")
        if isinstance(exc, BidiError):
            return ToolError("page-error", f"{tool}: {exc.error}: {exc.message.splitlines()[0] if exc.message else ''}")
        if isinstance(exc, PageScriptError):
            return ToolError("page-error", f"{tool}: {first_line(exc)}")
        return None

    def describe(self) -> dict[str, object]:
        tab = self.tabs.current
        described: dict[str, object] = {
            "id": self.session_id, "engine": self.engine, "url": None if tab is None else tab.url,
            "browserGeneration": None if self.browser is None else self.browser.generation,
            "browserVersion": None if self.browser is None else self.browser.version,
            "attached": None if self.endpoint is None else redact_url(self.endpoint),
            "ageSeconds": round(trio.current_time() - self.started_at, 3)}
        if self.own_browser:  # a Firefox of its own, outside the pool's
            described["ownBrowser"] = {"pid": None if self.browser is None else self.browser.pid,
                                       "userDataDir": self.context.user_data_dir}
        return described
