"""The actor kernel: calls, casts, errors as values, crashes, backpressure, Later, stop.

Time is simulated with ``trio.testing.MockClock(autojump_threshold=0)`` (the
``autojump_clock`` fixture) wherever a test waits or measures; nothing sleeps for real.
"""

from __future__ import annotations

import traceback
from typing import Any

import attrs
import pytest
import trio
import trio.testing
from hypothesis import given, settings
from hypothesis import strategies as st

from browx_actors.errors import ToolError
from browx_actors.kernel.actor import Actor, CallFailed, Later
from browx_actors.kernel.actor_ref import ActorCrashed, ActorRef, ActorStopped, ActorUnavailable

HOUR = 3600.0

# -- messages -------------------------------------------------------------------------


@attrs.frozen
class Echo:
    value: Any


@attrs.frozen
class Record:
    value: Any


@attrs.frozen
class Hold:
    """Block the handler (and so the mailbox) until ``gate`` is set."""

    gate: trio.Event
    value: Any = "held"


@attrs.frozen
class Boom:
    message: str = "boom"


@attrs.frozen
class RaiseToolError:
    code: str


@attrs.frozen
class ReturnToolError:
    code: str


@attrs.frozen
class Wait:
    """Answer ``value`` after ``seconds`` from a Later task.

    ``then`` picks the ending: "value", "raise-tool-error", "return-tool-error" or
    "crash". ``slow_unwind`` makes the task take an hour to finish cancelling.
    """

    seconds: float
    value: Any = "late"
    then: str = "value"
    slow_unwind: bool = False


@attrs.frozen
class Sleep:
    seconds: float
    value: Any = "slept"


class Kernel(Actor):
    """A test actor that records what it handles and how its lifecycle went."""

    def __init__(self, name: str | None = None, *, mailbox_size: int | None = None) -> None:
        if mailbox_size is not None:
            self.mailbox_size = mailbox_size
        super().__init__(name)
        self.seen: list[Any] = []
        self.lifecycle: list[str] = []
        self.raised: BaseException | None = None
        self.later_cancelled = 0

    async def on_start(self) -> None:
        self.lifecycle.append("on_start")

    async def on_stop(self) -> None:
        self.lifecycle.append("on_stop")

    async def handle(self, msg: Any) -> Any:
        match msg:
            case Echo(value):
                self.seen.append(value)
                return value
            case Record(value):
                self.seen.append(value)
                return None
            case Hold(gate, value):
                self.seen.append(value)
                await gate.wait()
                return value
            case Boom(message):
                self.raised = ValueError(message)
                raise self.raised
            case RaiseToolError(code):
                raise ToolError(code, "expected failure", field="x")
            case ReturnToolError(code):
                return ToolError(code, "returned failure")
            case Wait():
                return Later.of(self._wait, msg)
            case Sleep(seconds, value):
                await trio.sleep(seconds)
                return value
        return await super().handle(msg)

    async def _wait(self, msg: Wait) -> Any:
        try:
            await trio.sleep(msg.seconds)
        except trio.Cancelled:
            self.later_cancelled += 1
            if msg.slow_unwind:
                with trio.CancelScope(shield=True):
                    await trio.sleep(HOUR)
            raise
        if msg.then == "raise-tool-error":
            raise ToolError("action-failed", "the wait failed", waited=msg.seconds)
        if msg.then == "return-tool-error":
            return ToolError("timeout", "the wait returned a failure")
        if msg.then == "crash":
            self.raised = KeyError("later bug")
            raise self.raised
        return msg.value


async def run_actor(actor: Actor, *, task_status: trio.TaskStatus[ActorRef] = trio.TASK_STATUS_IGNORED) -> None:
    """Run ``actor`` and keep its crash (if any) on ``actor.exit`` instead of raising."""
    try:
        await actor.run(task_status=task_status)
    except Exception as exc:  # the tests inspect it
        actor.exit = exc  # type: ignore[attr-defined]
        actor.exit_at = trio.current_time()  # type: ignore[attr-defined]
    else:
        actor.exit = None  # type: ignore[attr-defined]
        actor.exit_at = trio.current_time()  # type: ignore[attr-defined]


def leaves(exc: BaseException) -> list[BaseException]:
    if isinstance(exc, BaseExceptionGroup):
        return [leaf for sub in exc.exceptions for leaf in leaves(sub)]
    return [exc]


async def settle() -> None:
    await trio.testing.wait_all_tasks_blocked()


# -- call, cast, errors as values -----------------------------------------------------


