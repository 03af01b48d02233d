"""One stream's flow control and step-down, driven with explicit times.

Most tests request 4 fps: its frame interval (0.25 s) and every time used here are
exact binary fractions, so each boundary is tested exactly, not approximately.
"""

from __future__ import annotations

import itertools
import math

import pytest
import trio
from hypothesis import given
from hypothesis import strategies as st

from browx_actors.streams.stepdown import (
    CLEAN_FOR,
    DROP_WINDOW,
    LOST_AFTER,
    STALL_AFTER,
    Decision,
    Event,
    FrameLost,
    Level,
    LevelChanged,
    Stalled,
    StreamPolicy,
    Timings,
    level_table,
)

RTT = 1 / 64  # a prompt daemon's round trip


def policy(fps: float = 4, width: int = 960, now: float = 0.0) -> StreamPolicy:
    return StreamPolicy(fps, width, now=now)


def send(p: StreamPolicy, seq: int, at: float, rtt: float | None = RTT) -> None:
    """A due frame goes out at ``at``, acked ``rtt`` later (never with None)."""
    assert p.offer(at) is Decision.SEND
    p.sent(seq, at)
    if rtt is not None:
        assert p.acked(seq, at + rtt)


def drop(p: StreamPolicy, at: float) -> None:
    """A due frame at ``at`` while the socket is backed up."""
    assert p.offer(at, backed_up=True) is Decision.BACKED_UP


def level_changes(events: list[Event]) -> list[LevelChanged]:
    return [e for e in events if isinstance(e, LevelChanged)]


def timeouts(events: list[Event]) -> list[Event]:
    """The losses and the stall among ``events`` (a loss may also step the stream down)."""
    return [e for e in events if not isinstance(e, LevelChanged)]


# -- the level table ------------------------------------------------------------------------------


def test_the_default_request_steps_down_to_1_fps_and_640_px_in_four_steps() -> None:
    table = level_table(5, 960)
    assert [level.width for level in table] == [960, 867, 784, 708, 640]
    assert [level.fps for level in table] == pytest.approx([5, 5 * 0.2 ** 0.25, 5 * 0.2 ** 0.5, 5 * 0.2 ** 0.75, 1])
    assert table[0] == Level(5.0, 960) and table[-1] == Level(1.0, 640)
    assert table[2].fps == pytest.approx(math.sqrt(5))  # geometric: the middle level is the geometric mean


@pytest.mark.parametrize(("fps", "width", "fps_levels", "widths"), [
    (0.5, 1280, [0.5] * 5, [1280, 1076, 905, 761, 640]),  # fps already below the floor stays
    (5, 640, None, [640] * 5),  # width at the floor stays
    (5, 400, None, [400] * 5),
    (1, 640, [1.0] * 5, [640] * 5),  # both at the floor: every level is the request
    (0.2, 160, [0.2] * 5, [160] * 5),
])
def test_a_dimension_at_or_below_its_floor_stays_at_the_request(
        fps: float, width: int, fps_levels: list[float] | None, widths: list[int]) -> None:
    table = level_table(fps, width)
    assert [level.width for level in table] == widths
    if fps_levels is not None:
        assert [level.fps for level in table] == fps_levels


@given(fps=st.floats(min_value=0.2, max_value=5), width=st.integers(min_value=160, max_value=1280))
def test_every_table_runs_from_the_request_to_the_floor_by_equal_ratios(fps: float, width: int) -> None:
    table = level_table(fps, width)
    assert len(table) == 5
    assert table[0] == Level(fps, width)
    assert table[-1] == Level(min(fps, 1.0), min(width, 640))
    for upper, lower in itertools.pairwise(table):
        assert lower.fps <= upper.fps and lower.width <= upper.width
    if fps > 1:
        ratios = [b.fps / a.fps for a, b in itertools.pairwise(table)]
        assert ratios == pytest.approx([(1 / fps) ** 0.25] * 4)
    if width > 640:
        for k, level in enumerate(table):
            assert abs(level.width - width * (640 / width) ** (k / 4)) <= 0.5


