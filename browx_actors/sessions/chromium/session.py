"""The chromium session actor: one isolated browser context and its tabs.

A session owns a Playwright ``BrowserContext`` (its own cookies and storage) in the
pool's browser, the pages in it as tabs (:mod:`.tabs`; tools act on the current one),
and one raw CDP flat session to each tab (:mod:`.tabs.wiring`), attached as the tab opens
(:mod:`.tabs.lifecycle`), for what Trio must own: the console and network records
(:mod:`.tabs.events`), screenshots, titles, the human bridge, emulation and routes. It
is a :class:`~browx_actors.sessions.session.Session`: calls run one at a time, in order,
each under its deadline; a tool that waits long returns
:class:`~browx_actors.kernel.actor.Later` so the mailbox keeps serving. How it comes up
in its browser (attached, on a profile of its own, or in the pool's) and how it leaves
it is :mod:`.start_stop`.

The session watches its browser. When Chromium dies, it fails every waiting caller at
once with :class:`~.losses.BrowserLost` as the cause and ends (:mod:`.guard`, which
also turns a call whose page or tab went away into its answer).

**The call is the boundary of a handler's failure** (``sessions/session.py``): a bug
would otherwise cost the agent its page, its logged-in state and its tabs for one bad
argument (an invalid selector, a file name the OS refuses). An exception a handler
raises fails that call (``bad-arg`` or ``timeout`` when it is about the caller's input,
see ``failures.py``; ``tab-closed`` or ``tab-crashed`` when the page went away under it,
see ``losses.py``; ``internal`` otherwise) and the session serves the next one. The
session's state stays consistent across such a failure in the cases that matter:

- what the session owns lives in the browser (the context, its pages and their
  documents), which keeps its own state whole whatever a client did half-way; a
  handler that fails mid-action leaves a page in a state an agent re-reads
  (``snapshot``) exactly as it would after the page changed by itself;
- what the actor keeps beside it (the tab set, each tab's CDP session, the console
  and request logs, counters) is changed in single steps, each after the thing it
  records has happened (a tab's CDP session is stored only once attached; tabs
  change on the Playwright thread in one event handler), so no handler leaves it
  half-written when it raises between two awaits.

What breaks the actor itself still crashes it: its browser dying
(:class:`~.losses.BrowserLost`), its own tasks failing (the browser watcher, the human
bridge), ``on_start``, cancellation from outside, and ``MemoryError``.

**A crashed renderer** (Playwright's ``crash`` event, CDP's ``Inspector.targetCrashed``)
marks its tab ``crashed``: ``list_tabs`` shows it, the call that was running fails with
``tab-crashed``, and so does every later call on that tab but the ones that can help:
``navigate`` puts a fresh page in the tab's place (same id, :mod:`.tabs.lifecycle`) and
loads the URL, as a browser's reload of a crashed tab does; ``list_tabs``,
``select_tab`` and ``close_tab`` work as ever. Playwright refuses every call on a
crashed page, ``goto`` included, so the page itself cannot be reused.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import trio
from playwright.async_api import BrowserContext

from ...canvas.cache import CaptureCache
from ...cdp import CdpConnection, CdpError
from ...errors import ToolError
from ...human.await_human import ask_person
from ...human.bridge import HumanBridge
from ...jsonsafe import JsonObject, JsonValue
from ...kernel.actor import Later
from ...kernel.actor_ref import ActorRef
from ...streams.source import FrameSource
from ...tools import Arguments, Handler, Reply, Table, Tool
from ...tools.human import PromptSpec
from ..session import Session, Work
from . import guard, start_stop
from .agent.pageagent import AGENT_CALL, AGENT_SOURCE, normalize_ref
from .bridge.driver import PlaywrightDriver
from .bridge.portal import Portal
from .dialogs.asking import ask_about_dialog
from .dialogs.book import DialogBook, dialog_refusal, interrupted_reply
from .failures import known_failure, refuse_unusable_selectors
from .frames import calls as frame_calls
from .losses import BrowserLost, PageScriptError
from .network.redact import redact_url
from .network.routes import Routes
from .on_page import DIALOG_EXEMPT, run_on_page
from .options import SessionOptions
from .page.downloads import Downloads, safe_filename
from .page.emulation import Emulation
from .page.permissions import Permissions
from .pool import Browser
from .reading.name_book import NamedRefBook
from .reading.resolve import run_with_named_refs
from .tabs.events import PageEvents, Pulse
from .tabs.exits import way_in
from .tabs.lifecycle import TabLifecycle
from .tabs.screencast import LiveViewers
from .tabs.tabset import TabSet
from .tabs.wiring import TargetWiring
from .warmup import SelectorWarmup

if TYPE_CHECKING:
    from .frames.book import FrameBook

__all__ = ["DIALOG_EXEMPT", "ChromiumSession"]

T = TypeVar("T")


class ChromiumSession(Session):
    engine = "chromium"

    def __init__(
        self,
        session_id: str,
        *,
        table: Table,
        pool: Callable[[], ActorRef],
        driver: PlaywrightDriver,
        options: SessionOptions = SessionOptions(),  # noqa: B008 (frozen: one default serves all)
        workspace: Path = Path(".browx"),
    ) -> None:
        super().__init__(session_id, table=table, workspace=workspace)
        self._pool = pool
        self.driver = driver
        self.options = options
        self.browser: Browser | None = None
        #: The session's Playwright context (None until it starts).
        self.context: BrowserContext | None = None
        #: The session's pages; tools act on ``tabs.current`` (see :attr:`page`).
        self.tabs = TabSet()
        #: Opens, adopts, wires, replaces and forgets the tabs (:mod:`.tabs.lifecycle`).
        self.tab_lifecycle = TabLifecycle(self)
        #: Fired on the Playwright thread when a tab opens or closes, a main frame
        #: navigates or a request ends: waiters there re-check what they wait for.
        self.page_moved = Pulse()
        #: Console and network records of every tab, and the counters settle reads.
        self.events = PageEvents(self.page_moved, record=options.record_page_events)
        self.console = self.events.console
        self.requests = self.events.requests
        #: Main-frame navigations so far (counted on the Playwright thread).
        self.navigations = 0
        #: Each tab's one raw flat session (set up when the browser is acquired).
        self.wiring: TargetWiring | None = None
        #: What the pages downloaded, saved under <workspace>/downloads/<session>/.
        self.downloads = Downloads(workspace.resolve() / "downloads" / safe_filename(session_id, "session"),
                                   options.download_max_bytes)
        #: Lets the Playwright thread await Trio (an action's settle reading the page).
        self.portal: Portal | None = None
        self.secrets: dict[str, str] = {}
        #: JavaScript dialogs: the policy, the open one per tab, the auto-answered ones.
        self.dialogs = DialogBook(on_ask=self._ask_about_dialog)
        #: The highest ref number any result has shown the agent, on any page: a ref
        #: above it was never issued (``unknown-ref``), one below is from an earlier
        #: document or element (``stale-element``).
        self.refs_shown = 0
        #: Releases (a button up, a touchcancel) written while a dialog blocked the page,
        #: each set once the browser acked it: handle_dialog waits for them, so that when
        #: it answers, the page has been let go of (``input/send.py``: ``release_input``).
        self.releases_in_flight: set[trio.Event] = set()
        #: The isolated-world bridge await_human answers through (None: no human channel).
        self.human: HumanBridge | None = None
        #: Canvas captures behind captureId (canvas_capture keeps them for canvas_diff).
        self.canvas_cache = CaptureCache()
        #: Names given to elements with name_ref, for the whole session (every tab).
        self.named_refs = NamedRefBook()
        #: The session's routes (``network/routes.py``) and emulation (``page/emulation.py``);
        #: each joins the tabs' setup on its first use.
        self.routes = Routes(self, options.origins)
        self.emulation = Emulation(self)
        #: The permission policy and the gate that hears the pages' requests (``page/permissions.py``).
        self.permissions = Permissions(self)
        #: Each tab's frame ids (fN), by the tab's target id (``frames/tree.py``).
        self.frame_books: dict[str, FrameBook] = {}
        #: Live-view streams watching this session, and the screencast of its current tab.
        self.viewers = LiveViewers(self)
        #: Playwright's selectors warmed in a new document while the agent reads (:mod:`.warmup`).
        self.warmup = SelectorWarmup(self)

    # -- the current tab --------------------------------------------------------------

    # Any: the current tab's Playwright Page, None with no tab open. A handler runs
    # after attach_current made sure of a tab and uses it unchecked; as Page | None,
    # every one of them would need a check for what cannot happen there.
    @property
    def page(self) -> Any:
        tab = self.tabs.current
        return None if tab is None else tab.page

    @property
    def url(self) -> str:
        """The current tab's URL (empty while the session has none)."""
        page = self.page
        return "" if page is None else str(page.url)

    # Any: the current tab's TargetLink, None before it is wired; used unchecked by
    # the handlers, as ``page`` is (see there).
    @property
    def cdp(self) -> Any:
        """The raw CDP flat session to the current tab."""
        tab = self.tabs.current
        return None if tab is None else tab.cdp

    @property
    def context_id(self) -> str | None:
        """The CDP id of the session's browser context (None before its first tab is wired)."""
        return self.tab_lifecycle.context_id

    @property
    def target_id(self) -> str | None:
        tab = self.tabs.current
        return None if tab is None else tab.target_id

    def browser_cdp(self) -> CdpConnection:
        """The browser's own CDP connection (permissions are set there)."""
        assert self.browser is not None
        return self.browser.cdp

    # -- a person, for the policies -----------------------------------------------------

    async def ask_person(self, spec: PromptSpec) -> JsonObject:
        """Ask through the operator channel or the isolated world, and wait for the end."""
        return await ask_person(self, spec, operator=self.options.operator())

    # Any: the dialog's Playwright Page (None when it has none), as the dialog book keys it.
    def _ask_about_dialog(self, page: Any) -> None:
        self.nursery.start_soon(ask_about_dialog, self, page)

    # -- running Playwright from Trio -------------------------------------------------

    async def pw(self, fn: Callable[..., Awaitable[T]], *args: object, **kwargs: object) -> T:
        """Await a Playwright coroutine on the driver thread; cancellation reaches it."""
        if kwargs:
            fn = functools.partial(fn, **kwargs)
        return await self.driver.bridge.run(fn, *args)

    async def evaluate(self, expression: str) -> JsonValue:
        """Evaluate ``expression`` in the current tab's main world; its JSON value.

        Over raw CDP: one socket hop, where Playwright's evaluate also crosses its
        driver process. When the tab is between two documents (no context to run in),
        Playwright's evaluate, which waits for the next one, runs it instead. An
        exception the script throws raises :class:`~.losses.PageScriptError` with the page's
        message (Playwright's path raises its own ``Error`` with the same text).
        """
        try:
            reply = await self.cdp.send("Runtime.evaluate", {"expression": expression, "returnByValue": True})
        except CdpError:
            return await self.pw(self.page.evaluate, expression)
        if "exceptionDetails" in reply:
            details = reply["exceptionDetails"]
            raise PageScriptError(details.get("exception", {}).get("description") or details.get("text", ""))
        return reply["result"].get("value")

    async def agent(self, method: str, arg: JsonValue = None) -> JsonValue:
        """Call the page agent's ``method(arg)`` in the page's main world; a call whose
        ref (or scope) is a frame's (``f2e5``) goes to that frame's agent, and a
        snapshot of the page takes its frames in (:mod:`.frames.calls`)."""
        in_frame = frame_calls.routes_to_frame(method, arg)
        if in_frame is not None:
            return await frame_calls.call_in_frame(self, method, arg, in_frame)
        call = f"({AGENT_CALL})({json.dumps([method, arg])})"
        result = await self.evaluate(call)
        if isinstance(result, dict) and result.get("__browxMissing"):
            await self.evaluate(AGENT_SOURCE)
            result = await self.evaluate(call)
        if method == "snapshot":
            result = await frame_calls.with_frames(self, result, arg)
        return result

    # -- lifecycle --------------------------------------------------------------------

    @property
    def attached(self) -> bool:
        """Attached to a browser elsewhere, shared with others (``open_session({cdpEndpoint})``)."""
        return self.options.cdp_endpoint is not None

    @property
    def persistent(self) -> bool:
        """On a profile folder of its own, in a Chromium of its own (``open_session({userDataDir})``)."""
        return self.options.context.user_data_dir is not None and not self.attached

    async def on_start(self) -> None:
        """Come up in the browser, with the first tab (:mod:`.start_stop`)."""
        await start_stop.start(self)

    async def on_stop(self) -> None:
        """Close what is the session's own in the browser (:mod:`.start_stop`)."""
        await start_stop.stop(self)

    # -- the session's hooks (sessions/session.py) -------------------------------------

    async def watch(self, stream: ActorRef) -> FrameSource | None:
        return await guard.unless_browser_lost(self, self.viewers.watch, stream)

    async def perform(self, tool: str, work: Work, args: object) -> object:
        if isinstance(args, Arguments):  # an nth= that is no index matches nothing: refused first
            refuse_unusable_selectors(args.json())
        self.warmup.call_started()
        blocked = self.routes.blocked.total
        try:
            return self.routes.blocked.told(await self._run_call(tool, work, args), blocked)
        finally:
            self.warmup.call_ended()
            self.viewers.check_current()

    # Any: as the base's (a table line's tool and handler).
    async def run_tool(self, tool: Tool[Any], handler: Handler[Any, Any], args: Arguments) -> object:
        return await run_with_named_refs(self, tool, handler, args)

    def later(self, tool: str, wait: Later) -> Later:
        # A wait that outlives the handler is cut short by a dialog like any call.
        return Later.of(self._until_dialog, tool, wait.fn, *wait.args)

    def fatal(self, exc: BaseException) -> bool:
        return isinstance(exc, BrowserLost)

    async def guard(self, tool: str, work: Callable[[], Awaitable[object]]) -> object:
        """A call whose page, tab or browser went away under it says which (:mod:`.guard`)."""
        return await guard.guard(self, tool, work)

    async def explain(self, tool: str, args: object, exc: Exception) -> ToolError | None:
        # By JSON name: the failure names the argument that holds the bad selector (a
        # ToolError too, when its handler could only say "selector").
        given = args.json() if isinstance(args, Arguments) else {}
        return known_failure(tool, given, exc)

    async def _until_dialog(self, tool: str, fn: Callable[..., Awaitable[object]], *args: object) -> object:
        page = self.page
        with self.dialogs.interruptible(page):
            return await fn(*args)
        return interrupted_reply(self.dialogs.open_on(page), tool, None if page is None else page.url)

    async def _run_call(self, tool: str, work: Work, args: object) -> object:
        """Run the tool, unless its tab crashed or a dialog blocks it; a dialog that opens
        meanwhile interrupts it (an action reports that itself, with its own result)."""
        async with way_in(self, tool, page_free=tool in DIALOG_EXEMPT) as notes:
            result = await run_on_page(self, tool, work, args)
        if isinstance(result, Reply):
            for note in notes:
                result.warn(note)
        return result

    def ref_was_shown(self, ref: str) -> bool:
        """Did a result of this session ever show ``ref`` (on this page or an earlier one)?"""
        normal = normalize_ref(ref)
        return normal is not None and int(normal[1:]) <= self.refs_shown

    def refuse_if_dialog(self, tool: str) -> None:
        """``dialog-open`` when a dialog blocks the current tab, naming the way out."""
        pending = self.dialogs.open_on(self.page)
        if pending is not None:
            tab = self.tabs.current
            raise dialog_refusal(pending, tab.id if tab is not None else None, tool, self.dialogs.looping(self.page),
                                 asking=self.dialogs.policy == "ask-human")

    def interrupted_by_dialog(self, tool: str) -> Reply:
        """What a call answers when a dialog opened under it and blocked the page."""
        return interrupted_reply(self.dialogs.open_on(self.page), tool,
                                 None if self.page is None else self.page.url)

    # -- helpers for tools ------------------------------------------------------------

    def describe(self) -> dict[str, object]:
        described: dict[str, object] = {
            "id": self.session_id,
            "engine": self.engine,
            "url": None if self.page is None else self.page.url,
            "targetId": self.target_id,
            "browserGeneration": None if self.browser is None else self.browser.generation,
            "attached": None if self.options.cdp_endpoint is None else redact_url(self.options.cdp_endpoint),
            "ageSeconds": round(trio.current_time() - self.started_at, 3),
        }
        if self.persistent:  # a browser of its own, outside the pool's
            described["ownBrowser"] = {"pid": None if self.browser is None else self.browser.pid,
                                       "userDataDir": self.options.context.user_data_dir}
        return described
