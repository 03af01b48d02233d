"""The caller's side of an actor: its ref, the one-shot reply slot, and what a caller
hears when the actor is gone.

Callers hold an :class:`ActorRef` and either ``call`` it (send a message with a one-shot
reply slot and wait for the answer, under a deadline) or ``cast`` to it (send and move
on). Three of the kernel's rules are kept here; the serving side
(:mod:`browx_actors.kernel.actor`) keeps the rest:

* A full mailbox is backpressure. ``call`` and ``cast`` wait for room; nothing queues
  without bound.
* A caller who stops waiting says so. A call whose caller timed out or was cancelled
  settles its reply slot on the way out, so the actor drops the message if it still
  sits in the mailbox instead of acting for nobody.
* Nobody waits on a dead actor. When the actor's task ends, for whatever reason, every
  pending call and every later call on its ref fails at once with
  :class:`ActorCrashed` (or :class:`ActorStopped` after a clean stop).

A call that finds room in the mailbox opens no cancel scope: it books its deadline with
the actor's deadline keeper (:mod:`browx_actors.kernel.deadlines`), which fails the reply with
a timeout and, when the actor's handler is still running for it, cancels the scope the
actor serves in. So the ref has a few underscored members that only
:class:`~browx_actors.kernel.actor.Actor` touches (the serving scope, the served count, the
deadline book, ``_expire`` and ``_mark_gone``): the two halves of one kernel, split so
each reads on its own, and still one party.
"""

from __future__ import annotations

import math
from typing import Any

import attrs
import trio

from ..errors import ToolError
from ..jsonsafe import JsonObject
from .deadlines import DeadlineBook

__all__ = [
    "DEFAULT_CALL_TIMEOUT",
    "ActorCrashed",
    "ActorRef",
    "ActorStatistics",
    "ActorStopped",
    "ActorUnavailable",
]

DEFAULT_CALL_TIMEOUT = 30.0


class ActorUnavailable(Exception):
    """The actor behind a ref is gone; the call never reached (or left) a handler."""

    def __init__(self, actor: str, reason: str) -> None:
        super().__init__(f"actor {actor!r} {reason}")
        self.actor = actor
        self.reason = reason


class ActorCrashed(ActorUnavailable):
    """The actor died of an exception (its ``__cause__``) or was cancelled from outside."""


class ActorStopped(ActorUnavailable):
    """The actor finished cleanly (stopped by its supervisor or by itself)."""


@attrs.frozen
class ActorStatistics:
    """One actor's load, as :meth:`ActorRef.statistics` reads it (after Trio's
    ``MemoryChannelStatistics``: backpressure you can see)."""

    name: str
    alive: bool
    #: Messages waiting in the mailbox, and how many it holds before senders wait.
    mailbox_used: int
    mailbox_capacity: int
    #: Tasks blocked because the mailbox is full.
    senders_waiting: int
    #: Calls sent and not yet answered (in the mailbox or being handled).
    calls_pending: int
    #: Messages handled to the end (answered calls, and casts).
    calls_served: int
    #: Calls whose caller's timeout fired before the answer came.
    calls_timed_out: int

    def as_dict(self) -> JsonObject:
        return {"mailbox": {"used": self.mailbox_used, "capacity": self.mailbox_capacity,
                            "sendersWaiting": self.senders_waiting},
                "pending": self.calls_pending, "served": self.calls_served, "timedOut": self.calls_timed_out}


class _Reply:
    """A one-shot reply slot: the first answer wins, later ones are ignored.

    It remembers what was asked and for how long, so a timeout can be told without the
    caller's frame (the deadline keeper fails it from the actor's side).
    """

    __slots__ = ("about", "deadline", "error", "event", "serving", "timeout", "value")

    def __init__(self, about: str, timeout: float | None) -> None:
        self.event = trio.Event()
        self.value: object = None
        self.error: BaseException | None = None
        self.about = about
        self.timeout = timeout
        #: When the caller stops waiting, and the handler is cancelled (inf: never).
        self.deadline = math.inf if timeout is None else trio.current_time() + timeout
        #: The actor's handler is running for it right now.
        self.serving = False

    @property
    def settled(self) -> bool:
        return self.event.is_set()

    @property
    def done(self) -> bool:
        """Nothing is left to do at its deadline: answered, and no handler running."""
        return self.event.is_set() and not self.serving

    def resolve(self, value: object) -> None:
        if not self.event.is_set():
            self.value = value
            self.event.set()

    def fail(self, error: BaseException) -> None:
        if not self.event.is_set():
            self.error = error
            self.event.set()

    # Any: a reply's type is the message's, known to the caller, who annotates it.
    def unwrap(self) -> Any:
        if self.error is not None:
            raise self.error
        if isinstance(self.value, ToolError):
            raise self.value
        return self.value


class _Abandoned(Exception):
    """What a reply slot holds once its caller stopped waiting; nobody ever reads it."""


_ABANDONED = _Abandoned("the caller stopped waiting")