@pytest.mark.parametrize(("fps", "width"), [(0, 960), (-1, 960), (math.nan, 960), (math.inf, 960), (5, 0)])
def test_a_table_needs_a_positive_rate_and_width(fps: float, width: int) -> None:
    with pytest.raises(ValueError):
        level_table(fps, width)


# -- pacing ---------------------------------------------------------------------------------------


def test_frames_faster_than_the_level_are_paced_not_dropped() -> None:
    p = policy()
    sends = 0
    for i in range(64 * 60):  # a page painting at 64 Hz for a minute, a prompt daemon
        t = i / 64
        if p.offer(t) is Decision.SEND:
            p.sent(i, t)
            p.acked(i, t + RTT)
            sends += 1
        assert p.tick(t + RTT) == []
    counters = p.counters()
    assert 240 <= sends <= 241 and counters.sent == sends  # 4 fps, never more
    assert counters.paced == 64 * 60 - sends and counters.dropped == {} and counters.level == 0


def test_a_frame_a_quarter_interval_early_is_due_and_one_earlier_is_paced() -> None:
    p = policy()
    send(p, 1, 0.0)
    assert p.offer(0.1875 - 1 / 1024) is Decision.PACED
    assert p.offer(0.1875) is Decision.SEND  # due at 0.25, a quarter of 0.25 s of tolerance


def test_a_source_at_the_level_s_own_rate_is_not_halved_by_jitter() -> None:
    p = policy()
    for i in range(40):
        send(p, i, i * 0.25 + (1 / 64 if i % 2 else -1 / 64) + 1)
    assert p.counters().paced == 0


def test_a_dropped_frame_uses_its_slot_in_the_schedule() -> None:
    p = policy()
    drop(p, 0.0)
    assert p.offer(0.125) is Decision.PACED  # not a second try at once: the next frame is due at 0.25
    assert p.offer(0.25) is Decision.SEND


# -- one frame in flight ----------------------------------------------------------------------------


def test_a_frame_while_the_last_is_unacked_is_dropped_never_queued() -> None:
    p = policy()
    send(p, 1, 0.0, rtt=None)
    assert p.in_flight == 1
    assert p.offer(0.25) is Decision.IN_FLIGHT
    assert p.offer(0.5, backed_up=True) is Decision.IN_FLIGHT  # the first reason wins
    assert p.acked(1, 0.6)
    assert p.in_flight is None and p.counters().sent == 1  # nothing went out on the ack by itself
    assert p.offer(0.75) is Decision.SEND
    assert p.counters().dropped == {"in-flight": 2}


def test_a_frame_while_the_socket_is_backed_up_is_dropped() -> None:
    p = policy()
    drop(p, 0.0)
    assert p.counters().dropped == {"backed-up": 1}
    assert p.offer(0.25) is Decision.SEND


def test_a_frame_too_large_to_send_counts_as_dropped() -> None:
    p = policy()
    assert p.offer(0.0) is Decision.SEND
    p.too_large(0.0)
    assert p.in_flight is None and p.counters().dropped == {"too-large": 1}
    assert p.offer(0.25) is Decision.SEND


def test_acks_for_unknown_old_or_repeated_seqs_are_ignored() -> None:
    p = policy()
    send(p, 1, 0.0, rtt=None)
    assert not p.acked(7, 0.1)
    assert p.acked(1, 0.1)
    assert not p.acked(1, 0.2)
    send(p, 2, 0.25, rtt=None)
    assert not p.acked(1, 0.3)
    assert p.acked(2, 0.3)
    assert p.counters().acked == 2


def test_sending_while_a_frame_is_in_flight_is_a_bug() -> None:
    p = policy()
    send(p, 1, 0.0, rtt=None)
    with pytest.raises(RuntimeError):
        p.sent(2, 0.25)


def test_time_never_goes_backwards() -> None:
    p = policy(now=10.0)
    with pytest.raises(ValueError):
        p.offer(9.0)


# -- lost and stalled ---------------------------------------------------------------------------------


