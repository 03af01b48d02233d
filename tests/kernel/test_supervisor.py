"""Supervisors after Erlang/OTP: strategies, restart types, intensity, shutdown,
dynamic children and the event log.

Every test runs under ``trio.testing.MockClock(autojump_threshold=0)`` (the
``autojump_clock`` fixture): restarts spaced in time and shutdown graces are simulated.
"""

from __future__ import annotations

from typing import Any

import attrs
import pytest
import trio
import trio.testing

from browx_actors.errors import ToolError
from browx_actors.kernel.actor import Actor, Later
from browx_actors.kernel.actor_ref import ActorCrashed, ActorRef, ActorStopped
from browx_actors.kernel.supervision import (
    ChildInfo,
    ChildSpec,
    EventLog,
    Restart,
    StartChild,
    Strategy,
    SupervisorEscalation,
    TerminateChild,
    WhichChildren,
)
from browx_actors.kernel.supervisor import Supervisor

# -- a small test child ---------------------------------------------------------------


@attrs.frozen
class Ping:
    pass


@attrs.frozen
class Crash:
    pass


@attrs.frozen
class Quit:
    """Stop this child from inside: a normal exit."""


@attrs.frozen
class Park:
    """Answer from a Later task that waits forever."""


class Worker(Actor):
    """Records ("start", id) / ("stop", id) in a shared list; crashes or quits on demand."""

    def __init__(
        self, cid: str, log: list[tuple[str, str]], *, hang_on_stop: bool = False,
        fail_start: bool | str = False,
    ) -> None:
        super().__init__(f"worker-{cid}")
        self.cid = cid
        self.log = log
        self.hang_on_stop = hang_on_stop
        self.fail_start = fail_start

    async def on_start(self) -> None:
        if self.fail_start == "tool-error":
            raise ToolError("unavailable", f"{self.cid} has no browser")
        if self.fail_start:
            raise OSError(f"{self.cid} cannot start")
        self.log.append(("start", self.cid))

    async def on_stop(self) -> None:
        self.log.append(("stop", self.cid))
        if self.hang_on_stop:
            await trio.sleep_forever()

    async def handle(self, msg: Any) -> Any:
        match msg:
            case Ping():
                return ("pong", self.cid, self.name)
            case Crash():
                raise RuntimeError(f"{self.cid} crashed on purpose")
            case Quit():
                self.stop()
                return "bye"
            case Park():
                return Later.of(trio.sleep_forever)
        return await super().handle(msg)


def spec(cid: str, log: list[tuple[str, str]], restart: Restart = Restart.PERMANENT, *,
         shutdown: float = 5.0, **kw: Any) -> ChildSpec:
    return ChildSpec(cid, lambda: Worker(cid, log, **kw), restart, shutdown)


async def run_quietly(actor: Actor, *, task_status: trio.TaskStatus[ActorRef] = trio.TASK_STATUS_IGNORED) -> None:
    """Run an actor and keep its crash on ``actor.exit`` instead of raising it."""
    actor.exit = None  # type: ignore[attr-defined]
    try:
        await actor.run(task_status=task_status)
    except Exception as exc:  # the tests inspect it
        actor.exit = exc  # type: ignore[attr-defined]


async def settle() -> None:
    """Let every exit notice, stop and restart run to completion (no time passes)."""
    await trio.testing.wait_all_tasks_blocked()


async def crash(sup: Supervisor, cid: str) -> ActorRef:
    """Crash child ``cid`` through a call; return its (dead) ref once the supervisor
    has dealt with the exit."""
    ref = sup.child_ref(cid)
    assert ref is not None and ref.alive
    with pytest.raises(ActorCrashed) as info:
        await ref.call(Crash())
    assert isinstance(info.value.__cause__, RuntimeError)
    await settle()
    return ref


def kinds(events: EventLog, *skip: str) -> list[tuple[str, str]]:
    return [(e.child, e.kind) for e in events.events if e.kind not in skip]


def all_tasks() -> list[trio.lowlevel.Task]:
    found: list[trio.lowlevel.Task] = []

    def walk(task: trio.lowlevel.Task) -> None:
        found.append(task)
        for nursery in task.child_nurseries:
            for child in nursery.child_tasks:
                walk(child)

    walk(trio.lowlevel.current_root_task())
    return found