async def test_call_answers_and_cast_is_delivered(autojump_clock):
    actor = Kernel()
    async with trio.open_nursery() as nursery:
        ref = await nursery.start(run_actor, actor)
        assert ref is actor.ref and ref.alive and ref.failure is None
        assert actor.lifecycle == ["on_start"]
        assert await ref.call(Echo(42)) == 42
        assert await ref.cast(Record("a")) is None
        await ref.cast(Record("b"))
        assert await ref.call(Echo("sync")) == "sync"
        assert actor.seen == [42, "a", "b", "sync"]
        actor.stop()
    assert actor.exit is None


@pytest.mark.parametrize("msg", [RaiseToolError("bad-arg"), ReturnToolError("bad-arg")])
async def test_tool_error_reaches_the_caller_and_the_actor_keeps_serving(autojump_clock, msg):
    actor = Kernel()
    async with trio.open_nursery() as nursery:
        ref = await nursery.start(run_actor, actor)
        for _ in range(3):
            with pytest.raises(ToolError) as info:
                await ref.call(msg)
            assert info.value.code == "bad-arg"
            assert info.value.to_envelope()["ok"] is False
            assert await ref.call(Echo("still here")) == "still here"
        # A cast that fails expectedly is dropped silently; the actor goes on.
        await ref.cast(msg)
        assert await ref.call(Echo("after cast")) == "after cast"
        assert ref.alive
        actor.stop()
    assert actor.exit is None


async def test_tool_error_details_travel_with_it(autojump_clock):
    actor = Kernel()
    async with trio.open_nursery() as nursery:
        ref = await nursery.start(run_actor, actor)
        with pytest.raises(ToolError) as info:
            await ref.call(RaiseToolError("stale-element"))
        assert info.value.to_envelope() == {
            "ok": False, "code": "stale-element", "error": "expected failure", "field": "x",
        }
        actor.stop()


async def test_unknown_message_is_a_bug_that_crashes_the_actor(autojump_clock):
    actor = Kernel()
    async with trio.open_nursery() as nursery:
        ref = await nursery.start(run_actor, actor)
        with pytest.raises(ActorCrashed) as info:
            await ref.call(object())
        assert isinstance(info.value.__cause__, TypeError)
    assert [type(e) for e in leaves(actor.exit)] == [TypeError]


# -- crashes --------------------------------------------------------------------------


async def test_crash_fails_the_trigger_the_queued_and_every_later_caller(autojump_clock):
    actor = Kernel()
    gate = trio.Event()
    outcomes: dict[str, tuple[BaseException | Any, float]] = {}

    async def caller(key: str, msg: Any) -> None:
        try:
            outcomes[key] = (await ref.call(msg, timeout=None), trio.current_time())
        except BaseException as exc:
            outcomes[key] = (exc, trio.current_time())

    async with trio.open_nursery() as nursery:
        ref = await nursery.start(run_actor, actor)
        await ref.cast(Hold(gate))
        await settle()
        # Queue, in this order: the message that crashes, then two innocent ones.
        nursery.start_soon(caller, "trigger", Boom("kaput"))
        await settle()
        nursery.start_soon(caller, "queued-1", Echo(1))
        await settle()
        nursery.start_soon(caller, "queued-2", Echo(2))
        await settle()
        assert actor._inbox.statistics().current_buffer_used == 3
        t0 = trio.current_time()
        gate.set()
    assert set(outcomes) == {"trigger", "queued-1", "queued-2"}
    trigger, _ = outcomes["trigger"]
    assert isinstance(trigger, ActorCrashed)
    assert trigger.__cause__ is actor.raised
    assert isinstance(trigger.__cause__, ValueError)
    for key in ("queued-1", "queued-2"):
        exc, at = outcomes[key]
        assert isinstance(exc, ActorCrashed), key
        assert exc.__cause__ is actor.raised
        assert at == t0
    assert actor.seen == ["held"]  # the queued messages were never handled
    assert not ref.alive and isinstance(ref.failure, ActorCrashed)
    assert actor.lifecycle == ["on_start"]  # a crash is not a graceful stop
    assert [type(e) for e in leaves(actor.exit)] == [ValueError]

    # Later calls and casts fail on entry, without waiting for anything.
    with trio.CancelScope() as scope:
        scope.cancel()  # any checkpoint would raise Cancelled instead
        with pytest.raises(ActorCrashed) as info:
            await ref.call(Echo(3))
        assert info.value.__cause__ is actor.raised
        with pytest.raises(ActorCrashed):
            await ref.cast(Record(4))


