"""One live-view stream's flow control and step-down policy: pure, with no clock of its own.

Every method takes ``now`` (seconds on one monotonic clock, Trio's in the actor), so
each window and timeout is tested with explicit times. The stream actor asks
:meth:`StreamPolicy.offer` about each frame its source produces, reports
:meth:`~StreamPolicy.sent` and :meth:`~StreamPolicy.acked`, calls
:meth:`~StreamPolicy.tick` after each of those and again at
:meth:`~StreamPolicy.next_deadline`, and acts on the events ``tick`` returns.

The rules, made precise:

* **Pacing.** Due frames keep a schedule of one slot per frame interval of the level.
  A frame is *due* from a quarter of an interval before its slot, so a source that
  paints at exactly the level's rate is not halved by jitter; a due frame up to a
  quarter interval late keeps the schedule (a browser that is slow to hand a frame over
  still delivers the level's rate), a later one starts it again from itself. So over
  any stretch the stream sends at most the level's rate, give or take one frame.
  Frames that are not due are ``paced``: skipped, not dropped (the source paints faster
  than the stream runs). A level change re-bases the schedule: the next frame is due
  one interval of the new level after the last slot.
* **One frame in flight.** A due frame while the previous one is unacked, or while the
  socket is backed up, is dropped (``in-flight``, ``backed-up``), never queued. A due
  frame uses its slot in the schedule whether it is sent or dropped, so drops measure
  the shortfall from the level's rate, not how fast the page paints.
* **Lost.** A frame unacked :data:`LOST_AFTER` seconds after it was sent (at that
  instant or later) is lost and frees the slot; its late ack is ignored.
* **Stalled.** :data:`STALL_AFTER` seconds after the oldest send that no ack has
  answered, the stream ends. A stream that sends nothing (a page that does not paint)
  is not stalled: there is nothing to ack.
* **Step down** one level when a 2 s window drops at least 40% of its frames. The
  window holds, for the last :data:`DROP_WINDOW` seconds (an entry exactly 2 s old is
  out), one entry per due frame (sent, or dropped for any reason) and one per frame
  declared lost. It is judged only once the current level has run a whole window, so
  each level gets a fair window of its own and the stream moves one step per window.
* **Step up** one level after :data:`CLEAN_FOR` seconds at the level with no drop and
  no loss, *with room in the ack round trip*: the median round trip of the last
  :data:`ROOM_SAMPLES` acks of that clean stretch is below half the frame interval of
  the level above. A round trip that short leaves a frame of the larger level time to
  be acked before the next one is due, with room for its larger size and for jitter.
  No ack in the clean stretch means no evidence of room: the stream stays down.

The level table is :func:`level_table`. The four durations are the documented ones
(``docs/operator-channel.md``), gathered in :class:`Timings`; a harness or a test
against a real browser may shorten them (the rules stay the same), everything else
runs with :data:`DEFAULT_TIMINGS`.

Pacing at the source: :meth:`StreamPolicy.next_due` is the earliest moment a frame
would be due, so a source that can choose when to produce (Chromium holds its next
frame until the last one is acked to it; a screencap loop sleeps) produces only frames
the stream can use.
"""

from __future__ import annotations

import enum
import math
import statistics
from collections import Counter, deque

import attrs

from ..config import CLEAN_FOR, DEFAULT_TIMINGS, DROP_WINDOW, LOST_AFTER, STALL_AFTER, Timings

__all__ = [
    "CLEAN_FOR",
    "DEFAULT_TIMINGS",
    "DROP_RATIO",
    "DROP_WINDOW",
    "FLOOR_FPS",
    "FLOOR_WIDTH",
    "LOST_AFTER",
    "STALL_AFTER",
    "STEPS",
    "Decision",
    "Event",
    "FrameLost",
    "Level",
    "LevelChanged",
    "Stalled",
    "StreamCounters",
    "StreamPolicy",
    "Timings",
    "level_table",
]

#: At least this share of a window's frames dropped steps the stream down (40%).
DROP_RATIO = (2, 5)
FLOOR_FPS = 1.0
FLOOR_WIDTH = 640
STEPS = 4
#: How early (as a share of the frame interval) a frame may come and still be due.
PACE_TOLERANCE = 0.25
#: Acks whose round trip decides whether there is room to step up.
ROOM_SAMPLES = 5
#: Round trips kept for the statistics' median.
RTT_HISTORY = 32



# -- the level table ----------------------------------------------------------------------


@attrs.frozen
class Level:
    """What a stream runs at: frames per second and the frame's largest width in pixels."""

    fps: float
    width: int

    @property
    def interval(self) -> float:
        return 1.0 / self.fps