def leaves(exc: BaseException) -> list[BaseException]:
    if isinstance(exc, BaseExceptionGroup):
        return [leaf for sub in exc.exceptions for leaf in leaves(sub)]
    return [exc]


# -- start and stop order -------------------------------------------------------------


async def test_children_start_in_order_and_stop_in_reverse(autojump_clock):
    log: list[tuple[str, str]] = []
    events = EventLog()
    sup = Supervisor("root", [spec(c, log) for c in "abc"], events=events)
    async with trio.open_nursery() as nursery:
        ref = await nursery.start(run_quietly, sup)
        assert log == [("start", "a"), ("start", "b"), ("start", "c")]
        assert sup.child_ids() == ["a", "b", "c"]
        refs = [sup.child_ref(c) for c in "abc"]
        for cid, child in zip("abc", refs, strict=True):
            assert await child.call(Ping()) == ("pong", cid, f"worker-{cid}")
        sup.stop()
    assert sup.exit is None
    assert log[3:] == [("stop", "c"), ("stop", "b"), ("stop", "a")]
    assert [(e.child, e.kind, e.reason) for e in events.events] == [
        ("a", "started", ""), ("b", "started", ""), ("c", "started", ""),
        ("c", "stopped", "shutdown"), ("b", "stopped", "shutdown"), ("a", "stopped", "shutdown"),
    ]
    assert all(isinstance(r.failure, ActorStopped) for r in refs)
    assert isinstance(ref.failure, ActorStopped)


# -- strategies -----------------------------------------------------------------------


async def test_one_for_one_restarts_only_the_failed_child(autojump_clock):
    log: list[tuple[str, str]] = []
    events = EventLog()
    sup = Supervisor("s", [spec(c, log) for c in "abc"], strategy=Strategy.ONE_FOR_ONE, events=events)
    async with trio.open_nursery() as nursery:
        await nursery.start(run_quietly, sup)
        ref_a, ref_c = sup.child_ref("a"), sup.child_ref("c")
        del log[:]
        await crash(sup, "b")
        assert log == [("start", "b")]
        assert sup.child_ref("a") is ref_a and sup.child_ref("c") is ref_c
        assert ref_a.alive and ref_c.alive
        assert (await sup.child_ref("b").call(Ping()))[1] == "b"
        assert kinds(events)[3:] == [("b", "exited"), ("b", "started"), ("b", "restarted")]
        sup.stop()


async def test_one_for_all_stops_the_others_in_reverse_then_restarts_all_in_order(autojump_clock):
    log: list[tuple[str, str]] = []
    events = EventLog()
    sup = Supervisor("s", [spec(c, log) for c in "abcd"], strategy=Strategy.ONE_FOR_ALL, events=events)
    async with trio.open_nursery() as nursery:
        await nursery.start(run_quietly, sup)
        old = {c: sup.child_ref(c) for c in "abcd"}
        del log[:]
        await crash(sup, "b")
        # b crashed (no on_stop); the others stop newest first, then all start in order.
        assert log == [
            ("stop", "d"), ("stop", "c"), ("stop", "a"),
            ("start", "a"), ("start", "b"), ("start", "c"), ("start", "d"),
        ]
        assert kinds(events)[4:] == [
            ("b", "exited"),
            ("d", "stopped"), ("c", "stopped"), ("a", "stopped"),
            ("a", "started"), ("a", "restarted"),
            ("b", "started"), ("b", "restarted"),
            ("c", "started"), ("c", "restarted"),
            ("d", "started"), ("d", "restarted"),
        ]
        assert {e.reason for e in events.events if e.kind == "stopped"} == {"sibling b exited"}
        for c in "abcd":
            assert not old[c].alive and sup.child_ref(c).alive
        assert isinstance(old["b"].failure, ActorCrashed)
        assert isinstance(old["a"].failure, ActorStopped)
        sup.stop()