def test_a_frame_unacked_for_5_s_is_lost_at_that_instant_and_frees_the_slot() -> None:
    p = policy()
    send(p, 1, 1.0, rtt=None)
    assert p.next_deadline() == 1.0 + LOST_AFTER
    assert p.tick(5.999) == [] and p.in_flight == 1
    assert p.tick(6.0) == [FrameLost(1, 1.0), LevelChanged(0, 1, p.table[1])]  # a window of one loss: 100%
    assert p.in_flight is None and p.counters().lost == 1
    assert p.offer(6.0) is Decision.SEND


def test_an_ack_at_5_s_is_too_late_and_one_just_before_counts() -> None:
    late, prompt = policy(), policy()
    send(late, 1, 0.0, rtt=None)
    send(prompt, 1, 0.0, rtt=None)
    assert not late.acked(1, 5.0)
    assert timeouts(late.tick(5.0)) == [FrameLost(1, 0.0)] and late.counters().acked == 0
    assert prompt.acked(1, 5.0 - 1 / 1024)
    assert prompt.tick(5.0) == []


def test_a_lost_frame_found_by_an_offer_is_reported_by_the_next_tick() -> None:
    p = policy()
    send(p, 1, 0.0, rtt=None)
    assert p.offer(5.0) is Decision.SEND  # the slot was freed by the loss first
    assert timeouts(p.tick(5.0)) == [FrameLost(1, 0.0)]


def test_no_ack_for_30_s_ends_the_stream_as_stalled() -> None:
    p = policy()
    send(p, 1, 0.0, rtt=None)
    assert timeouts(p.tick(5.0)) == [FrameLost(1, 0.0)]
    assert timeouts(p.tick(29.999)) == []
    assert p.next_deadline() == STALL_AFTER
    assert p.tick(30.0) == [Stalled(0.0)]
    assert p.ended and p.next_deadline() == math.inf
    assert p.offer(30.5) is Decision.ENDED and not p.acked(1, 30.5) and p.tick(60.0) == []


def test_the_stall_clock_starts_at_the_oldest_send_no_ack_has_answered() -> None:
    p = policy()
    send(p, 1, 0.0, rtt=None)
    assert timeouts(p.tick(5.0)) == [FrameLost(1, 0.0)]
    send(p, 2, 10.0, rtt=2.0)  # an ack at 12 s: the clock stops
    send(p, 3, 13.0, rtt=None)  # and starts again here
    events = [e for t in (18.0, 42.999, 43.0) for e in timeouts(p.tick(t))]
    assert events == [FrameLost(3, 13.0), Stalled(13.0)]


def test_a_daemon_that_never_acks_stalls_30_s_after_the_first_frame_however_many_went_since() -> None:
    p = policy()
    events = []
    for i in range(int(30 / 0.25) + 1):
        t = i * 0.25
        if p.offer(t) is Decision.SEND:
            p.sent(i, t)
        events += [(t, e) for e in timeouts(p.tick(t))]
    assert events[-1] == (30.0, Stalled(0.0)) and p.ended
    counters = p.counters()
    # Every frame sent was lost, the last one perhaps at the stall itself.
    assert len(events) - 1 == counters.lost >= 5 and counters.sent - 1 <= counters.lost <= counters.sent


def test_a_stream_that_sends_nothing_never_stalls() -> None:
    p = policy()
    assert p.next_deadline() == math.inf
    assert p.tick(1000.0) == [] and not p.ended


# -- step down ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(("pattern", "steps"), [
    ("cccdd", True),  # 2 of 5: exactly 40%
    ("ccdcd", True),
    ("cd", True),
    ("ccccd", False),  # 20%
    ("ccd", False),  # 33%
    ("ccccdd", False),  # 33%
    ("cccccddd", False),  # 37.5%
])
def test_a_window_that_drops_40_percent_steps_down(pattern: str, steps: bool) -> None:
    p = policy()
    for i, kind in enumerate(pattern):
        at = 2.0 + 0.25 * i  # the level has run a whole window; every entry is in it
        if kind == "c":
            send(p, i, at)
        else:
            drop(p, at)
    changes = level_changes(p.tick(2.0 + 0.25 * (len(pattern) - 1) + RTT))
    assert changes == ([LevelChanged(0, 1, level_table(4, 960)[1])] if steps else [])
    assert p.level == (1 if steps else 0)