class ActorRef:
    """The only handle other code has on an actor: a mailbox address plus its fate."""

    __slots__ = ("_deadlines", "_gone", "_pending", "_send", "_served", "_serving_scope", "_timed_out", "name")

    def __init__(self, name: str, send: trio.MemorySendChannel[tuple[object, _Reply | None]]) -> None:
        self.name = name
        self._send = send
        self._pending: set[_Reply] = set()
        self._gone: ActorUnavailable | None = None
        #: Deadlines of calls that found room in the mailbox, kept by the actor's task.
        self._deadlines: DeadlineBook[_Reply] = DeadlineBook(self._expire)
        #: The scope the actor serves messages in; cancelled when the call in hand is
        #: overdue (set by the actor while it runs).
        self._serving_scope: trio.CancelScope | None = None
        #: Messages the actor has finished handling, and calls that timed out waiting.
        self._served = 0
        self._timed_out = 0

    def __repr__(self) -> str:
        state = "alive" if self._gone is None else type(self._gone).__name__
        return f"<ActorRef {self.name} {state}>"

    @property
    def alive(self) -> bool:
        return self._gone is None

    @property
    def failure(self) -> ActorUnavailable | None:
        """Why the actor is gone, or None while it lives."""
        return self._gone

    # Any: a reply's type is the message's, known to the caller, who annotates it.
    async def call(self, msg: object, *, timeout: float | None = DEFAULT_CALL_TIMEOUT) -> Any:
        """Send ``msg`` and wait for the handler's answer.

        Raises the handler's :class:`ToolError`, ``ToolError("timeout")`` when no answer
        comes within ``timeout`` seconds (None waits forever), or
        :class:`ActorUnavailable` when the actor is or becomes gone.
        """
        self._raise_if_gone()
        reply = _Reply(type(msg).__name__, timeout)
        self._pending.add(reply)
        try:
            try:
                # With room, send_nowait skips the checkpoint send() would take, so the
                # caller yields once, on the reply, not twice.
                self._send.send_nowait((msg, reply))
            except trio.WouldBlock:
                await self._wait_scoped(reply, (msg, reply))
            except (trio.BrokenResourceError, trio.ClosedResourceError):
                self._raise_if_gone()
                raise ActorStopped(self.name, "closed its mailbox") from None
            else:
                if timeout is None:
                    await reply.event.wait()
                elif self._deadlines.keeping:
                    # The fast path: no cancel scope; the actor's keeper times us out.
                    self._deadlines.book(reply.deadline, reply, len(self._pending))
                    await reply.event.wait()
                else:
                    await self._wait_scoped(reply, None)
        finally:
            self._pending.discard(reply)
            # A caller that stops waiting (cancelled) settles its slot, so a message
            # still in the mailbox is dropped instead of acted on for nobody.
            reply.fail(_ABANDONED)
            if reply.serving and reply.deadline != math.inf:
                # Its handler runs on without it, but not past the deadline: make sure
                # the keeper knows of it (a call that waited in a scope never booked).
                self._deadlines.book(reply.deadline, reply, len(self._pending) + 1)
        return reply.unwrap()

    async def _wait_scoped(self, reply: _Reply, envelope: tuple[object, _Reply] | None) -> None:
        """Post ``envelope`` (if any) and wait for ``reply``, timed by a cancel scope.

        For a full mailbox, whose wait for room the deadline must cover too, and for an
        actor whose deadline keeper is not running (not started yet, or gone).
        """
        with trio.CancelScope(deadline=reply.deadline) as scope:
            if envelope is not None:
                await self._post(envelope)
            await reply.event.wait()
        if scope.cancelled_caught:
            self._expire(reply)

    def statistics(self) -> ActorStatistics:
        """How loaded the actor is, from its mailbox: what waits in it, who waits to
        put something in it (backpressure), and what it has served and let time out."""
        mailbox = self._send.statistics()
        return ActorStatistics(
            name=self.name, alive=self._gone is None,
            mailbox_used=mailbox.current_buffer_used, mailbox_capacity=int(mailbox.max_buffer_size),
            senders_waiting=mailbox.tasks_waiting_send, calls_pending=len(self._pending),
            calls_served=self._served, calls_timed_out=self._timed_out,
        )

    def _expire(self, reply: _Reply) -> None:
        if not reply.settled:
            self._timed_out += 1
        reply.fail(ToolError(
            "timeout", f"{self.name} did not answer {reply.about} within {reply.timeout:g}s"
        ))
        if reply.serving and self._serving_scope is not None:
            self._serving_scope.cancel()  # the handler in hand is overdue: cut it short

    async def cast(self, msg: object) -> None:
        """Send ``msg`` without waiting for an answer (but waiting for mailbox room)."""
        self._raise_if_gone()
        await self._post((msg, None))

    async def _post(self, envelope: tuple[object, _Reply | None]) -> None:
        """Put ``envelope`` in the mailbox, waiting while it is full."""
        try:
            await self._send.send(envelope)
        except (trio.BrokenResourceError, trio.ClosedResourceError):
            self._raise_if_gone()
            raise ActorStopped(self.name, "closed its mailbox") from None

    def _raise_if_gone(self) -> None:
        if self._gone is not None:
            raise _fresh(self._gone)

    def _mark_gone(self, gone: ActorUnavailable) -> None:
        """Fail every waiting caller now; later calls fail on entry."""
        if self._gone is None:
            self._gone = gone
        # Callers blocked on a full mailbox wake with ClosedResourceError and raise
        # the failure; the actor keeps its own clone, so its receive loop is unaffected.
        self._send.close()
        for reply in list(self._pending):
            reply.fail(_fresh(self._gone))
        self._pending.clear()


def _fresh(gone: ActorUnavailable) -> ActorUnavailable:
    """A new exception per raise: re-raising one shared instance grows its traceback
    (and keeps every frame it passed through alive) on each call to a dead ref."""
    copy = type(gone)(gone.actor, gone.reason)
    copy.__cause__ = gone.__cause__
    return copy