async def test_rest_for_one_restarts_the_failed_child_and_those_after_it(autojump_clock):
    log: list[tuple[str, str]] = []
    events = EventLog()
    sup = Supervisor("s", [spec(c, log) for c in "abcd"], strategy=Strategy.REST_FOR_ONE, events=events)
    async with trio.open_nursery() as nursery:
        await nursery.start(run_quietly, sup)
        ref_a = sup.child_ref("a")
        del log[:]
        await crash(sup, "b")
        assert log == [("stop", "d"), ("stop", "c"), ("start", "b"), ("start", "c"), ("start", "d")]
        assert kinds(events)[4:] == [
            ("b", "exited"),
            ("d", "stopped"), ("c", "stopped"),
            ("b", "started"), ("b", "restarted"),
            ("c", "started"), ("c", "restarted"),
            ("d", "started"), ("d", "restarted"),
        ]
        assert sup.child_ref("a") is ref_a and ref_a.alive

        # The last child failing restarts only itself.
        del log[:]
        await crash(sup, "d")
        assert log == [("start", "d")]
        sup.stop()


# -- restart types --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("restart", "exit_msg", "restarted"),
    [
        (Restart.PERMANENT, Quit(), True),
        (Restart.PERMANENT, Crash(), True),
        (Restart.TRANSIENT, Quit(), False),
        (Restart.TRANSIENT, Crash(), True),
        (Restart.TEMPORARY, Quit(), False),
        (Restart.TEMPORARY, Crash(), False),
    ],
)
async def test_restart_types(autojump_clock, restart, exit_msg, restarted):
    log: list[tuple[str, str]] = []
    events = EventLog()
    sup = Supervisor("s", [spec("x", log, restart), spec("other", log)], events=events)
    async with trio.open_nursery() as nursery:
        ref = await nursery.start(run_quietly, sup)
        old = sup.child_ref("x")
        if isinstance(exit_msg, Quit):
            assert await old.call(Quit()) == "bye"
        else:
            with pytest.raises(ActorCrashed):
                await old.call(Crash())
        await settle()
        exited = [e for e in events.events if e.kind == "exited"]
        assert [(e.child, e.reason.split(":")[0]) for e in exited] == [
            ("x", "normal" if isinstance(exit_msg, Quit) else "abnormal")
        ]
        children = await ref.call(WhichChildren())
        if restarted:
            assert log.count(("start", "x")) == 2
            assert [c.id for c in children] == ["x", "other"]
            assert children[0] == ChildInfo("x", "worker-x", restart.value, True)
            assert sup.child_ref("x") is not old and sup.child_ref("x").alive
            assert kinds(events)[-2:] == [("x", "started"), ("x", "restarted")]
            assert events.restarts == {"s/x": 1}
        else:
            assert log.count(("start", "x")) == 1
            assert [c.id for c in children] == ["other"]
            assert sup.child_ref("x") is None
            assert kinds(events)[-1] == ("x", "exited")
            assert events.restarts == {}
        assert log.count(("start", "other")) == 1  # one_for_one: the sibling is untouched
        sup.stop()
    assert sup.exit is None


async def test_one_for_all_does_not_restart_a_temporary_sibling(autojump_clock):
    log: list[tuple[str, str]] = []
    events = EventLog()
    sup = Supervisor(
        "s",
        [spec("a", log), spec("tmp", log, Restart.TEMPORARY), spec("tr", log, Restart.TRANSIENT),
         spec("c", log)],
        strategy=Strategy.ONE_FOR_ALL,
        events=events,
    )
    async with trio.open_nursery() as nursery:
        ref = await nursery.start(run_quietly, sup)
        del log[:]
        await crash(sup, "a")
        # Everyone stops (newest first); the temporary sibling stays gone, the transient
        # one comes back (its exit was the supervisor's doing, as in OTP).
        assert log == [
            ("stop", "c"), ("stop", "tr"), ("stop", "tmp"),
            ("start", "a"), ("start", "tr"), ("start", "c"),
        ]
        assert [c.id for c in await ref.call(WhichChildren())] == ["a", "tr", "c"]
        assert sup.child_ref("tmp") is None
        assert ("tmp", "stopped") in kinds(events) and ("tmp", "restarted") not in kinds(events)
        sup.stop()


async def test_a_temporary_child_exiting_does_not_disturb_its_siblings(autojump_clock):
    log: list[tuple[str, str]] = []
    sup = Supervisor("s", [spec("a", log), spec("t", log, Restart.TEMPORARY), spec("c", log)],
                     strategy=Strategy.ONE_FOR_ALL)
    async with trio.open_nursery() as nursery:
        await nursery.start(run_quietly, sup)
        del log[:]
        await crash(sup, "t")
        assert log == [] and sup.child_ids() == ["a", "c"]
        sup.stop()


# -- intensity ------------------------------------------------------------------------


