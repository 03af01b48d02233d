"""The session actor both native engines share: a leased device, a hierarchy source, an
input driver, a lifecycle, and the session's ref book.

:class:`NativeSession` is the part of an android-app or ios-app session that does not
depend on the platform. It is a :class:`~browx_actors.sessions.session.Session` (each
call under its own deadline, which every device command takes its timeout from); it
holds the device lease for as long as it lives and reads a fresh hierarchy whenever a
tool asks (:meth:`read`). An engine subclasses it and, in
:meth:`connect`, resolves its device and sets :attr:`source`, :attr:`driver` and
:attr:`lifecycle`.

Connecting happens after the actor has started, in its own nursery: finding, leasing and
booting a device can take minutes, and an actor's start runs inside the session
supervisor, which every lookup of every session waits on. Calls wait until the session
is connected; :class:`~browx_actors.sessions.messages.AwaitReady` (what the runtime's
``open_session`` asks) answers then, with the description or the error that stopped it.

Nothing read from the screen is kept between calls except the ref book: every action
re-reads the hierarchy, resolves its target in that read and acts at the point the read
gave (see :mod:`.native.target`).
"""

from __future__ import annotations

import abc
import contextlib
import math
from collections.abc import Callable, Mapping
from pathlib import Path

import trio

from ...devices.leases import AcquireDevice, hold_lease
from ...errors import ToolError
from ...jsonsafe import JsonObject, JsonValue
from ...kernel.actor_ref import ActorRef, ActorUnavailable
from ...streams.messages import SessionEnding
from ...streams.source import FrameSource
from ...tools import Table
from ..session import Session, Work
from .platform import Budget, HierarchySource, InputDriver, NativeLifecycle
from .refs import Hierarchy, RefBook

__all__ = ["CONNECT_SECONDS", "NativeSession"]

#: How long connecting may take: finding, leasing and (on iOS) booting the device.
CONNECT_SECONDS = 300.0
#: The tools that act on the screen: find_feedback's ``new`` is against what the last of
#: them read before it acted (or the last read before it began, when it read nothing).
ACTIONS = frozenset({"click", "fill", "press", "scroll", "navigate", "go_back", "gesture_swipe", "gesture_pinch",
                     "touch_start", "touch_move", "touch_end", "app_launch", "app_terminate", "app_reset"})