def test_the_window_is_judged_only_once_the_level_has_run_2_s() -> None:
    p = policy()
    send(p, 0, 0.0, rtt=None)  # never acked: every later frame is dropped
    for i in range(1, 8):
        assert p.offer(0.25 * i) is Decision.IN_FLIGHT
    assert p.level == 0 and level_changes(p.tick(1.999)) == []
    assert p.next_deadline() == DROP_WINDOW
    assert level_changes(p.tick(2.0)) == [LevelChanged(0, 1, p.table[1])]
    assert p.next_deadline() == 2.0 + DROP_WINDOW  # the new level gets its own whole window


def test_an_entry_exactly_2_s_old_has_left_the_window() -> None:
    p = policy()
    for i, at in enumerate((0.25, 0.5)):
        send(p, i, at)
    drop(p, 1.0)
    drop(p, 1.25)
    send(p, 5, 1.5)
    send(p, 6, 1.75)
    assert level_changes(p.tick(2.0)) == []  # 2 of 6
    assert level_changes(p.tick(2.2)) == []  # the frame of 0.25 s is 1.95 s old: still in
    assert p.next_deadline() == 0.25 + DROP_WINDOW
    assert level_changes(p.tick(2.25)) == [LevelChanged(0, 1, p.table[1])]  # now 2 of 5


def test_a_dead_daemon_walks_the_stream_down_one_step_per_window_to_the_floor() -> None:
    p = policy()
    changes = []
    for i in range(int(20 / 0.25) + 1):
        t = i * 0.25
        if p.offer(t) is Decision.SEND:
            p.sent(i, t)
        changes += [(t, change.level) for change in level_changes(p.tick(t))]
    assert changes == [(2.0, 1), (4.0, 2), (6.0, 3), (8.0, 4)]
    assert p.settings == Level(1.0, 640)
    counters = p.counters()
    assert counters.acked == 0 and counters.lost == counters.sent - 1  # each loss freed the slot for the next


# -- step up -----------------------------------------------------------------------------------------


def stepped_down() -> StreamPolicy:
    """A 4 fps stream stepped down to level 1 at 2.25 s (its level above has a 0.25 s interval)."""
    p = policy()
    send(p, 0, 2.0)
    drop(p, 2.25)
    assert level_changes(p.tick(2.25)) == [LevelChanged(0, 1, p.table[1])]
    return p


def run_clean(p: StreamPolicy, start: float, end: float, rtt: float, seq: int = 100) -> list[tuple[float, int]]:
    """Offer a frame every 0.25 s in [start, end), acking each sent one ``rtt`` later."""
    changes = []
    t = start
    while t < end:
        decision = p.offer(t)
        assert decision in (Decision.SEND, Decision.PACED)
        if decision is Decision.SEND:
            p.sent(seq, t)
            changes += [(t, c.level) for c in level_changes(p.tick(t))]
            assert p.acked(seq, t + rtt)
            seq += 1
        changes += [(t + rtt, c.level) for c in level_changes(p.tick(t + rtt))]
        t += 0.25
    return changes


def test_ten_clean_seconds_with_room_step_back_up_exactly_then() -> None:
    p = stepped_down()
    assert run_clean(p, 2.5, 12.25, rtt=1 / 32) == []
    assert p.next_deadline() == 2.25 + CLEAN_FOR
    assert level_changes(p.tick(12.25 - 1 / 1024)) == []
    (change,) = level_changes(p.tick(12.25))
    assert change == LevelChanged(1, 0, p.table[0]) and not change.down
    assert LevelChanged(0, 1, p.table[1]).down