async def test_the_fourth_restart_within_five_seconds_escalates(autojump_clock):
    log: list[tuple[str, str]] = []
    events = EventLog()
    sup = Supervisor("s", [spec(c, log) for c in "abc"], events=events)  # defaults: 3 in 5 s
    assert (sup.intensity, sup.period) == (3, 5.0)
    with pytest.raises(BaseException) as info:  # checked just below
        async with trio.open_nursery() as nursery:
            await nursery.start(sup.run)
            t0 = trio.current_time()
            for _ in range(3):
                await crash(sup, "b")
                await trio.sleep(1)
            assert events.restarts == {"s/b": 3}
            del log[:]
            await crash(sup, "b")
            raise AssertionError("the supervisor should have escalated")
    assert [type(e) for e in leaves(info.value)] == [SupervisorEscalation]
    assert info.group_contains(SupervisorEscalation, depth=None)
    assert trio.current_time() - t0 == pytest.approx(3)
    # Children stopped newest first; the crashed one was already dead.
    assert log == [("stop", "c"), ("stop", "a")]
    assert kinds(events)[-4:] == [("b", "exited"), ("b", "escalated"), ("c", "stopped"), ("a", "stopped")]
    assert {e.reason for e in events.events if e.kind == "stopped"} == {"escalation"}
    assert isinstance(sup.ref.failure, ActorCrashed)
    assert isinstance(sup.ref.failure.__cause__, SupervisorEscalation)
    assert [type(e) for e in leaves(sup.ref.failure.__cause__.__cause__)] == [RuntimeError]  # b's crash


def flaky_spec(cid: str, log: list[tuple[str, str]], starts: list[bool]) -> ChildSpec:
    """A child whose n-th start fails when ``starts[n]`` is False (later ones succeed)."""
    made = iter(starts)
    return ChildSpec(cid, lambda: Worker(cid, log, fail_start=not next(made, True)))


async def test_a_restart_whose_start_fails_is_tried_again_and_counted(autojump_clock):
    log: list[tuple[str, str]] = []
    events = EventLog()
    sup = Supervisor("s", [spec("a", log), flaky_spec("b", log, [True, False])], events=events)
    async with trio.open_nursery() as nursery:
        await nursery.start(run_quietly, sup)
        await crash(sup, "b")
        assert sup.exit is None and sup.ref.alive
        assert kinds(events, "started")[-3:] == [("b", "exited"), ("b", "restart-failed"), ("b", "restarted")]
        failed = [e for e in events.events if e.kind == "restart-failed"]
        assert failed[0].reason == "start failed: OSError('b cannot start')"
        assert await sup.child_ref("b").call(Ping()) == ("pong", "b", "worker-b")
        assert await sup.child_ref("a").call(Ping()) == ("pong", "a", "worker-a")
        # Two restarts in the window now (the crash and the failed attempt): two more
        # crashes within the period escalate.
        await crash(sup, "b")
        assert sup.ref.alive
        with pytest.raises(ActorCrashed):
            await sup.child_ref("b").call(Crash())
        await settle()
        assert [type(e) for e in leaves(sup.exit)] == [SupervisorEscalation]
        nursery.cancel_scope.cancel()


async def test_a_child_that_can_no_longer_start_escalates_within_the_intensity(autojump_clock):
    log: list[tuple[str, str]] = []
    events = EventLog()
    never_again = [True] + [False] * 10
    sup = Supervisor("s", [spec("a", log), flaky_spec("b", log, never_again), spec("c", log)],
                     events=events)
    async with trio.open_nursery() as nursery:
        await nursery.start(run_quietly, sup)
        t0 = trio.current_time()
        del log[:]
        await crash(sup, "b")
        [escalation] = leaves(sup.exit)
        assert isinstance(escalation, SupervisorEscalation)
        assert "b start failed: OSError('b cannot start')" in str(escalation)
        assert [type(e) for e in leaves(escalation.__cause__)] == [OSError]
        # The crash counts 1; attempts 2 and 3 fail within the limit; the 3rd failure is
        # the 4th restart in the period. No time passes: the retries are immediate.
        assert kinds(events, "started")[-7:] == [
            ("b", "exited"), ("b", "restart-failed"), ("b", "restart-failed"),
            ("b", "restart-failed"), ("b", "escalated"), ("c", "stopped"), ("a", "stopped"),
        ]
        assert trio.current_time() == t0
        assert log == [("stop", "c"), ("stop", "a")]
        assert isinstance(sup.ref.failure, ActorCrashed)
        nursery.cancel_scope.cancel()