class NativeSession(Session, abc.ABC):
    """What android-app and ios-app sessions share. Subclasses set :attr:`engine`,
    :attr:`platform` and implement :meth:`connect`."""

    engine = "native"
    #: The device registry's platform name (``android``, ``ios``).
    platform = "native"
    #: Whether ``find`` and ``verify_*`` name each node's raw type (``tag``): iOS's
    #: XCUITest type is what the coarse role table loses; Android's class is on every
    #: ``inspect`` and ``verify_attribute`` already.
    raw_types = False

    def __init__(
        self,
        session_id: str,
        *,
        table: Table,
        registry: Callable[[], ActorRef],
        workspace: Path = Path(".browx"),
        secrets: Callable[[], Mapping[str, str]] = dict,
    ) -> None:
        super().__init__(session_id, table=table, workspace=workspace)
        self._registry = registry
        #: This session's registered secrets (fill types their aliases literally).
        self.own_secrets = secrets
        self.refs = RefBook()
        self.budget = Budget()
        #: No isolated world: await_human answers no-human-channel (or asks the operator).
        self.human = None
        self.source: HierarchySource | None = None
        self.driver: InputDriver | None = None
        self.lifecycle: NativeLifecycle | None = None
        #: What the session drives, as describe() shows it.
        self.device: JsonObject = {}
        self.app_under_test: str | None = None
        self.lease: ActorRef | None = None
        #: Raw touch points that are down (touch_start to touch_end): id -> where.
        self.touches: dict[int, tuple[float, float]] = {}
        self._ready = trio.Event()
        self._start_error: ToolError | None = None
        #: Hierarchy reads so far, and the node count of the last one.
        self.reads = 0
        self.last_node_count = 0
        #: The hierarchy the last action acted on (see :data:`ACTIONS`), and the last read.
        self.action_baseline: Hierarchy | None = None
        self.last_read: Hierarchy | None = None
        self._action_reading = False
        #: Live-view streams that asked for this session's frames (told when it ends).
        self.watchers: list[ActorRef] = []

    # -- lifecycle --------------------------------------------------------------------

    async def on_start(self) -> None:
        # Connecting can take minutes (an iOS simulator's cold boot). It runs in the
        # session's own nursery, not here: on_start runs inside the session supervisor's
        # StartChild, and everything that looks a session up would wait behind it.
        self.nursery.start_soon(self._connect)

    async def _connect(self) -> None:
        self.budget.deadline = trio.current_time() + CONNECT_SECONDS
        try:
            await self.connect()
        except ToolError as err:
            self._start_error = err
        except Exception as exc:
            self._start_error = ToolError("start-failed", f"the {self.engine} session did not start: {exc!r}")
            raise  # a bug: the actor crashes with it
        finally:
            self.budget.deadline = math.inf
            self._ready.set()

    async def ready(self) -> None:
        """Wait for the connection; the error that stopped it, if one did."""
        await self._ready.wait()
        if self._start_error is not None:
            raise self._start_error

    @abc.abstractmethod
    async def connect(self) -> None:
        """Resolve the device, lease it (:meth:`lease_device`), set source, driver and lifecycle."""

    async def lease_device(self, device_id: str, about: Mapping[str, JsonValue]) -> None:
        """Lease the device for this session's lifetime; refused when another session holds it."""
        acquire = AcquireDevice(f"{self.platform}:{device_id}", self.session_id, self.ref, about)
        self.lease = await self.nursery.start(hold_lease, self._registry(), acquire)

    # -- the session's hooks (sessions/session.py) -------------------------------------

    async def watch(self, stream: ActorRef) -> FrameSource | None:
        source = self.frame_source()
        if source is not None:
            self.watchers = [ref for ref in self.watchers if ref.alive and ref is not stream] + [stream]
        return source

    async def perform(self, tool: str, work: Work, args: object) -> object:
        """Every device command of the call takes its timeout from the call's deadline; an
        action notes the screen it acts on (find_feedback's ``new`` is against it)."""
        self.budget.deadline = self.deadline
        if tool in ACTIONS:
            self.action_baseline, self._action_reading = self.last_read, True
        try:
            return await work(self, args)
        finally:
            self.budget.deadline = math.inf
            self._action_reading = False

    def overdue(self, tool: str) -> ToolError:
        return ToolError("timeout", f"{tool} did not finish before its deadline on {self.engine} "
                         f"(device {self.device.get('id')})")

    async def on_stop(self) -> None:
        # Streams watching this screen end with session-closed, not with a failed capture.
        with trio.move_on_after(1.0):
            for ref in self.watchers:
                with contextlib.suppress(ActorUnavailable):
                    await ref.cast(SessionEnding())

    def frame_source(self) -> FrameSource | None:
        """The live-view source of this device's screen; None (``view-unsupported``) when
        the engine has none. The screen is one surface: it never moves, so no stream is
        ever told ``FramesMoved``."""
        return None

    def describe(self) -> dict[str, object]:
        state = "connecting" if not self._ready.is_set() else "failed" if self._start_error else "ready"
        return {
            "id": self.session_id,
            "engine": self.engine,
            "state": state,
            "device": dict(self.device),
            "appUnderTest": self.app_under_test,
            "reads": self.reads,
            "ageSeconds": round(trio.current_time() - self.started_at, 3),
        }

    # -- what tools use ---------------------------------------------------------------

    async def read(self) -> Hierarchy:
        """A fresh read of the screen's hierarchy (never a cached one)."""
        assert self.source is not None
        root = await self.source.read()
        hierarchy = Hierarchy(root)
        if self._action_reading:  # the screen the action in progress acts on
            self.action_baseline, self._action_reading = hierarchy, False
        self.last_read = hierarchy
        self.reads += 1
        self.last_node_count = len(hierarchy)
        return hierarchy

    @property
    def input(self) -> InputDriver:
        assert self.driver is not None
        return self.driver

    @property
    def apps(self) -> NativeLifecycle:
        assert self.lifecycle is not None
        return self.lifecycle