async def test_later_waiter_fails_at_once_when_another_message_crashes(autojump_clock):
    """The Later task would answer in an hour and takes another hour to unwind; its
    caller still learns of the crash at the crash's own instant."""
    actor = Kernel()
    got: list[tuple[BaseException, float]] = []

    async def waiter() -> None:
        try:
            await ref.call(Wait(HOUR, slow_unwind=True), timeout=None)
        except ActorUnavailable as exc:
            got.append((exc, trio.current_time()))

    async with trio.open_nursery() as nursery:
        ref = await nursery.start(run_actor, actor)
        nursery.start_soon(waiter)
        await settle()
        assert await ref.call(Echo("mailbox free")) == "mailbox free"
        await trio.sleep(10)  # the wait is under way
        t0 = trio.current_time()
        with pytest.raises(ActorCrashed):
            await ref.call(Boom())
        assert trio.current_time() - t0 < 1
        await settle()
        assert len(got) == 1
    (exc, at), = got
    assert isinstance(exc, ActorCrashed) and exc.__cause__ is actor.raised
    assert at - t0 < 1.0
    # The actor itself needed the hour to unwind its Later task: "at once" is real.
    assert actor.later_cancelled == 1
    assert actor.exit_at - t0 == pytest.approx(HOUR)


async def test_sender_blocked_on_a_full_mailbox_fails_at_once_when_the_actor_crashes(autojump_clock):
    actor = Kernel(mailbox_size=1)
    gate = trio.Event()
    got: dict[str, tuple[BaseException, float]] = {}

    async def sender(key: str, op: str) -> None:
        try:
            if op == "call":
                await ref.call(Echo(key), timeout=None)
            else:
                await ref.cast(Record(key))
        except ActorUnavailable as exc:
            got[key] = (exc, trio.current_time())

    async with trio.open_nursery() as nursery:
        ref = await nursery.start(run_actor, actor)
        await ref.cast(Wait(HOUR, slow_unwind=True))
        await ref.cast(Hold(gate))
        await settle()
        await ref.cast(Boom())  # fills the mailbox
        # Senders queue for room in FIFO order. When the actor takes Boom, the first
        # one's message moves into the mailbox (its call then waits for a reply); the
        # other two are still blocked in send when the actor dies.
        for key, op in [("moves-in", "call"), ("blocked-call", "call"), ("blocked-cast", "cast")]:
            nursery.start_soon(sender, key, op)
            await settle()
        stats = actor._inbox.statistics()
        assert stats.current_buffer_used == 1 and stats.tasks_waiting_send == 3
        t0 = trio.current_time()
        gate.set()
    assert set(got) == {"moves-in", "blocked-call", "blocked-cast"}
    for key, (exc, at) in got.items():
        assert isinstance(exc, ActorCrashed), key
        assert at == t0, key
    assert actor.exit_at - t0 == pytest.approx(HOUR)


async def test_a_crashing_later_task_crashes_the_actor(autojump_clock):
    actor = Kernel()
    async with trio.open_nursery() as nursery:
        ref = await nursery.start(run_actor, actor)
        with pytest.raises(ActorCrashed) as info:
            await ref.call(Wait(5, then="crash"))
        assert isinstance(info.value.__cause__, KeyError)
        assert info.value.__cause__ is actor.raised
    assert [type(e) for e in leaves(actor.exit)] == [KeyError]


async def test_each_failed_caller_gets_its_own_exception_and_tracebacks_do_not_grow(autojump_clock):
    actor = Kernel()
    gate = trio.Event()
    errors: list[BaseException] = []

    async def caller() -> None:
        try:
            await ref.call(Echo(0))
        except ActorCrashed as exc:
            errors.append(exc)

    async with trio.open_nursery() as nursery:
        ref = await nursery.start(run_actor, actor)
        await ref.cast(Hold(gate))
        await ref.cast(Boom())
        for _ in range(3):
            nursery.start_soon(caller)
        await settle()
        gate.set()
    assert len(errors) == 3 and len({id(e) for e in errors}) == 3

    depths = []
    for _ in range(20):
        try:
            await ref.call(Echo(1))
        except ActorCrashed as exc:
            depths.append(len(traceback.extract_tb(exc.__traceback__)))
            assert exc.__cause__ is actor.raised
    assert len(depths) == 20 and len(set(depths)) == 1


