"""The session actor both native engines share: a leased device, a hierarchy source, an
input driver, a lifecycle, and the session's ref book.

:class:`NativeSession` is the part of an android-app or ios-app session that does not
depend on the platform: it answers :class:`~browx_actors.sessions.contract.SessionCall`
(each call under its own deadline, which every device command takes its timeout from)
and :class:`~browx_actors.sessions.contract.Describe`, holds the device lease for as
long as it lives, reads a fresh hierarchy whenever a tool asks (:meth:`read`), and
explains the tools its engine refuses (:meth:`refusal`). An engine subclasses it and, in
:meth:`connect`, resolves its device and sets :attr:`source`, :attr:`driver` and
:attr:`lifecycle`.

Connecting happens after the actor has started, in its own nursery: finding, leasing and
booting a device can take minutes, and an actor's start runs inside the session
supervisor, which every lookup of every session waits on. Calls wait until the session
is connected; :class:`~browx_actors.sessions.contract.AwaitReady` (what the runtime's
``open_session`` asks) answers then, with the description or the error that stopped it.

Nothing read from the screen is kept between calls except the ref book: every action
re-reads the hierarchy, resolves its target in that read and acts at the point the read
gave (see :mod:`.target`).
"""

from __future__ import annotations

import abc
import contextlib
import math
from collections.abc import Awaitable, Callable, Mapping
from pathlib import Path
from typing import Any

import trio

from ...devices.leases import AcquireDevice, hold_lease
from ...errors import ToolError
from ...kernel.actor import Actor, CallFailed, Later
from ...kernel.actor_ref import ActorRef, ActorUnavailable
from ...streams.messages import SessionEnding, WatchFrames
from ...streams.source import FrameSource
from ...visualtree.snapshots import SnapshotBook
from ..contract import AwaitReady, Describe, SessionCall
from .platform import Budget, HierarchySource, InputDriver, NativeLifecycle
from .refs import Hierarchy, RefBook
from .refusals import refusal_for

__all__ = ["CONNECT_SECONDS", "DEFAULT_CALL_SECONDS", "NativeSession"]

#: A call without a deadline of its own (a test calling in directly) gets this long.
DEFAULT_CALL_SECONDS = 120.0
#: How long connecting may take: finding, leasing and (on iOS) booting the device.
CONNECT_SECONDS = 300.0
#: The tools that act on the screen: find_feedback's ``new`` is against what the last of
#: them read before it acted (or the last read before it began, when it read nothing).
ACTIONS = frozenset({"click", "fill", "press", "scroll", "navigate", "go_back", "gesture_swipe", "gesture_pinch",
                     "touch_start", "touch_move", "touch_end", "app_launch", "app_terminate", "app_reset"})


async def _as_call(fn: Callable[..., Awaitable[Any]], *args: Any) -> Any:
    """Run one call's work with the call as the boundary of its failure: a handler's
    exception (a driver's reply it did not expect, a bug in one tool) fails that call
    with ``internal`` and the session serves on, as on the chromium engine: one bad
    call must not cost the agent its device lease and its refs. Memory exhaustion
    still ends the actor."""
    try:
        return await fn(*args)
    except (ToolError, MemoryError):
        raise
    except Exception as exc:
        raise CallFailed(exc) from exc


class NativeSession(Actor, abc.ABC):
    """What android-app and ios-app sessions share. Subclasses set :attr:`engine`,
    :attr:`platform` and implement :meth:`connect`."""

    engine = "native"
    #: The device registry's platform name (``android``, ``ios``).
    platform = "native"

    def __init__(
        self,
        session_id: str,
        *,
        registry: Callable[[], ActorRef],
        workspace: Path = Path(".browx"),
        secrets: Callable[[], Mapping[str, str]] = dict,
    ) -> None:
        super().__init__(f"session:{session_id}")
        self.session_id = session_id
        self.workspace = workspace
        self._registry = registry
        #: This session's registered secrets (fill types their aliases literally).
        self.own_secrets = secrets
        self.refs = RefBook()
        #: The ui.* tools' captures: revisions and what makes a reference stale (native/visual.py).
        self.visual_snapshots = SnapshotBook()
        self.budget = Budget()
        #: No isolated world: await_human answers no-human-channel (or asks the operator).
        self.human = None
        self.source: HierarchySource | None = None
        self.driver: InputDriver | None = None
        self.lifecycle: NativeLifecycle | None = None
        #: What the session drives, as describe() shows it.
        self.device: dict[str, Any] = {}
        self.app_under_test: str | None = None
        self.lease: ActorRef | None = None
        #: Raw touch points that are down (touch_start to touch_end): id -> where.
        self.touches: dict[int, tuple[float, float]] = {}
        self.started_at = trio.current_time()
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

    async def _until_ready(self) -> None:
        """Wait for the connection; the error that stopped it, if one did."""
        await self._ready.wait()
        if self._start_error is not None:
            raise self._start_error

    @abc.abstractmethod
    async def connect(self) -> None:
        """Resolve the device, lease it (:meth:`lease_device`), set source, driver and lifecycle."""

    async def lease_device(self, device_id: str, about: Mapping[str, Any]) -> None:
        """Lease the device for this session's lifetime; refused when another session holds it."""
        acquire = AcquireDevice(f"{self.platform}:{device_id}", self.session_id, self.ref, about)
        self.lease = await self.nursery.start(hold_lease, self._registry(), acquire)

    # -- messages ---------------------------------------------------------------------

    async def handle(self, msg: Any) -> Any:
        if isinstance(msg, Describe):
            return self.describe()
        if isinstance(msg, AwaitReady):
            await self._until_ready()
            return self.describe()
        if isinstance(msg, WatchFrames):
            await self._until_ready()
            source = self.frame_source()
            if source is not None:
                self.watchers = [ref for ref in self.watchers if ref.alive and ref is not msg.stream] + [msg.stream]
            return source
        if not isinstance(msg, SessionCall):
            raise TypeError(f"{self.name} has no handler for {type(msg).__name__}")
        await self._until_ready()
        deadline = getattr(msg, "deadline", None)
        if deadline is None:
            deadline = trio.current_time() + DEFAULT_CALL_SECONDS
        self.budget.deadline = deadline
        if msg.tool in ACTIONS:
            self.action_baseline, self._action_reading = self.last_read, True
        try:
            with trio.fail_at(deadline):
                result = await _as_call(msg.fn, self, msg.args)
        except trio.TooSlowError:
            raise self._overdue(msg.tool) from None
        except CallFailed as failed:
            if trio.current_time() >= deadline:  # a driver that answered its cancellation with an error
                raise self._overdue(msg.tool) from failed.cause
            raise
        finally:
            self.budget.deadline = math.inf
            self._action_reading = False
        if isinstance(result, Later):  # a wait answered from the nursery: the same boundary
            return Later.of(_as_call, result.fn, *result.args)
        return result

    def _overdue(self, tool: str) -> ToolError:
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

    def refusal(self, tool: str) -> str | None:
        """Why this engine refuses ``tool``, naming the primitive it lacks."""
        return refusal_for(self.engine, tool)

    def describe(self) -> dict[str, Any]:
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