async def test_escalation_reaches_an_outer_supervisor_which_restarts_the_subtree(autojump_clock):
    log: list[tuple[str, str]] = []
    events = EventLog()
    inner: list[Supervisor] = []

    def make_inner() -> Supervisor:
        sup = Supervisor("inner", [spec("a", log), spec("b", log)], intensity=1, period=10, events=events)
        inner.append(sup)
        return sup

    outer = Supervisor("outer", [ChildSpec("inner", make_inner), spec("z", log)], events=events)
    async with trio.open_nursery() as nursery:
        await nursery.start(run_quietly, outer)
        ref_z = outer.child_ref("z")
        await crash(inner[0], "a")  # 1 restart: allowed
        del log[:]
        await crash(inner[0], "a")  # 2nd within 10 s: escalates to the outer supervisor
        assert log == [("stop", "b"), ("start", "a"), ("start", "b")]
        assert len(inner) == 2 and outer.child_ref("inner") is inner[1].ref
        assert isinstance(inner[0].ref.failure, ActorCrashed)
        assert outer.child_ref("z") is ref_z and ref_z.alive  # one_for_one outside
        exits = [e for e in events.events if e.supervisor == "outer" and e.kind == "exited"]
        assert len(exits) == 1 and exits[0].child == "inner"
        assert "SupervisorEscalation" in exits[0].reason
        assert ("inner", "restarted") in [(e.child, e.kind) for e in events.events if e.supervisor == "outer"]
        assert (await inner[1].child_ref("a").call(Ping()))[1] == "a"
        outer.stop()
    assert outer.exit is None


@pytest.mark.parametrize(("spacing", "escalates"), [(6.0, False), (1.7, False), (1.6, True)])
async def test_intensity_counts_only_restarts_within_the_period(autojump_clock, spacing, escalates):
    """3 in 5 s: four restarts 1.6 s apart span 4.8 s (too many), 1.7 s apart 5.1 s."""
    log: list[tuple[str, str]] = []
    events = EventLog()
    sup = Supervisor("s", [spec("a", log), spec("b", log)], events=events)
    async with trio.open_nursery() as nursery:
        nursery.start_soon(run_quietly, sup)
        await settle()
        for n in range(12 if not escalates else 4):
            if n:
                await trio.sleep(spacing)
            await crash(sup, "b")
            if escalates and n == 3:
                break
        if not escalates:
            assert events.restarts == {"s/b": 12}
            assert sup.ref.alive
            sup.stop()
    if escalates:
        assert [type(e) for e in leaves(sup.exit)] == [SupervisorEscalation]
        assert events.restarts == {"s/b": 3}
    else:
        assert sup.exit is None
        assert "escalated" not in {e.kind for e in events.events}


# -- shutdown -------------------------------------------------------------------------


async def test_a_hanging_on_stop_is_cancelled_after_exactly_its_grace(autojump_clock):
    log: list[tuple[str, str]] = []
    events = EventLog()
    sup = Supervisor(
        "s",
        [spec("a", log), spec("hangs", log, shutdown=2.5, hang_on_stop=True), spec("c", log)],
        events=events,
    )
    async with trio.open_nursery() as nursery:
        await nursery.start(run_quietly, sup)
        hung = sup.child_ref("hangs")
        t0 = trio.current_time()
        sup.stop()
    assert trio.current_time() - t0 == pytest.approx(2.5)
    assert sup.exit is None
    assert log[3:] == [("stop", "c"), ("stop", "hangs"), ("stop", "a")]
    stopped = {e.child: e.at - t0 for e in events.events if e.kind == "stopped"}
    assert stopped == {"c": 0, "hangs": pytest.approx(2.5), "a": pytest.approx(2.5)}
    assert not hung.alive


async def test_terminate_child_cancels_a_hanging_child_after_its_grace(autojump_clock):
    log: list[tuple[str, str]] = []
    sup = Supervisor("s", [spec("a", log)])
    async with trio.open_nursery() as nursery:
        ref = await nursery.start(run_quietly, sup)
        await ref.call(StartChild(spec("slow", log, shutdown=7, hang_on_stop=True)))
        t0 = trio.current_time()
        assert await ref.call(TerminateChild("slow"), timeout=None) is True
        assert trio.current_time() - t0 == pytest.approx(7)
        assert sup.child_ids() == ["a"]
        sup.stop()


