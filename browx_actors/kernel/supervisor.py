"""Supervisors: actors that start, watch and restart other actors, after Erlang/OTP.

A :class:`Supervisor` runs each child actor in its own cancel scope inside the
supervisor's nursery. When a child's task ends, the supervisor learns it through its
own mailbox (so exits, restarts and dynamic start/stop requests are handled one at a
time, in order) and applies the OTP rules:

* restart type: ``permanent`` children are always restarted, ``transient`` ones only
  after an abnormal exit (an exception), ``temporary`` ones never;
* strategy: ``one_for_one`` restarts just the child that exited; ``one_for_all`` stops
  every other child (reverse start order) and restarts them all (in start order);
  ``rest_for_one`` does the same for the exited child and the ones started after it.
  Temporary children stopped this way are not restarted, as in OTP.
* intensity: more than ``intensity`` restarts within ``period`` seconds means the
  failure is not transient. The supervisor stops all children in reverse start order
  and crashes with :class:`SupervisorEscalation`, so its own parent decides.

Stopping a child is graceful first (``Actor.stop``: no more messages, then
``on_stop``) and forced after the child spec's ``shutdown`` grace (its cancel scope is
cancelled). Every exit and restart is appended to an :class:`EventLog` that the runtime
reports.

A *dynamic* supervisor (children added at run time, all alike: sessions) stops its
children all at once when it shuts down, as OTP's ``simple_one_for_one`` does: they do
not depend on each other, so there is no order to keep, and one slow to finish (a
browser context on a busy page) must not make the others wait in line behind it.
"""

from __future__ import annotations

import contextlib
import functools
from collections import deque
from typing import NoReturn

import attrs
import trio

from ..errors import ToolError
from .actor import Actor, Later
from .actor_ref import ActorCrashed, ActorRef, ActorUnavailable
from .supervision import (
    ChildGone,
    ChildInfo,
    ChildSpec,
    EventLog,
    ForgetChild,
    LookupChild,
    Restart,
    StartChild,
    Strategy,
    SupervisorEscalation,
    TerminateChild,
    WhichChildren,
)

__all__ = ["Supervisor"]


@attrs.frozen
class _ChildExited:
    child: _Child
    generation: int
    error: BaseException | None


# -- the supervisor -------------------------------------------------------------------


@attrs.define(eq=False)
class _Child:
    spec: ChildSpec
    actor: Actor | None = None
    scope: trio.CancelScope | None = None
    done: trio.Event = attrs.Factory(trio.Event)
    #: Bumped on every start so a late exit notice of an older run is ignored.
    generation: int = 0
    #: Set while the supervisor itself is stopping the child.
    stopping: bool = False

    @property
    def ref(self) -> ActorRef | None:
        return None if self.actor is None else self.actor.ref


