"""What a supervisor is made of and what it is told: child specs, restart types and
strategies, the event log it writes, and the messages it answers.

Plain data, kept apart from the :class:`~browx_actors.kernel.supervisor.Supervisor` actor so
that the owner of a supervisor (the runtime) can build specs and read answers without
the actor's machinery, and the actor's module holds only the OTP rules.
"""

from __future__ import annotations

import enum
from collections import deque
from collections.abc import Callable, Mapping

import attrs
import trio

from .actor import Actor
from .actor_ref import ActorStatistics, ActorUnavailable

__all__ = [
    "REASON_LIMIT",
    "ChildGone",
    "ChildInfo",
    "ChildSpec",
    "EventLog",
    "ForgetChild",
    "LookupChild",
    "Restart",
    "StartChild",
    "Strategy",
    "SupervisorEscalation",
    "SupervisorEvent",
    "TerminateChild",
    "WhichChildren",
]


class Restart(enum.Enum):
    PERMANENT = "permanent"
    TRANSIENT = "transient"
    TEMPORARY = "temporary"


class Strategy(enum.Enum):
    ONE_FOR_ONE = "one_for_one"
    ONE_FOR_ALL = "one_for_all"
    REST_FOR_ONE = "rest_for_one"


class SupervisorEscalation(Exception):
    """Raised by a supervisor whose children restarted too often; its parent decides."""


@attrs.frozen
class ChildSpec:
    """How to (re)start one child: ``factory`` builds a fresh actor for every start."""

    id: str
    factory: Callable[[], Actor]
    restart: Restart = Restart.PERMANENT
    #: Seconds a graceful stop may take before the child is cancelled.
    shutdown: float = 5.0
    #: Whatever the owner wants to read back in :class:`ChildInfo` (never interpreted).
    meta: Mapping[str, object] = attrs.field(factory=dict)


@attrs.frozen
class SupervisorEvent:
    """One line of the tree's history: ``kind`` is started, exited, restarted,
    restart-failed, stopped or escalated."""

    at: float
    supervisor: str
    child: str
    kind: str
    reason: str = ""


#: The longest ``reason`` an event keeps: an exit's reason is its exception's repr, which
#: can quote megabytes, and the history is read back whole (``runtime_status``).
REASON_LIMIT = 2_000


class EventLog:
    """A bounded history of supervisor events plus restart counts per child."""

    def __init__(self, maxlen: int = 500) -> None:
        self.events: deque[SupervisorEvent] = deque(maxlen=maxlen)
        self.restarts: dict[str, int] = {}
        self._changed = trio.Event()

    def emit(self, supervisor: str, child: str, kind: str, reason: str = "") -> None:
        if len(reason) > REASON_LIMIT:
            reason = reason[:REASON_LIMIT - 1] + "\u2026"
        self.events.append(SupervisorEvent(trio.current_time(), supervisor, child, kind, reason))
        if kind == "restarted":
            key = f"{supervisor}/{child}"
            self.restarts[key] = self.restarts.get(key, 0) + 1
        self._changed.set()
        self._changed = trio.Event()

    async def wait_for(self, predicate: Callable[[SupervisorEvent], bool]) -> SupervisorEvent:
        """Wait until an event matching ``predicate`` has been emitted (past or future)."""
        while True:
            for event in self.events:
                if predicate(event):
                    return event
            await self._changed.wait()


# -- messages -------------------------------------------------------------------------


@attrs.frozen
class StartChild:
    spec: ChildSpec


@attrs.frozen
class TerminateChild:
    id: str


@attrs.frozen
class WhichChildren:
    pass


@attrs.frozen
class LookupChild:
    """The ref of a running child, or why it is gone.

    Answers the child's :class:`ActorRef` while it runs; for a temporary child that
    ended abnormally, once, :class:`ChildGone` with the failure it died of (so the
    first caller after a crash hears why, and the id is free again); else None.
    With ``obituary=False`` it only asks: a child that is not running answers None and
    its obituary stays for the caller it is meant for.
    """

    id: str
    obituary: bool = True


@attrs.frozen
class ForgetChild:
    """A temporary child whose end its owner has already reported: wait (briefly) for it
    to finish, then forget it and its obituary, so the next lookup finds nothing."""

    id: str


@attrs.frozen
class ChildGone:
    id: str
    failure: ActorUnavailable | None


@attrs.frozen
class ChildInfo:
    id: str
    name: str
    restart: str
    alive: bool
    #: The child's load (its ref's statistics), so backpressure shows in status.
    statistics: ActorStatistics | None = attrs.field(default=None, eq=False)
    #: What the child spec carries for its owner (the session's engine, say).
    meta: Mapping[str, object] = attrs.field(factory=dict)