def test_no_room_in_the_round_trip_keeps_the_stream_down() -> None:
    p = stepped_down()
    assert run_clean(p, 2.5, 30.0, rtt=0.125) == []  # exactly half the interval of level 0: no room
    # Fast acks again: the median of the last five has room on the third.
    changes = []
    for k in range(3):
        t = max(30.0 + k, p.next_due())
        send(p, 500 + k, t, rtt=None)
        assert p.acked(500 + k, t + 1 / 32)
        changes.append(level_changes(p.tick(t + 1 / 32)))
    assert changes == [[], [], [LevelChanged(1, 0, p.table[0])]]


def test_a_drop_restarts_the_clean_ten_seconds() -> None:
    p = stepped_down()
    assert run_clean(p, 2.5, 7.0, rtt=1 / 32) == []
    t = max(7.0, p.next_due())
    drop(p, t)
    assert p.level == 1  # one drop among clean frames does not step down
    assert run_clean(p, t + 0.25, t + 10.0, rtt=1 / 32, seq=300) == []
    changes = run_clean(p, t + 10.0, t + 11.0, rtt=1 / 32, seq=400)
    assert [level for _, level in changes] == [0] and t + 10.0 <= changes[0][0] < t + 10.5


def test_a_lost_frame_restarts_the_clean_ten_seconds_too() -> None:
    p = policy()
    for i in range(41):  # a socket backed up for 10 s walks the stream down to the floor
        p.offer(0.25 * i, backed_up=True)
    p.tick(10.0)
    assert p.level == 4
    assert run_clean(p, 10.25, 14.0, rtt=1 / 32) == []
    send(p, 1, 14.0, rtt=None)  # then the page stops painting and this frame is never acked
    assert timeouts(p.tick(19.0)) == [FrameLost(1, 14.0)] and p.level == 4  # no level below the floor
    assert run_clean(p, 19.25, 29.0, rtt=1 / 32) == []  # ten clean seconds count from the loss
    assert level_changes(p.tick(29.0)) == [LevelChanged(4, 3, p.table[3])]


def test_no_ack_in_the_clean_stretch_is_no_evidence_of_room() -> None:
    p = stepped_down()
    assert level_changes(p.tick(12.25)) == [] and level_changes(p.tick(20.0)) == []
    assert p.next_deadline() == math.inf
    send(p, 1, 20.0)  # the page paints again and the daemon acks at once: room
    assert level_changes(p.tick(20.0 + RTT)) == [LevelChanged(1, 0, p.table[0])]


def test_a_prompt_stream_stays_at_the_request() -> None:
    p = policy()
    assert run_clean(p, 0.0, 40.0, rtt=RTT) == []
    assert p.level == 0 and p.settings == Level(4.0, 960)


# -- what the actor reads ------------------------------------------------------------------------------


def test_the_counters_add_up() -> None:
    p = policy()
    send(p, 1, 0.0, rtt=1 / 16)
    assert p.offer(0.1) is Decision.PACED
    send(p, 2, 0.25, rtt=None)
    assert p.offer(0.5) is Decision.IN_FLIGHT
    assert p.acked(2, 0.5 + 1 / 16)
    drop(p, 0.75)
    assert p.offer(1.0) is Decision.SEND
    p.too_large(1.0)
    send(p, 3, 1.25, rtt=None)
    assert timeouts(p.tick(6.25)) == [FrameLost(3, 1.25)]
    counters = p.counters()
    assert counters.as_dict() == {
        "offered": 7, "paced": 1, "sent": 3, "acked": 2, "lost": 1, "level": 1, "fps": p.table[1].fps,
        "width": 867, "dropped": {"in-flight": 1, "backed-up": 1, "too-large": 1},
        "rtt_median": (0.0625 + 0.3125) / 2,
    }


def test_next_deadline_is_the_earliest_thing_that_can_happen() -> None:
    p = policy()
    assert p.next_deadline() == math.inf
    send(p, 1, 0.5, rtt=None)
    deadlines = []
    while not p.ended:
        deadlines.append(p.next_deadline())
        p.tick(deadlines[-1])
    # the loss (which steps down), the end of that drop's window, the end of the clean
    # ten seconds (no ack: no room), the stall
    assert deadlines == [0.5 + LOST_AFTER, 5.5 + DROP_WINDOW, 5.5 + CLEAN_FOR, 0.5 + STALL_AFTER]