async def test_actor_cancelled_from_outside_fails_its_callers(autojump_clock):
    actor = Kernel()
    got: list[BaseException] = []

    async def waiter() -> None:
        try:
            await ref.call(Sleep(HOUR), timeout=None)
        except ActorUnavailable as exc:
            got.append(exc)

    async with trio.open_nursery() as outer:
        with trio.CancelScope() as scope:
            async with trio.open_nursery() as nursery:
                ref = await nursery.start(run_actor, actor)
                outer.start_soon(waiter)
                await settle()
                scope.cancel()
    assert len(got) == 1 and isinstance(got[0], ActorCrashed)
    assert "cancelled" in str(got[0])
    with pytest.raises(ActorCrashed):
        await ref.cast(Record(1))


async def test_on_start_failure_fails_the_start_and_the_ref(autojump_clock):
    class Broken(Kernel):
        async def on_start(self) -> None:
            raise OSError("no browser")

    actor = Broken()
    with pytest.raises(BaseException) as info:
        async with trio.open_nursery() as nursery:
            await nursery.start(actor.run)
    assert [type(e) for e in leaves(info.value)] == [OSError]
    assert isinstance(actor.ref.failure, ActorCrashed)
    with pytest.raises(ActorCrashed):
        await actor.ref.call(Echo(1))


# -- timeouts -------------------------------------------------------------------------


async def test_call_timeout_is_a_tool_error_and_cleans_up(autojump_clock):
    actor = Kernel(mailbox_size=1)
    gate = trio.Event()
    async with trio.open_nursery() as nursery:
        ref = await nursery.start(run_actor, actor)
        await ref.cast(Hold(gate))
        await settle()
        # Reaches the mailbox, but the handler is busy.
        t0 = trio.current_time()
        with pytest.raises(ToolError) as info:
            await ref.call(Echo("queued"), timeout=2.5)
        assert info.value.code == "timeout"
        assert trio.current_time() - t0 == pytest.approx(2.5)
        assert ref._pending == set()
        # Never reaches the mailbox (it is full): same answer, same cleanup.
        t0 = trio.current_time()
        with pytest.raises(ToolError) as info:
            await ref.call(Echo("never sent"), timeout=1)
        assert info.value.code == "timeout"
        assert trio.current_time() - t0 == pytest.approx(1)
        assert ref._pending == set()
        assert actor._inbox.statistics().tasks_waiting_send == 0

        gate.set()
        # The timed-out call's message is dropped, not acted on after its caller was
        # told it failed.
        assert await ref.call(Echo("after")) == "after"
        assert actor.seen == ["held", "after"]
        assert ref.alive and ref._pending == set()
        # timeout=None waits as long as it takes.
        assert await ref.call(Sleep(HOUR, "patient"), timeout=None) == "patient"
        actor.stop()


async def test_a_queued_call_whose_caller_gave_up_is_never_handled(autojump_clock):
    actor = Kernel()
    gate = trio.Event()
    async with trio.open_nursery() as nursery:
        ref = await nursery.start(run_actor, actor)
        await ref.cast(Hold(gate))
        await settle()
        with trio.move_on_after(1):  # the caller is cancelled from outside
            await ref.call(Echo("cancelled while queued"), timeout=None)
        # Keeper path (the actor has served a call since): timed out while queued.
        gate.set()
        assert await ref.call(Echo("one")) == "one"
        gate2 = trio.Event()
        await ref.cast(Hold(gate2, "held again"))
        await settle()
        with pytest.raises(ToolError):
            await ref.call(Echo("timed out while queued"), timeout=1)
        # A message the actor already took runs to its end even if the caller leaves.
        gate3 = trio.Event()
        async with trio.open_nursery() as callers:
            callers.start_soon(ref.call, Hold(gate3, "taken"))
            await settle()
            gate2.set()
            await settle()  # the actor took it and waits on gate3
            callers.cancel_scope.cancel()
        gate3.set()
        assert await ref.call(Echo("last")) == "last"
        assert actor.seen == ["held", "one", "held again", "taken", "last"]
        actor.stop()


async def test_a_later_answer_also_respects_the_call_timeout(autojump_clock):
    actor = Kernel()
    async with trio.open_nursery() as nursery:
        ref = await nursery.start(run_actor, actor)
        with pytest.raises(ToolError) as info:
            await ref.call(Wait(HOUR), timeout=30)
        assert info.value.code == "timeout" and ref._pending == set()
        assert await ref.call(Echo(1)) == 1
        actor.stop()