async def test_cancelling_a_supervisor_leaves_no_task_running(autojump_clock):
    log: list[tuple[str, str]] = []
    before = len(all_tasks())

    def make_inner() -> Supervisor:
        return Supervisor("inner", [spec("x", log), spec("y", log, hang_on_stop=True)])

    outer = Supervisor("outer", [spec("a", log), ChildSpec("inner", make_inner), spec("b", log)])
    parked_failed = trio.Event()

    async def parked(ref: ActorRef) -> None:
        """A caller outside the cancelled tree, waiting on a child's Later answer."""
        try:
            await ref.call(Park(), timeout=None)
        except ActorCrashed:
            parked_failed.set()

    async with trio.open_nursery() as outside:
        with trio.CancelScope() as scope:
            async with trio.open_nursery() as nursery:
                await nursery.start(run_quietly, outer)
                ref_a = outer.child_ref("a")
                outside.start_soon(parked, ref_a)
                await settle()
                assert len(all_tasks()) > before + 6
                t0 = trio.current_time()
                scope.cancel()
        assert trio.current_time() == t0  # cancellation does not wait for any grace
    assert len(all_tasks()) == before
    assert parked_failed.is_set()
    assert isinstance(outer.ref.failure, ActorCrashed)
    assert not outer.child_ref("inner").alive and not ref_a.alive


async def test_a_graceful_stop_also_leaves_no_task_running(autojump_clock):
    log: list[tuple[str, str]] = []
    before = len(all_tasks())
    sup = Supervisor("s", [spec("a", log), spec("b", log, hang_on_stop=True, shutdown=1)])
    async with trio.open_nursery() as nursery:
        ref = await nursery.start(run_quietly, sup)
        await sup.child_ref("a").cast(Park())  # a Later task inside a child
        await ref.call(StartChild(spec("dyn", log)))
        await settle()
        sup.stop()
    assert len(all_tasks()) == before
    assert log[-3:] == [("stop", "dyn"), ("stop", "b"), ("stop", "a")]


# -- dynamic children -----------------------------------------------------------------


async def test_dynamic_children_start_terminate_and_show_in_which_children(autojump_clock):
    log: list[tuple[str, str]] = []
    events = EventLog()
    sup = Supervisor("sessions", events=events)
    async with trio.open_nursery() as nursery:
        ref = await nursery.start(run_quietly, sup)
        assert await ref.call(WhichChildren()) == []

        s1 = await ref.call(StartChild(spec("s1", log)))
        assert isinstance(s1, ActorRef) and s1 is sup.child_ref("s1")
        assert await s1.call(Ping()) == ("pong", "s1", "worker-s1")
        s2 = await ref.call(StartChild(spec("s2", log, Restart.TEMPORARY)))
        assert await ref.call(WhichChildren()) == [
            ChildInfo("s1", "worker-s1", "permanent", True),
            ChildInfo("s2", "worker-s2", "temporary", True),
        ]

        with pytest.raises(ToolError) as info:
            await ref.call(StartChild(spec("s1", log)))
        assert info.value.code == "already-started"
        assert sup.child_ref("s1") is s1 and s1.alive and log.count(("start", "s1")) == 1

        assert await ref.call(TerminateChild("s1")) is True
        assert log[-1] == ("stop", "s1")
        assert isinstance(s1.failure, ActorStopped)
        assert sup.child_ref("s1") is None
        assert [c.id for c in await ref.call(WhichChildren())] == ["s2"]
        with pytest.raises(ToolError) as info:
            await ref.call(TerminateChild("s1"))
        assert info.value.code == "target-not-found"
        with pytest.raises(ToolError) as info:
            await ref.call(TerminateChild("never-was"))
        assert info.value.code == "target-not-found"

        # The id is free again; a dynamic child is supervised like any other.
        s1b = await ref.call(StartChild(spec("s1", log)))
        assert s1b is not s1 and await s1b.call(Ping()) == ("pong", "s1", "worker-s1")
        await crash(sup, "s1")
        assert sup.child_ref("s1").alive and sup.child_ref("s1") is not s1b
        assert s2.alive
        assert await ref.call(StartChild(spec("s3", log))) is sup.child_ref("s3")
        assert sup.child_ids() == ["s2", "s1", "s3"]
        sup.stop()
    assert log[-3:] == [("stop", "s3"), ("stop", "s1"), ("stop", "s2")]
    assert [(e.child, e.kind) for e in events.events if e.kind in ("stopped",)] == [
        ("s1", "stopped"), ("s3", "stopped"), ("s1", "stopped"), ("s2", "stopped"),
    ]
    assert next(e.reason for e in events.events if e.kind == "stopped") == "terminated"


