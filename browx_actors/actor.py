"""The actor kernel: a Trio task that owns its state and talks only through its mailbox.

An actor is a nursery with a bounded mailbox. Callers hold an :class:`ActorRef` and
either ``call`` it (send a message with a one-shot reply slot and wait for the answer,
under a deadline) or ``cast`` to it (send and move on). Five rules shape the code:

* A full mailbox is backpressure. ``call`` and ``cast`` wait for room; nothing queues
  without bound.
* Expected failures are values. A handler that raises (or returns) :class:`ToolError`
  answers its caller with it and keeps serving; a bug crashes the actor, unless the
  handler has declared the call the boundary of its failures (:class:`CallFailed`).
* Nobody is served after they stopped waiting. A call whose caller timed out or was
  cancelled while its message sat in the mailbox is dropped, not handled: a tool must
  not act after its caller was told it failed. A message already taken runs to its end
  even if its caller leaves, but never past its deadline.
* A call's deadline binds the handler too. A handler still running at its call's
  deadline is cancelled inside the actor, not only on the caller's side: the caller
  hears ``timeout`` and the mailbox moves on instead of waiting behind a handler that
  may never finish (a browser hung on one absurd input). The actor serves messages in
  one long-lived cancel scope that the deadline keeper cancels when the call in hand
  is overdue (a scope per call, with its deadline, cost the hop 14 µs); a
  :class:`Later` task, rare and long, gets a scope of its own with the deadline.
* Nobody waits on a dead actor. When the actor's task ends, for whatever reason, every
  pending call and every later call on its ref fails at once with
  :class:`ActorCrashed` (or :class:`ActorStopped` after a clean stop).

A handler that has to wait long returns :class:`Later`: the wait runs as a task in the
actor's own nursery and answers the caller when it finishes, so the mailbox keeps
serving. Because that nursery is the actor's lifetime, stopping or crashing the actor
cancels the wait with it; no timer or flag is left behind.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Awaitable, Callable
from typing import Any

import attrs
import trio

from .deadlines import DeadlineBook
from .errors import ToolError

__all__ = [
    "DEFAULT_CALL_TIMEOUT",
    "Actor",
    "ActorCrashed",
    "ActorRef",
    "ActorStatistics",
    "ActorStopped",
    "ActorUnavailable",
    "CallFailed",
    "Later",
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

    def as_dict(self) -> dict[str, Any]:
        return {"mailbox": {"used": self.mailbox_used, "capacity": self.mailbox_capacity,
                            "sendersWaiting": self.senders_waiting},
                "pending": self.calls_pending, "served": self.calls_served, "timedOut": self.calls_timed_out}


class CallFailed(Exception):
    """Raised by a handler to fail only the call it is handling: the caller gets
    ``cause`` raised, and the actor goes on serving.

    For an actor whose handlers run code it cannot vouch for (a session runs every
    tool's handler) and whose state stays consistent when one of them fails half-way.
    The actor decides where that boundary lies; anything it does not wrap still
    crashes it, as a bug should.
    """

    def __init__(self, cause: Exception) -> None:
        super().__init__(f"the call failed: {cause!r}")
        self.cause = cause


@attrs.frozen
class Later:
    """Returned by a handler to answer from a task in the actor's nursery instead.

    ``fn(*args)`` runs in the actor's nursery; its return value (or a ToolError it
    raises) becomes the reply. Any other exception crashes the actor, like a handler's.
    """

    fn: Callable[..., Awaitable[Any]]
    args: tuple[Any, ...] = ()

    @classmethod
    def of(cls, fn: Callable[..., Awaitable[Any]], *args: Any) -> Later:
        return cls(fn, args)


class _Reply:
    """A one-shot reply slot: the first answer wins, later ones are ignored.

    It remembers what was asked and for how long, so a timeout can be told without the
    caller's frame (the deadline keeper fails it from the actor's side).
    """

    __slots__ = ("about", "deadline", "error", "event", "serving", "timeout", "value")

    def __init__(self, about: str, timeout: float | None) -> None:
        self.event = trio.Event()
        self.value: Any = None
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

    def resolve(self, value: Any) -> None:
        if not self.event.is_set():
            self.value = value
            self.event.set()

    def fail(self, error: BaseException) -> None:
        if not self.event.is_set():
            self.error = error
            self.event.set()

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

    def __init__(self, name: str, send: trio.MemorySendChannel) -> None:
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

    async def call(self, msg: Any, *, timeout: float | None = DEFAULT_CALL_TIMEOUT) -> Any:
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

    async def _wait_scoped(self, reply: _Reply, envelope: tuple[Any, _Reply] | None) -> None:
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

    async def cast(self, msg: Any) -> None:
        """Send ``msg`` without waiting for an answer (but waiting for mailbox room)."""
        self._raise_if_gone()
        await self._post((msg, None))

    async def _post(self, envelope: tuple[Any, _Reply | None]) -> None:
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


def is_cancellation(exc: BaseException) -> bool:
    """True for trio.Cancelled, alone or as the only kind inside exception groups."""
    if isinstance(exc, BaseExceptionGroup):
        return all(is_cancellation(e) for e in exc.exceptions)
    return isinstance(exc, trio.Cancelled)


_actor_ids = itertools.count(1)


class Actor:
    """Base class. Subclasses implement :meth:`handle`, optionally the lifecycle hooks.

    Run it with ``await nursery.start(actor.run)``, which returns its :class:`ActorRef`
    once :meth:`on_start` has finished, or let a :class:`~browx_actors.supervisor.Supervisor`
    run it.
    """

    #: Mailbox capacity; a full mailbox makes senders wait.
    mailbox_size: int = 64

    def __init__(self, name: str | None = None) -> None:
        self.name = name or f"{type(self).__name__}-{next(_actor_ids)}"
        send, self._inbox = trio.open_memory_channel[tuple[Any, _Reply | None]](self.mailbox_size)
        self._inbox_send = send
        self.ref = ActorRef(self.name, send.clone())
        self._nursery: trio.Nursery | None = None
        self._stopping = False
        #: Why :meth:`stop` was called (None until it is).
        self.stop_reason: str | None = None

    @property
    def nursery(self) -> trio.Nursery:
        """The actor's own nursery: tasks here live and die with the actor."""
        if self._nursery is None:
            raise RuntimeError(f"{self.name} is not running")
        return self._nursery

    # -- hooks ------------------------------------------------------------------------

    async def on_start(self) -> None:
        """Acquire resources before the first message is served."""

    async def handle(self, msg: Any) -> Any:
        """Answer one message. Raise or return ToolError for expected failures."""
        raise TypeError(f"{self.name} has no handler for {type(msg).__name__}")

    async def on_stop(self) -> None:
        """Release resources on a graceful stop (bounded by the supervisor's grace)."""

    # -- lifecycle --------------------------------------------------------------------

    def stop(self, reason: str = "normal") -> None:
        """Ask for a graceful stop: finish the message in hand, take no more, run
        :meth:`on_stop`, exit.

        ``reason`` is kept in :attr:`stop_reason` for :meth:`on_stop` (as OTP's
        ``terminate`` gets it): a supervisor says ``"shutdown"`` when the whole tree is
        going down, so an actor may skip cleanup its neighbours are about to make moot.
        Safe to call from any task, any number of times (the first reason stays). A
        supervisor that runs out of grace cancels the actor instead.
        """
        if not self._stopping:
            self.stop_reason = reason
        self._stopping = True
        # Closing our receive side wakes a receive() in progress with
        # ClosedResourceError and refuses senders; cheaper than a cancel scope around
        # every receive, which would cost each hop a scope enter and exit.
        self._inbox.close()

    async def run(self, *, task_status: trio.TaskStatus[ActorRef] = trio.TASK_STATUS_IGNORED) -> None:
        try:
            async with trio.open_nursery() as nursery:
                self._nursery = nursery
                await self.on_start()
                task_status.started(self.ref)
                while not self._stopping:
                    # One scope for many messages; a fresh one after each overdue call.
                    with trio.CancelScope() as serving:
                        self.ref._serving_scope = serving
                        await self._serve_until_overdue(nursery)
                    self.ref._serving_scope = None
                self._inbox.close()
                self.ref._mark_gone(ActorStopped(self.name, "stopped"))
                await self.on_stop()
                nursery.cancel_scope.cancel()
        except BaseException as exc:
            self._inbox.close()
            if is_cancellation(exc):
                self.ref._mark_gone(ActorCrashed(self.name, "was cancelled"))
            else:
                self._mark_crashed(exc)
            raise
        finally:
            self._nursery = None
        self.ref._mark_gone(ActorStopped(self.name, "stopped"))

    async def _serve_until_overdue(self, nursery: trio.Nursery) -> None:
        """Serve messages until stopped, or until the serving scope is cancelled because
        the call in hand overran its deadline (then the caller has been answered)."""
        keeper_started = self.ref._deadlines.keeping
        while not self._stopping:
            # Only the wait for the next message is cut short by stop(): a message
            # already taken is answered first, as in OTP.
            try:
                msg, reply = await self._inbox.receive()
            except trio.ClosedResourceError:
                return
            if not keeper_started and reply is not None:
                # Started on the first call, so idle actors carry no extra task.
                keeper_started = True
                nursery.start_soon(self.ref._deadlines.keep)
            await self._serve(msg, reply)

    def _mark_crashed(self, exc: BaseException) -> None:
        if is_cancellation(exc):
            return
        crashed = ActorCrashed(self.name, f"crashed: {exc!r}")
        crashed.__cause__ = exc
        self.ref._mark_gone(crashed)

    async def _serve(self, msg: Any, reply: _Reply | None) -> None:
        if reply is not None and reply.settled:
            # Its caller timed out or gave up while it waited in the mailbox. Acting now
            # would do what the caller was told had failed (a click after "timeout").
            return
        if reply is not None:
            reply.serving = True
        try:
            outcome = await self._outcome(self.handle, (msg,), self.ref._serving_scope)
        finally:
            # Cleared on every way out, the overdue one included (the serving scope's
            # cancellation leaves through here, then the scope absorbs it).
            if reply is not None:
                reply.serving = False
        if isinstance(outcome, Later):
            self.nursery.start_soon(self._answer_later, outcome, reply)
            return
        self._answer(reply, outcome)

    async def _outcome(self, fn: Callable[..., Awaitable[Any]], args: tuple[Any, ...],
                       scope: trio.CancelScope | None) -> Any:
        """What ``fn(*args)`` answers: its value, a ToolError, the cause of a
        CallFailed, or :data:`_OVERDUE` when its deadline cut it short. Anything else
        it raises crashes the actor."""
        try:
            return await fn(*args)
        except ToolError as err:
            return err
        except CallFailed as failed:
            return _Failed(failed.cause)
        except Exception as exc:
            if scope is not None and scope.cancel_called:
                # Raised while being cancelled at the deadline (a bridge that turns
                # cancellation into its own error): the call is over, not the actor.
                return _OVERDUE
            # Fail waiting callers before the nursery unwinds: "at once", not after
            # every sibling task has finished cancelling.
            self._mark_crashed(exc)
            raise
        except BaseException as exc:
            self._mark_crashed(exc)  # cancellation marks nothing: a scope decides
            raise

    def _answer(self, reply: _Reply | None, outcome: Any) -> None:
        if outcome is _OVERDUE:
            if reply is not None:
                self.ref._expire(reply)  # the caller's own timer may not have fired yet
            return
        self.ref._served += 1
        if reply is None:
            return
        if isinstance(outcome, _Failed):
            reply.fail(outcome.cause)
        else:
            reply.resolve(outcome)

    async def _answer_later(self, later: Later, reply: _Reply | None) -> None:
        if reply is None or reply.deadline == math.inf:
            outcome = await self._outcome(later.fn, later.args, None)
        else:
            with trio.CancelScope(deadline=reply.deadline) as scope:
                outcome = await self._outcome(later.fn, later.args, scope)
            if scope.cancelled_caught:
                outcome = _OVERDUE
        self._answer(reply, outcome)


@attrs.frozen
class _Failed:
    """A handler's CallFailed, carried to its caller."""

    cause: Exception


#: What a handler answers when its call's deadline cut it short.
_OVERDUE = object()