@attrs.frozen
class Hang:
    """A handler that never finishes by itself (a browser hung on an absurd input)."""

    converts: bool = False  # turn the cancellation into an error of its own, as a bridge may


@attrs.frozen
class Contained:
    """A handler bug the actor declares the call's own failure (CallFailed)."""


class Hanging(Kernel):
    def __init__(self) -> None:
        super().__init__()
        self.cancelled: list[float] = []

    async def handle(self, msg: Any) -> Any:
        match msg:
            case Hang(converts):
                try:
                    await trio.sleep_forever()
                except trio.Cancelled:
                    self.cancelled.append(trio.current_time())
                    if converts:
                        raise RuntimeError("the bridge saw its task cancelled") from None
                    raise
            case Contained():
                try:
                    _ = {}["missing"]
                except KeyError as bug:
                    raise CallFailed(bug) from bug
        return await super().handle(msg)


@pytest.mark.parametrize("converts", [False, True])
async def test_a_call_past_its_deadline_is_cancelled_inside_the_actor(autojump_clock, converts):
    actor = Hanging()
    async with trio.open_nursery() as nursery:
        ref = await nursery.start(run_actor, actor)
        t0 = trio.current_time()
        with pytest.raises(ToolError) as info:
            await ref.call(Hang(converts), timeout=5)
        assert info.value.code == "timeout"
        await settle()
        assert actor.cancelled == [pytest.approx(t0 + 5)]
        # The mailbox moves on at once instead of waiting behind the hung handler.
        t1 = trio.current_time()
        assert await ref.call(Echo("next"), timeout=1) == "next"
        assert trio.current_time() - t1 < 0.001
        assert ref.alive
        actor.stop()
    assert actor.exit is None


async def test_a_handler_whose_caller_left_still_stops_at_the_deadline(autojump_clock):
    actor = Hanging()
    async with trio.open_nursery() as nursery:
        ref = await nursery.start(run_actor, actor)
        t0 = trio.current_time()
        with trio.move_on_after(1):  # the caller gives up early; the handler runs on
            await ref.call(Hang(), timeout=10)
        await settle()
        assert actor.cancelled == []
        assert await ref.call(Echo("after"), timeout=20) == "after"
        assert actor.cancelled == [pytest.approx(t0 + 10)]
        actor.stop()


async def test_a_later_task_past_its_deadline_is_cancelled(autojump_clock):
    actor = Kernel()
    async with trio.open_nursery() as nursery:
        ref = await nursery.start(run_actor, actor)
        with pytest.raises(ToolError):
            await ref.call(Wait(HOUR), timeout=30)
        await settle()
        assert actor.later_cancelled == 1 and ref.alive
        actor.stop()


async def test_call_failed_fails_that_call_and_the_actor_serves_on(autojump_clock):
    actor = Hanging()
    async with trio.open_nursery() as nursery:
        ref = await nursery.start(run_actor, actor)
        with pytest.raises(KeyError):
            await ref.call(Contained())
        assert ref.alive and await ref.call(Echo("still")) == "still"
        assert ref.statistics().calls_served == 2
        actor.stop()
    assert actor.exit is None


async def test_timeouts_kept_by_the_actor_fire_each_at_its_own_deadline(autojump_clock):
    # After its first call the actor's deadline keeper runs, and calls that find room
    # in the mailbox are timed by it instead of by a cancel scope of their own.
    actor = Kernel()
    async with trio.open_nursery() as nursery:
        ref = await nursery.start(run_actor, actor)
        assert await ref.call(Echo("first")) == "first"
        await settle()
        assert ref._deadlines.keeping
        ended: dict[str, float] = {}

        async def waits(label: str, timeout: float) -> None:
            t0 = trio.current_time()
            with pytest.raises(ToolError) as info:
                await ref.call(Wait(HOUR, value=label), timeout=timeout)
            assert info.value.code == "timeout"
            assert str(info.value).endswith(f"did not answer Wait within {timeout:g}s")
            ended[label] = trio.current_time() - t0

        async with trio.open_nursery() as callers:
            # Booked latest-first: each shorter deadline must wake the keeper early.
            for label, timeout in (("long", 30.0), ("short", 2.5), ("middle", 10.0)):
                callers.start_soon(waits, label, timeout)
                await settle()
        assert ended == {"long": pytest.approx(30), "short": pytest.approx(2.5),
                         "middle": pytest.approx(10)}
        assert ref._pending == set()
        assert ref.alive and await ref.call(Echo("still serving")) == "still serving"
        actor.stop()