class SlowStart(Actor):
    def __init__(self, gate: trio.Event) -> None:
        super().__init__("slow")
        self.gate = gate

    async def on_start(self) -> None:
        await self.gate.wait()


async def test_a_temporary_childs_id_is_free_once_it_ended_even_before_its_exit_is_handled(autojump_clock):
    # The runtime reopens a crashed session under the same id at once; the crash's exit
    # notice may still be queued behind that request in the supervisor's mailbox.
    log: list[tuple[str, str]] = []
    sup = Supervisor("sessions")
    gate = trio.Event()
    async with trio.open_nursery() as nursery:
        ref = await nursery.start(run_quietly, sup)
        first = await ref.call(StartChild(spec("t", log, Restart.TEMPORARY)))
        answers: dict[str, Any] = {}

        async def ask(key: str, msg: Any) -> None:
            try:
                answers[key] = await ref.call(msg)
            except ToolError as err:
                answers[key] = err

        nursery.start_soon(ask, "slow", StartChild(ChildSpec("slow", lambda: SlowStart(gate))))
        await settle()  # the supervisor is busy starting "slow"
        nursery.start_soon(ask, "again", StartChild(spec("t", log, Restart.TEMPORARY)))
        await settle()
        with pytest.raises(ActorCrashed):
            await first.call(Crash())
        await settle()  # "t" has ended; its exit notice waits behind "again"
        gate.set()
        await settle()
        again = answers["again"]
        assert isinstance(again, ActorRef), again
        assert again is not first and again.alive and sup.child_ref("t") is again
        assert await again.call(Ping()) == ("pong", "t", "worker-t")
        assert sup.child_ids() == ["slow", "t"]
        sup.stop()


async def test_a_dynamic_child_that_fails_to_start_is_a_tool_error_not_a_crash(autojump_clock):
    log: list[tuple[str, str]] = []
    sup = Supervisor("sessions", [spec("a", log)])
    async with trio.open_nursery() as nursery:
        ref = await nursery.start(run_quietly, sup)
        ref_a = sup.child_ref("a")
        with pytest.raises(ToolError) as info:
            await ref.call(StartChild(spec("bad", log, fail_start=True)))
        assert info.value.code == "start-failed"
        assert "OSError" in info.value.message
        assert [type(e) for e in leaves(info.value.__cause__)] == [OSError]
        assert ref.alive and ref_a.alive and sup.child_ids() == ["a"]
        # A ToolError raised by the child's on_start reaches the caller as itself.
        with pytest.raises(ToolError) as info:
            await ref.call(StartChild(spec("bad", log, fail_start="tool-error")))
        assert info.value.code == "unavailable"
        assert ref.alive and ref_a.alive and sup.child_ids() == ["a"]
        assert [c.id for c in await ref.call(WhichChildren())] == ["a"]
        # The id was not taken by the failed start.
        assert await ref.call(StartChild(spec("bad", log))) is sup.child_ref("bad")
        sup.stop()
    assert sup.exit is None


async def test_an_initial_child_that_fails_to_start_fails_the_supervisor_start(autojump_clock):
    log: list[tuple[str, str]] = []
    sup = Supervisor("s", [spec("a", log), spec("bad", log, fail_start=True), spec("c", log)])
    with pytest.raises(BaseException) as info:  # checked just below
        async with trio.open_nursery() as nursery:
            await nursery.start(sup.run)
    assert [type(e) for e in leaves(info.value)] == [OSError]
    assert log == [("start", "a")]
    assert isinstance(sup.ref.failure, ActorCrashed)


# -- the event log and refs after restarts --------------------------------------------