async def test_an_actor_sleeping_until_each_deadline_sees_each_timeout_on_time(
        autojump_clock: trio.testing.MockClock) -> None:
    start = trio.current_time()
    p = StreamPolicy(5, 960, now=start)
    assert p.offer(start) is Decision.SEND
    p.sent(1, start)
    seen: list[tuple[float, object]] = []
    while not p.ended:
        await trio.sleep_until(p.next_deadline())
        seen += [(trio.current_time() - start, event) for event in p.tick(trio.current_time())]
    assert seen == [(pytest.approx(LOST_AFTER), FrameLost(1, start)),
                    (pytest.approx(LOST_AFTER), LevelChanged(0, 1, p.table[1])),
                    (pytest.approx(STALL_AFTER), Stalled(start))]


# -- pacing at the source, and a level change re-basing the schedule ---------------------------------


def test_next_due_is_the_earliest_moment_a_frame_would_be_due() -> None:
    p = policy()
    assert p.next_due() == -math.inf  # nothing sent yet: a frame now
    send(p, 1, 1.0)
    assert p.next_due() == 1.0 + 0.25 - 0.25 * 0.25
    assert p.offer(p.next_due() - 1 / 1024) is Decision.PACED
    assert p.offer(p.next_due()) is Decision.SEND


def test_a_level_change_makes_the_next_frame_due_one_new_interval_after_the_last() -> None:
    p = stepped_down()  # the drop at 2.25 took the last slot
    assert p.next_due() == pytest.approx(2.25 + p.table[1].interval * 0.75)
    up = policy()
    for i in range(41):
        up.offer(0.25 * i, backed_up=True)
    up.tick(10.0)
    assert up.level == 4 and up.settings.interval == 1.0
    seq = 0
    while up.level == 4:  # one frame a second, each acked at once: up after ten clean seconds
        t = up.next_due()
        send(up, seq, t)
        up.tick(t + RTT)
        seq += 1
    assert up.level == 3
    # The last frame came a quarter interval early and took the slot at t + 0.25; the next is
    # due one level-3 interval after that slot, not one level-4 interval.
    assert up.next_due() == pytest.approx(t + 0.25 + up.table[3].interval * 0.75)


def test_timings_shorten_every_window_alike() -> None:
    short = Timings(lost_after=0.5, stall_after=3.0, drop_window=0.2, clean_for=1.0)
    p = StreamPolicy(4, 960, now=0.0, timings=short)
    assert p.offer(0.0) is Decision.SEND
    p.sent(1, 0.0)
    assert p.next_deadline() == 0.5
    assert timeouts(p.tick(0.5)) == [FrameLost(1, 0.0)]
    assert timeouts(p.tick(3.0)) == [Stalled(0.0)] and p.ended
    with pytest.raises(ValueError, match="drop_window"):
        Timings(drop_window=0)


def test_a_frame_a_little_late_keeps_the_schedule_and_a_later_one_restarts_it() -> None:
    p = policy()  # 4 fps: slots every 0.25 s
    send(p, 1, 0.0)
    send(p, 2, 0.25 + 0.0625)  # a quarter interval late, exactly: the slot stays 0.25
    assert p.next_due() == 0.5 - 0.0625
    send(p, 3, 0.5 + 0.0625 + 1 / 1024)  # later than that: the schedule starts again from it
    assert p.next_due() == pytest.approx(0.5 + 0.0625 + 1 / 1024 + 0.25 - 0.0625)


def test_frames_that_come_late_but_within_a_quarter_interval_keep_the_level_rate() -> None:
    p = policy()
    sends, seq = 0, 0
    for slot in range(40):  # a browser that hands over each frame 1/16 s after it was asked for
        t = max(slot * 0.25, p.next_due()) + 0.0625
        if p.offer(t) is Decision.SEND:
            p.sent(seq, t)
            assert p.acked(seq, t + RTT)
            sends += 1
            seq += 1
    assert sends == 40  # 4 a second, not 1 / (0.25 + 1/16)