async def test_answered_calls_do_not_pile_up_in_the_deadline_heap(autojump_clock):
    actor = Kernel()
    async with trio.open_nursery() as nursery:
        ref = await nursery.start(run_actor, actor)
        await ref.call(Echo(0))
        await settle()
        for n in range(2_000):
            assert await ref.call(Echo(n)) == n
        # One call in flight at a time: the heap is compacted to a small bound.
        assert len(ref._deadlines) <= 4 * 1 + 64 + 1
        actor.stop()


# -- backpressure ---------------------------------------------------------------------


async def test_full_mailbox_makes_senders_wait(autojump_clock):
    actor = Kernel(mailbox_size=2)
    gate = trio.Event()
    sent: list[int] = []

    async def sender() -> None:
        for n in (3, 4):
            await ref.cast(Record(n))
            sent.append(n)

    async with trio.open_nursery() as nursery:
        ref = await nursery.start(run_actor, actor)
        await ref.cast(Hold(gate))
        await settle()  # the handler took it and blocks; the mailbox is empty
        for n in (1, 2):
            await ref.cast(Record(n))
            sent.append(n)
        nursery.start_soon(sender)
        await settle()
        # The 3rd cast waits for room (and so the 4th is not even attempted).
        assert sent == [1, 2]
        stats = actor._inbox.statistics()
        assert stats.max_buffer_size == 2
        assert stats.current_buffer_used == 2
        assert stats.tasks_waiting_send == 1
        await trio.sleep(HOUR)  # time changes nothing: it is backpressure, not a queue
        assert sent == [1, 2] and actor._inbox.statistics().current_buffer_used == 2

        gate.set()
        await settle()
        assert sent == [1, 2, 3, 4]
        assert actor.seen == ["held", 1, 2, 3, 4]
        assert actor._inbox.statistics().current_buffer_used == 0
        actor.stop()


async def test_backpressure_never_buffers_beyond_capacity(autojump_clock):
    actor = Kernel(mailbox_size=2)
    high_water = 0

    async def sender(start: int) -> None:
        for n in range(start, start + 20):
            await ref.cast(Record(n))

    class Watching(trio.abc.Instrument):
        def after_task_step(self, task: trio.lowlevel.Task) -> None:
            nonlocal high_water
            high_water = max(high_water, actor._inbox.statistics().current_buffer_used)

    instrument = Watching()
    trio.lowlevel.add_instrument(instrument)
    try:
        async with trio.open_nursery() as nursery:
            ref = await nursery.start(run_actor, actor)
            async with trio.open_nursery() as senders:
                for start in (0, 100, 200):
                    senders.start_soon(sender, start)
            assert await ref.call(Echo("done")) == "done"
            actor.stop()
    finally:
        trio.lowlevel.remove_instrument(instrument)
    assert high_water == 2
    assert sorted(actor.seen[:-1]) == sorted([*range(20), *range(100, 120), *range(200, 220)])


# -- Later ----------------------------------------------------------------------------


async def test_later_does_not_block_the_mailbox_and_answers_later(autojump_clock):
    actor = Kernel()
    answers: list[tuple[Any, float]] = []
    answered = trio.Event()

    async def waiter() -> None:
        answers.append((await ref.call(Wait(60, "after a minute"), timeout=None), trio.current_time()))
        answered.set()

    async with trio.open_nursery() as nursery:
        ref = await nursery.start(run_actor, actor)
        t0 = trio.current_time()
        nursery.start_soon(waiter)
        await settle()
        for n in range(5):
            assert await ref.call(Echo(n)) == n
        assert trio.current_time() == t0  # served while the wait is under way
        assert answers == []
        await settle()
        await answered.wait()
        assert answers == [("after a minute", t0 + 60)]
        actor.stop()


@pytest.mark.parametrize(
    ("then", "code"), [("raise-tool-error", "action-failed"), ("return-tool-error", "timeout")]
)
async def test_tool_error_from_a_later_task_comes_back_as_tool_error(autojump_clock, then, code):
    actor = Kernel()
    async with trio.open_nursery() as nursery:
        ref = await nursery.start(run_actor, actor)
        with pytest.raises(ToolError) as info:
            await ref.call(Wait(3, then=then))
        assert info.value.code == code
        assert ref.alive
        assert await ref.call(Echo("ok")) == "ok"
        actor.stop()
    assert actor.exit is None


