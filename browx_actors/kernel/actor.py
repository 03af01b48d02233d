"""The actor kernel: a Trio task that owns its state and talks only through its mailbox.

An actor is a nursery with a bounded mailbox. This module is the serving side: the
:class:`Actor` that takes messages from its mailbox and answers them. The caller's side,
the :class:`~browx_actors.kernel.actor_ref.ActorRef` callers ``call`` and ``cast`` through, its
reply slots and the exceptions a caller hears when the actor is gone, is
:mod:`browx_actors.kernel.actor_ref`, which also keeps the rules about backpressure and dead
actors. The rules kept here:

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
* The actor's end is its ref's news. However the actor's task ends, it marks its ref
  gone (:class:`~browx_actors.kernel.actor_ref.ActorCrashed`, or
  :class:`~browx_actors.kernel.actor_ref.ActorStopped` after a clean stop) before its nursery
  unwinds, so every pending caller fails at once.

A handler that has to wait long returns :class:`Later`: the wait runs as a task in the
actor's own nursery and answers the caller when it finishes, so the mailbox keeps
serving. Because that nursery is the actor's lifetime, stopping or crashing the actor
cancels the wait with it; no timer or flag is left behind.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Awaitable, Callable

import attrs
import trio

from ..errors import ToolError
from .actor_ref import ActorCrashed, ActorRef, ActorStopped, _Reply

__all__ = ["Actor", "CallFailed", "Later"]


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

    fn: Callable[..., Awaitable[object]]
    args: tuple[object, ...] = ()

    @classmethod
    def of(cls, fn: Callable[..., Awaitable[object]], *args: object) -> Later:
        return cls(fn, args)


def is_cancellation(exc: BaseException) -> bool:
    """True for trio.Cancelled, alone or as the only kind inside exception groups."""
    if isinstance(exc, BaseExceptionGroup):
        return all(is_cancellation(e) for e in exc.exceptions)
    return isinstance(exc, trio.Cancelled)


_actor_ids = itertools.count(1)


class Actor:
    """Base class. Subclasses implement :meth:`handle`, optionally the lifecycle hooks.

    Run it with ``await nursery.start(actor.run)``, which returns its :class:`ActorRef`
    once :meth:`on_start` has finished, or let a :class:`~browx_actors.kernel.supervisor.Supervisor`
    run it.
    """

    #: Mailbox capacity; a full mailbox makes senders wait.
    mailbox_size: int = 64

    def __init__(self, name: str | None = None) -> None:
        self.name = name or f"{type(self).__name__}-{next(_actor_ids)}"
        send, self._inbox = trio.open_memory_channel[tuple[object, _Reply | None]](self.mailbox_size)
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

    async def handle(self, msg: object) -> object:
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

    async def _serve(self, msg: object, reply: _Reply | None) -> None:
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

    async def _outcome(self, fn: Callable[..., Awaitable[object]], args: tuple[object, ...],
                       scope: trio.CancelScope | None) -> object:
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

    def _answer(self, reply: _Reply | None, outcome: object) -> None:
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