def level_table(fps: float, width: int) -> tuple[Level, ...]:
    """Levels 0 to :data:`STEPS`, from the request down to 1 fps and 640 px.

    Each dimension falls geometrically: every step multiplies it by the same factor.
    The bytes a stream puts on the socket go as fps x width squared, so each step
    cuts the load by the same ratio wherever the stream stands, and a step down from
    level 0 hurts the picture no more than one from level 3. A dimension already at or
    below its floor stays at the request. Widths are whole pixels; level 0 is the
    request exactly and level 4 the floor exactly.
    """
    if not (math.isfinite(fps) and fps > 0) or width < 1:
        raise ValueError(f"a level table needs fps > 0 and width >= 1, not {fps} and {width}")
    return tuple(Level(float(_geometric(fps, FLOOR_FPS, k)), round(_geometric(width, FLOOR_WIDTH, k)))
                 for k in range(STEPS + 1))


def _geometric(start: float, floor: float, step: int) -> float:
    if start <= floor or step == 0:
        return start
    if step == STEPS:
        return floor
    return start * math.pow(floor / start, step / STEPS)


# -- what the policy answers --------------------------------------------------------------


class Decision(enum.StrEnum):
    """What to do with an offered frame."""

    SEND = "send"
    PACED = "paced"  # not due at this level's frame rate: skip it (not a drop)
    IN_FLIGHT = "in-flight"  # dropped: the previous frame is unacked
    BACKED_UP = "backed-up"  # dropped: the socket is backed up
    ENDED = "ended"  # the stream has ended (stalled): send nothing more


@attrs.frozen
class FrameLost:
    """The frame ``seq`` went unacked for 5 s: its slot is free again."""

    seq: int
    sent_at: float


@attrs.frozen
class LevelChanged:
    """The stream moved from level ``previous`` to ``level``: restart the source at ``settings``."""

    previous: int
    level: int
    settings: Level

    @property
    def down(self) -> bool:
        return self.level > self.previous


@attrs.frozen
class Stalled:
    """No ack since ``since`` (the oldest unanswered send): end the stream with ``stalled``."""

    since: float


Event = FrameLost | LevelChanged | Stalled


@attrs.frozen
class StreamCounters:
    """A stream's statistics: frames offered, paced, sent, acked, dropped by reason and lost;
    where it stands; the median of its recent ack round trips (seconds)."""

    offered: int
    paced: int
    sent: int
    acked: int
    dropped: dict[str, int]
    lost: int
    level: int
    fps: float
    width: int
    rtt_median: float | None

    def as_dict(self) -> dict[str, object]:
        return attrs.asdict(self)


@attrs.frozen
class _Flight:
    seq: int
    sent_at: float


# -- the policy ---------------------------------------------------------------------------