async def test_cast_of_a_later_message_runs_it_without_anyone_to_answer(autojump_clock):
    actor = Kernel()
    async with trio.open_nursery() as nursery:
        ref = await nursery.start(run_actor, actor)
        await ref.cast(Wait(5, then="raise-tool-error"))
        await ref.cast(Wait(5))
        await trio.sleep(10)
        assert ref.alive and await ref.call(Echo("fine")) == "fine"
        actor.stop()


# -- stop -----------------------------------------------------------------------------


async def test_stop_finishes_the_message_in_hand_and_fails_pending_and_later_calls(autojump_clock):
    actor = Kernel(mailbox_size=1)
    gate = trio.Event()
    got: dict[str, BaseException] = {}

    async def caller(key: str, msg: Any) -> None:
        try:
            await ref.call(msg, timeout=None)
        except BaseException as exc:
            got[key] = exc

    async with trio.open_nursery() as nursery:
        ref = await nursery.start(run_actor, actor)
        nursery.start_soon(caller, "later", Wait(HOUR))
        await settle()
        await ref.cast(Hold(gate))
        await settle()
        nursery.start_soon(caller, "queued", Echo("queued"))
        await settle()
        nursery.start_soon(caller, "blocked", Echo("blocked"))
        await settle()
        assert actor._inbox.statistics().tasks_waiting_send == 1
        t0 = trio.current_time()
        actor.stop()
        actor.stop()  # idempotent
        await settle()
        # The message in hand is answered before the actor stops, as in OTP.
        assert actor.lifecycle == ["on_start"]
        gate.set()
    assert actor.exit is None and actor.exit_at == t0
    assert set(got) == {"later", "queued", "blocked"}
    assert all(isinstance(exc, ActorStopped) for exc in got.values()), got
    assert actor.lifecycle == ["on_start", "on_stop"]
    assert actor.later_cancelled == 1  # the Later task went with the actor's nursery
    assert actor.seen == ["held"]  # no message was handled after the stop
    assert not ref.alive and isinstance(ref.failure, ActorStopped)
    with pytest.raises(ActorStopped):
        await ref.call(Echo(1))
    with pytest.raises(ActorStopped):
        await ref.cast(Record(1))


async def test_stop_fails_waiting_callers_before_a_slow_on_stop_finishes(autojump_clock):
    class SlowStop(Kernel):
        async def on_stop(self) -> None:
            self.lifecycle.append("on_stop")
            await trio.sleep(10)  # e.g. closing a browser politely

    actor = SlowStop()
    got: list[tuple[BaseException, float]] = []

    async def waiter() -> None:
        try:
            await ref.call(Wait(HOUR), timeout=None)
        except ActorUnavailable as exc:
            got.append((exc, trio.current_time()))

    async with trio.open_nursery() as nursery:
        ref = await nursery.start(run_actor, actor)
        nursery.start_soon(waiter)
        await settle()
        t0 = trio.current_time()
        actor.stop()
        await settle()
        assert actor.lifecycle == ["on_start", "on_stop"]  # still inside on_stop
        with pytest.raises(ActorStopped):
            await ref.call(Echo("too late"))
    ((exc, at),) = got
    assert isinstance(exc, ActorStopped) and at == t0
    assert actor.exit is None and actor.exit_at == t0 + 10
    assert actor.later_cancelled == 1


async def test_stop_before_the_first_message_still_runs_the_hooks(autojump_clock):
    actor = Kernel()
    async with trio.open_nursery() as nursery:
        await nursery.start(run_actor, actor)
        actor.stop()
    assert actor.lifecycle == ["on_start", "on_stop"] and actor.exit is None
    with pytest.raises(RuntimeError):
        actor.nursery  # noqa: B018 - not running any more


async def test_an_actor_may_stop_itself_and_answer_first(autojump_clock):
    class Quitter(Kernel):
        async def handle(self, msg: Any) -> Any:
            if msg == "quit":
                self.stop()
                return "bye"
            return await super().handle(msg)

    actor = Quitter()
    async with trio.open_nursery() as nursery:
        ref = await nursery.start(run_actor, actor)
        assert await ref.call("quit") == "bye"
    assert actor.exit is None and actor.lifecycle == ["on_start", "on_stop"]
    assert isinstance(ref.failure, ActorStopped)


# -- ordering and parallelism ---------------------------------------------------------


async def test_calls_on_one_actor_are_processed_in_order(autojump_clock):
    actor = Kernel(mailbox_size=3)
    async with trio.open_nursery() as nursery:
        ref = await nursery.start(run_actor, actor)
        expected = []
        for n in range(50):
            if n % 3 == 0:
                assert await ref.call(Echo(n)) == n
            else:
                await ref.cast(Record(n))
            expected.append(n)
        assert await ref.call(Echo("end")) == "end"
        assert actor.seen == [*expected, "end"]
        actor.stop()