class Supervisor(Actor):
    """An actor whose job is its children. Talk to it with StartChild, TerminateChild
    and WhichChildren; read its history from ``events``."""

    def __init__(
        self,
        name: str,
        children: list[ChildSpec] | tuple[ChildSpec, ...] = (),
        *,
        strategy: Strategy = Strategy.ONE_FOR_ONE,
        intensity: int = 3,
        period: float = 5.0,
        events: EventLog | None = None,
        dynamic: bool = False,
    ) -> None:
        super().__init__(name)
        self.strategy = strategy
        #: Children are stopped concurrently at shutdown (see the module notes).
        self.dynamic = dynamic
        self.intensity = intensity
        self.period = period
        self.events = events if events is not None else EventLog()
        self._initial = list(children)
        self._children: list[_Child] = []
        self._restart_times: deque[float] = deque()
        #: Temporary children that ended abnormally, until someone looks them up.
        self._obituaries: dict[str, ActorUnavailable | None] = {}

    # -- lookups usable by the owner of the supervisor --------------------------------

    def child_ref(self, child_id: str) -> ActorRef | None:
        """The current ref of a running child (a restart gives it a new ref)."""
        child = self._find(child_id)
        return None if child is None else child.ref

    def child_ids(self) -> list[str]:
        return [c.spec.id for c in self._children]

    # -- actor hooks ------------------------------------------------------------------

    async def on_start(self) -> None:
        for spec in self._initial:
            child = _Child(spec)
            self._children.append(child)
            await self._start(child)

    async def on_stop(self) -> None:
        if self.dynamic:
            async with trio.open_nursery() as nursery:
                for child in list(self._children):
                    nursery.start_soon(functools.partial(self._stop_children, [child], reason="shutdown"))
            return
        await self._stop_children(list(self._children), reason="shutdown")

    async def handle(self, msg: object) -> object:
        match msg:
            case _ChildExited():
                await self._child_exited(msg)
                return None
            case StartChild(spec):
                return await self.start_child(spec)
            case TerminateChild(child_id):
                return await self.terminate_child(child_id)
            case WhichChildren():
                return [
                    ChildInfo(c.spec.id, c.actor.name if c.actor else "", c.spec.restart.value,
                              c.ref is not None and c.ref.alive,
                              None if c.ref is None else c.ref.statistics(), c.spec.meta)
                    for c in self._children
                ]
            case LookupChild(child_id, obituary):
                found = self._find(child_id)
                if found is not None and found.ref is not None and found.ref.alive:
                    return found.ref
                if not obituary:
                    return None
                if (found is not None and found.spec.restart is Restart.TEMPORARY and found.ref is not None
                        and (found.done.is_set() or isinstance(found.ref.failure, ActorCrashed))):
                    # Ended (or crashed and still unwinding: it failed its callers first),
                    # its exit notice still to come: answer as that notice will.
                    self._children.remove(found)
                    self._obituaries[child_id] = found.ref.failure if found.ref is not None else None
                if child_id in self._obituaries:
                    return ChildGone(child_id, self._obituaries.pop(child_id))
                return None
            case ForgetChild(child_id):
                self._obituaries.pop(child_id, None)
                found = self._find(child_id)
                if found is None or found.spec.restart is not Restart.TEMPORARY:
                    return None
                return Later.of(self._forget_when_done, found)
            case _:
                raise TypeError(f"{self.name} has no handler for {type(msg).__name__}")

    async def _forget_when_done(self, child: _Child) -> None:
        with trio.move_on_after(child.spec.shutdown):
            await child.done.wait()
        if child.done.is_set() and child in self._children:
            self._children.remove(child)
        self._obituaries.pop(child.spec.id, None)

    # -- starting and stopping --------------------------------------------------------

    async def start_child(self, spec: ChildSpec) -> ActorRef:
        """Start a child from ``spec`` (what :class:`StartChild` asks): its ref, or the
        ToolError of a start that failed. For a subclass's handler, which runs in the
        supervisor's own task."""
        existing = self._find(spec.id)
        if existing is not None and existing.done.is_set() and existing.spec.restart is Restart.TEMPORARY:
            # It has ended and its exit notice is still in the mailbox; a temporary
            # child is forgotten on exit anyway, so its id is free again now.
            self._children.remove(existing)
            existing = None
        self._obituaries.pop(spec.id, None)
        if existing is not None:
            raise ToolError("already-started", f"{self.name} already has a child {spec.id!r}")
        child = _Child(spec)
        self._children.append(child)
        try:
            return await self._start(child)
        except Exception as exc:
            # A child that fails to start is the caller's failure, not a bug
            # in the supervisor: its running siblings must not go down with it.
            self._children.remove(child)
            raise _start_failure(spec.id, exc) from exc
        except BaseException:
            self._children.remove(child)
            raise

    async def terminate_child(self, child_id: str) -> bool:
        """Stop the child ``child_id`` and forget it (what :class:`TerminateChild` asks)."""
        found = self._find(child_id)
        if found is None:
            raise ToolError("target-not-found", f"{self.name} has no child {child_id!r}", child=child_id)
        await self._stop_children([found], reason="terminated")
        self._children.remove(found)
        return True

    #: Obituaries kept at most; the oldest is forgotten first.
    _OBITUARIES = 256

    def _remember(self, child: _Child) -> None:
        self._obituaries[child.spec.id] = child.ref.failure if child.ref is not None else None
        while len(self._obituaries) > self._OBITUARIES:
            del self._obituaries[next(iter(self._obituaries))]

    def _find(self, child_id: str) -> _Child | None:
        return next((c for c in self._children if c.spec.id == child_id), None)

    async def _start(self, child: _Child) -> ActorRef:
        child.generation += 1
        child.stopping = False
        child.done = trio.Event()
        child.actor = child.spec.factory()
        child.scope = trio.CancelScope()
        ref: ActorRef = await self.nursery.start(self._run_child, child, child.generation)
        self.events.emit(self.name, child.spec.id, "started")
        return ref

    async def _run_child(
        self, child: _Child, generation: int, *, task_status: trio.TaskStatus[ActorRef]
    ) -> None:
        """Run one incarnation of a child. A failure before it started propagates to
        whoever asked for the start; after that, exits become mailbox messages."""
        assert child.actor is not None and child.scope is not None
        started = False

        class _Status:
            def started(self, value: ActorRef) -> None:
                nonlocal started
                started = True
                task_status.started(value)

        error: BaseException | None = None
        try:
            with child.scope:
                try:
                    await child.actor.run(task_status=_Status())  # type: ignore[arg-type]
                except Exception as exc:
                    if not started:
                        raise
                    error = exc
        finally:
            child.done.set()
        if child.scope.cancelled_caught and error is None and not child.stopping:
            error = RuntimeError("cancelled from outside its supervisor")
        if not child.stopping:
            # A full mailbox delays this notice but never loses it. A supervisor that
            # is itself stopping has closed its mailbox and no longer restarts anyone.
            with contextlib.suppress(ActorUnavailable):
                await self.ref.cast(_ChildExited(child, generation, error))

    async def _stop_children(self, children: list[_Child], *, reason: str) -> None:
        """Stop children in reverse start order: graceful, then cancelled after grace."""
        order = {id(c): i for i, c in enumerate(self._children)}
        for child in sorted(children, key=lambda c: order.get(id(c), -1), reverse=True):
            if child.done.is_set() or child.actor is None:
                continue
            child.stopping = True
            child.actor.stop(reason)
            with trio.move_on_after(child.spec.shutdown):
                await child.done.wait()
            if not child.done.is_set():
                assert child.scope is not None
                child.scope.cancel()
                await child.done.wait()
            self.events.emit(self.name, child.spec.id, "stopped", reason)

    # -- the OTP rules ----------------------------------------------------------------

    async def _child_exited(self, msg: _ChildExited) -> None:
        child = msg.child
        if child not in self._children or msg.generation != child.generation:
            return  # a notice about an incarnation we already replaced or removed
        reason = "normal" if msg.error is None else f"abnormal: {msg.error!r}"
        self.events.emit(self.name, child.spec.id, "exited", reason)
        if not _wants_restart(child.spec.restart, abnormal=msg.error is not None):
            self._children.remove(child)
            if msg.error is not None and child.spec.restart is Restart.TEMPORARY:
                self._remember(child)
            return
        if self._intensity_exceeded():
            await self._escalate(child, reason, msg.error)

        index = self._children.index(child)
        if self.strategy is Strategy.ONE_FOR_ONE:
            affected = [child]
        elif self.strategy is Strategy.ONE_FOR_ALL:
            affected = list(self._children)
        else:
            affected = self._children[index:]
        siblings = [c for c in affected if c is not child]
        await self._stop_children(siblings, reason=f"sibling {child.spec.id} exited")
        for sibling in siblings:
            if sibling.spec.restart is Restart.TEMPORARY:
                self._children.remove(sibling)
        for restarting in [c for c in affected if c in self._children]:
            await self._restart(restarting, reason)

    async def _restart(self, child: _Child, reason: str) -> None:
        """Start ``child`` again; a start that fails is tried again at once.

        As in OTP, each failed attempt counts as one more restart, so a child that can
        no longer start ends in escalation within the intensity, not in a supervisor
        crash and not in a loop.
        """
        while True:
            try:
                await self._start(child)
            except Exception as exc:
                failure = f"start failed: {_leaf(exc)!r}"
                self.events.emit(self.name, child.spec.id, "restart-failed", failure)
                if self._intensity_exceeded():
                    await self._escalate(child, failure, exc)
                continue
            self.events.emit(self.name, child.spec.id, "restarted", reason)
            return

    async def _escalate(self, child: _Child, reason: str, cause: BaseException | None) -> NoReturn:
        """Too many restarts: stop every child, newest first, and fail upward."""
        self.events.emit(
            self.name, child.spec.id, "escalated",
            f"more than {self.intensity} restarts in {self.period:g}s",
        )
        await self._stop_children(list(self._children), reason="escalation")
        raise SupervisorEscalation(
            f"{self.name}: more than {self.intensity} restarts in {self.period:g}s "
            f"(last: {child.spec.id} {reason})"
        ) from cause

    def _intensity_exceeded(self) -> bool:
        now = trio.current_time()
        self._restart_times.append(now)
        while self._restart_times and self._restart_times[0] <= now - self.period:
            self._restart_times.popleft()
        return len(self._restart_times) > self.intensity


def _leaf(exc: BaseException) -> BaseException:
    """The one exception inside nursery wrappers (``exc`` itself if there are several)."""
    while isinstance(exc, BaseExceptionGroup) and len(exc.exceptions) == 1:
        exc = exc.exceptions[0]
    return exc


def _start_failure(child_id: str, exc: Exception) -> ToolError:
    """The child's own ToolError if that is all its start raised, else ``start-failed``."""
    leaf = _leaf(exc)
    if isinstance(leaf, ToolError):
        return leaf
    err = ToolError("start-failed", f"{child_id} did not start: {leaf!r}")
    err.__cause__ = exc
    return err


def _wants_restart(restart: Restart, *, abnormal: bool) -> bool:
    if restart is Restart.PERMANENT:
        return True
    if restart is Restart.TRANSIENT:
        return abnormal
    return False