class StreamPolicy:
    """The flow control and step-down state of one stream; see the module docstring."""

    def __init__(self, fps: float, width: int, *, now: float, timings: Timings = DEFAULT_TIMINGS) -> None:
        self.timings = timings
        self.table = level_table(fps, width)
        self.level = 0
        self._level_since = now
        self._now = now
        self._due = -math.inf
        self._slot = -math.inf  # when the last due frame took its place in the schedule
        self._flight: _Flight | None = None
        self._unanswered_since: float | None = None
        self._window: deque[tuple[float, bool]] = deque()  # (when, dropped)
        self._last_drop = -math.inf
        self._rtts: deque[tuple[float, float]] = deque(maxlen=RTT_HISTORY)  # (acked at, round trip)
        self._events: list[Event] = []
        self.ended = False
        self._counts: Counter[str] = Counter()  # offered, paced, sent, acked, lost
        self._dropped: Counter[str] = Counter()  # by reason

    @property
    def settings(self) -> Level:
        return self.table[self.level]

    @property
    def in_flight(self) -> int | None:
        """The seq of the frame awaiting its ack, if any."""
        return None if self._flight is None else self._flight.seq

    # -- what the actor reports -------------------------------------------------------------

    def offer(self, now: float, backed_up: bool = False) -> Decision:
        """The source has a frame: send it, or skip or drop it (and why)."""
        self._advance(now)
        if self.ended:
            return Decision.ENDED
        self._counts["offered"] += 1
        interval = self.settings.interval
        if now < self._due - PACE_TOLERANCE * interval:
            self._counts["paced"] += 1
            return Decision.PACED
        # Up to a quarter interval late keeps the schedule, so frames that come with some
        # delay (a busy browser) still run at the level's rate; later, it restarts from now.
        self._slot = self._due if now - self._due <= PACE_TOLERANCE * interval else now
        self._due = self._slot + interval
        if self._flight is None and not backed_up:
            return Decision.SEND
        decision = Decision.IN_FLIGHT if self._flight is not None else Decision.BACKED_UP
        self._drop(now, decision.value)
        self._steer(now)
        return decision

    def sent(self, seq: int, now: float) -> None:
        """The frame :meth:`offer` let through is on the socket, all its parts."""
        self._advance(now)
        if self.ended:
            return
        if self._flight is not None:
            raise RuntimeError(f"frame {seq} sent while frame {self._flight.seq} is in flight")
        self._flight = _Flight(seq, now)
        if self._unanswered_since is None:
            self._unanswered_since = now
        self._counts["sent"] += 1
        self._window.append((now, False))

    def too_large(self, now: float) -> None:
        """The frame :meth:`offer` let through needs more than 16 parts: it is dropped."""
        self._advance(now)
        if not self.ended:
            self._drop(now, "too-large")
            self._steer(now)

    def acked(self, seq: int, now: float) -> bool:
        """The daemon acked ``seq``; False when the ack is ignored (unknown, old or too late)."""
        self._advance(now)  # an ack at or past the loss deadline finds the frame lost
        flight = self._flight
        if self.ended or flight is None or flight.seq != seq:
            return False
        self._flight = None
        self._unanswered_since = None
        self._counts["acked"] += 1
        self._rtts.append((now, now - flight.sent_at))
        self._steer(now)
        return True

    def tick(self, now: float) -> list[Event]:
        """Apply what time has decided (losses, the stall, level changes); the events since the last tick."""
        self._advance(now)
        self._steer(now)
        events, self._events = self._events, []
        return events

    def next_deadline(self) -> float:
        """When :meth:`tick` next has something to decide (``inf`` for never)."""
        if self.ended:
            return math.inf
        deadlines = []
        if self._flight is not None:
            deadlines.append(self._flight.sent_at + self.timings.lost_after)
        if self._unanswered_since is not None:
            deadlines.append(self._unanswered_since + self.timings.stall_after)
        if self.level < STEPS and any(dropped for _, dropped in self._window):
            # The share of drops can reach the threshold once the level has run a whole
            # window, or later when an older entry leaves the window.
            deadlines.append(max(self._level_since, self._window[0][0]) + self.timings.drop_window)
        clean_at = max(self._level_since, self._last_drop) + self.timings.clean_for
        if self.level > 0 and clean_at > self._now:
            deadlines.append(clean_at)  # after that, only an ack can bring room
        return min(deadlines, default=math.inf)

    def next_due(self) -> float:
        """The earliest moment an offered frame would be due (``-inf``: now; ``inf``: never).

        A source that can choose when to produce asks for its next frame at this time
        rather than painting frames the stream would only skip as paced.
        """
        if self.ended:
            return math.inf
        return self._due - PACE_TOLERANCE * self.settings.interval

    def counters(self) -> StreamCounters:
        rtts = [rtt for _, rtt in self._rtts]
        counts = self._counts
        return StreamCounters(
            offered=counts["offered"], paced=counts["paced"], sent=counts["sent"], acked=counts["acked"],
            dropped=dict(self._dropped), lost=counts["lost"], level=self.level, fps=self.settings.fps,
            width=self.settings.width, rtt_median=statistics.median(rtts) if rtts else None,
        )

    # -- inside -----------------------------------------------------------------------------

    def _advance(self, now: float) -> None:
        if now < self._now:
            raise ValueError(f"time went backwards: {now} after {self._now}")
        self._now = now
        if self.ended:
            return
        flight = self._flight
        if flight is not None and now >= flight.sent_at + self.timings.lost_after:
            lost_at = flight.sent_at + self.timings.lost_after
            self._flight = None
            self._counts["lost"] += 1
            self._window.append((lost_at, True))
            self._last_drop = lost_at
            self._events.append(FrameLost(flight.seq, flight.sent_at))
        if self._unanswered_since is not None and now >= self._unanswered_since + self.timings.stall_after:
            self.ended = True
            self._events.append(Stalled(self._unanswered_since))
            return
        while self._window and now - self._window[0][0] >= self.timings.drop_window:
            self._window.popleft()

    def _drop(self, now: float, reason: str) -> None:
        self._dropped[reason] += 1
        self._window.append((now, True))
        self._last_drop = now

    def _steer(self, now: float) -> None:
        if self.ended:
            return
        if self._should_step_down(now):
            self._move(self.level + 1, now)
        elif self._should_step_up(now):
            self._move(self.level - 1, now)

    def _should_step_down(self, now: float) -> bool:
        if self.level >= STEPS or now - self._level_since < self.timings.drop_window or not self._window:
            return False
        drops = sum(dropped for _, dropped in self._window)
        share, whole = DROP_RATIO
        return drops * whole >= len(self._window) * share

    def _should_step_up(self, now: float) -> bool:
        clean_since = max(self._level_since, self._last_drop)
        if self.level == 0 or now - clean_since < self.timings.clean_for:
            return False
        recent = [rtt for at, rtt in self._rtts if at >= clean_since][-ROOM_SAMPLES:]
        return bool(recent) and statistics.median(recent) < self.table[self.level - 1].interval / 2

    def _move(self, level: int, now: float) -> None:
        self._events.append(LevelChanged(self.level, level, self.table[level]))
        self.level = level
        self._level_since = now
        # The next frame is due one interval of the new level after the last one.
        self._due = self._slot + self.settings.interval