@settings(max_examples=40, deadline=None)
@given(
    plans=st.lists(
        st.lists(st.tuples(st.sampled_from(["call", "cast", "sleep"]), st.integers(0, 3)), max_size=12),
        min_size=1,
        max_size=4,
    ),
    mailbox_size=st.integers(1, 4),
)
async def test_each_callers_messages_are_handled_in_the_order_sent(plans, mailbox_size):
    """Any number of concurrent callers: each one's messages keep their order."""

    class Yielding(Kernel):
        async def handle(self, msg: Any) -> Any:
            if isinstance(msg, Record | Echo):
                for _ in range(msg.value[2]):
                    await trio.lowlevel.checkpoint()
            return await super().handle(msg)

    actor = Yielding(mailbox_size=mailbox_size)

    async def caller(who: int, plan: list[tuple[str, int]]) -> None:
        for seq, (op, spin) in enumerate(plan):
            value = (who, seq, spin)
            if op == "call":
                assert await ref.call(Echo(value)) == value
            elif op == "cast":
                await ref.cast(Record(value))
            else:
                await ref.cast(Record(value))
                for _ in range(spin):
                    await trio.lowlevel.checkpoint()

    async with trio.open_nursery() as nursery:
        ref = await nursery.start(run_actor, actor)
        async with trio.open_nursery() as callers:
            for who, plan in enumerate(plans):
                callers.start_soon(caller, who, plan)
        await ref.call(Echo((-1, 0, 0)))
        actor.stop()
    for who, plan in enumerate(plans):
        assert [seq for (w, seq, _) in actor.seen if w == who] == list(range(len(plan)))


async def test_calls_on_different_actors_run_in_parallel(autojump_clock):
    actors = [Kernel(f"session-{n}") for n in range(4)]
    results: list[Any] = []
    async with trio.open_nursery() as nursery:
        refs = [await nursery.start(run_actor, a) for a in actors]
        t0 = trio.current_time()
        async with trio.open_nursery() as callers:
            for n, ref in enumerate(refs):
                callers.start_soon(_call_into, results, ref, Sleep(10, n))
        assert trio.current_time() - t0 == pytest.approx(10)  # not 40
        for a in actors:
            a.stop()
    assert sorted(results) == [0, 1, 2, 3]


async def _call_into(results: list[Any], ref: ActorRef, msg: Any) -> None:
    results.append(await ref.call(msg))


# -- statistics: backpressure you can see ---------------------------------------------


async def test_statistics_show_the_mailbox_the_waiting_senders_and_the_timeouts(autojump_clock):
    actor = Kernel(mailbox_size=2)
    gate = trio.Event()
    async with trio.open_nursery() as nursery:
        ref = await nursery.start(run_actor, actor)
        idle = ref.statistics()
        assert (idle.mailbox_used, idle.mailbox_capacity, idle.senders_waiting) == (0, 2, 0)
        assert (idle.calls_pending, idle.calls_served, idle.calls_timed_out) == (0, 0, 0)

        async def call(msg: Any, timeout: float | None = None) -> None:
            with pytest.raises(ToolError):
                await ref.call(msg, timeout=timeout)

        nursery.start_soon(ref.call, Hold(gate))  # taken: the handler holds the mailbox
        await settle()
        for _ in range(2):
            nursery.start_soon(ref.call, Echo("queued"))
        await settle()  # both in the mailbox (Trio runs new tasks in any order)
        nursery.start_soon(call, Echo("late"), 5.0)  # the mailbox is full: this one waits for room
        await settle()
        loaded = ref.statistics()
        assert (loaded.mailbox_used, loaded.senders_waiting, loaded.calls_pending) == (2, 1, 4)
        await trio.sleep(6)  # the waiting sender gives up
        assert ref.statistics().calls_timed_out == 1 and ref.statistics().senders_waiting == 0
        gate.set()
        await settle()
        done = ref.statistics()
        assert (done.mailbox_used, done.calls_pending, done.calls_served) == (0, 0, 3)
        assert done.as_dict() == {"mailbox": {"used": 0, "capacity": 2, "sendersWaiting": 0},
                                  "pending": 0, "served": 3, "timedOut": 1}
        actor.stop()
    assert ref.statistics().alive is False