async def test_every_exit_and_restart_is_in_the_event_log(autojump_clock):
    log: list[tuple[str, str]] = []
    events = EventLog()
    sup = Supervisor(
        "s", [spec("p", log), spec("t", log, Restart.TRANSIENT), spec("tmp", log, Restart.TEMPORARY)],
        events=events,
    )
    async with trio.open_nursery() as nursery:
        ref = await nursery.start(run_quietly, sup)
        await crash(sup, "p")
        await trio.sleep(10)
        assert await sup.child_ref("p").call(Quit()) == "bye"
        await settle()
        await trio.sleep(10)
        await crash(sup, "t")
        assert await sup.child_ref("t").call(Quit()) == "bye"
        await settle()
        await crash(sup, "tmp")
        await ref.call(StartChild(spec("d", log)))
        await ref.call(TerminateChild("d"))
        exited = await events.wait_for(lambda e: e.child == "tmp" and e.kind == "exited")
        assert exited.reason.startswith("abnormal: ")
        sup.stop()
    assert [(e.child, e.kind, e.reason.split(":")[0]) for e in events.events] == [
        ("p", "started", ""), ("t", "started", ""), ("tmp", "started", ""),
        ("p", "exited", "abnormal"), ("p", "started", ""), ("p", "restarted", "abnormal"),
        ("p", "exited", "normal"), ("p", "started", ""), ("p", "restarted", "normal"),
        ("t", "exited", "abnormal"), ("t", "started", ""), ("t", "restarted", "abnormal"),
        ("t", "exited", "normal"),
        ("tmp", "exited", "abnormal"),
        ("d", "started", ""), ("d", "stopped", "terminated"),
        ("p", "stopped", "shutdown"),
    ]
    assert events.restarts == {"s/p": 2, "s/t": 1}
    assert all(e.supervisor == "s" for e in events.events)
    times = [e.at for e in events.events]
    assert times == sorted(times) and times[-1] - times[0] == pytest.approx(20)
    assert "RuntimeError" in events.events[3].reason


async def test_event_log_is_bounded_and_wait_for_sees_future_events(autojump_clock):
    events = EventLog(maxlen=3)
    seen: list[str] = []

    async def watcher() -> None:
        seen.append((await events.wait_for(lambda e: e.kind == "escalated")).child)

    async with trio.open_nursery() as nursery:
        nursery.start_soon(watcher)
        await settle()
        for n in range(5):
            events.emit("s", f"c{n}", "restarted")
        await settle()
        assert seen == []
        events.emit("s", "c9", "escalated")
    assert seen == ["c9"]
    assert [e.child for e in events.events] == ["c3", "c4", "c9"]
    assert sum(events.restarts.values()) == 5


async def test_child_ref_follows_restarts_and_the_old_ref_is_crashed(autojump_clock):
    log: list[tuple[str, str]] = []
    sup = Supervisor("s", [spec("a", log)])
    async with trio.open_nursery() as nursery:
        await nursery.start(run_quietly, sup)
        first = sup.child_ref("a")
        old = await crash(sup, "a")
        assert old is first
        second = sup.child_ref("a")
        assert second is not first and second.alive
        assert await second.call(Ping()) == ("pong", "a", "worker-a")
        with pytest.raises(ActorCrashed) as info:
            await first.call(Ping())
        assert isinstance(info.value.__cause__, RuntimeError)
        with pytest.raises(ActorCrashed):
            await first.cast(Ping())
        assert sup.child_ref("nobody") is None
        sup.stop()


async def test_a_lookup_that_only_asks_leaves_the_obituary_for_the_caller_it_is_meant_for(autojump_clock):
    # A live view asks whether a session is open; the agent's next call must still hear
    # why the crashed session ended.
    from browx_actors.kernel.supervision import ChildGone, LookupChild

    log: list[tuple[str, str]] = []
    sup = Supervisor("sessions")
    async with trio.open_nursery() as nursery:
        ref = await nursery.start(run_quietly, sup)
        child = await ref.call(StartChild(spec("t", log, Restart.TEMPORARY)))
        assert await ref.call(LookupChild("t", obituary=False)) is child
        with pytest.raises(ActorCrashed):
            await child.call(Crash())
        await settle()
        assert await ref.call(LookupChild("t", obituary=False)) is None
        gone = await ref.call(LookupChild("t"))
        assert isinstance(gone, ChildGone) and isinstance(gone.failure, ActorCrashed)
        assert await ref.call(LookupChild("t")) is None  # told once
        sup.stop()
