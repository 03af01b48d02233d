"""The event router on its own: no socket, no reader, no trio run.

The connection's tests drive the same rules through a scripted peer; these call the
router directly, so each decision (skip or decode, deliver or drop, what a loss ends,
in which order) is checked where it is made.
"""

from __future__ import annotations

from typing import Any

import pytest
import trio

from browx_actors.cdp import CdpConnectionLost, CdpEvent, CdpSubscription, TargetLink, TargetLinkLost
from browx_actors.cdp.routing import EventRouter
from browx_actors.cdp.subscription import Ending

SID = "0123456789ABCDEF0123456789ABCDEF"
OTHER = "FEDCBA9876543210FEDCBA9876543210"
LOG = "Runtime.consoleAPICalled"


class Tap:
    def __init__(self, *methods: str, skip: bool = False, fail: bool = False) -> None:
        self.methods = frozenset(methods)
        self.asked: list[str] = []
        self.seen: list[CdpEvent] = []
        self._skip = skip
        self._fail = fail

    def skip(self, method: str, raw: str) -> bool:
        self.asked.append(method)
        if self._fail:
            raise RuntimeError("a recorder bug")
        return self._skip

    def on_event(self, event: CdpEvent) -> None:
        if self._fail:
            raise RuntimeError("a recorder bug")
        self.seen.append(event)


class Failed:
    """The connection's side of a session loss: the commands it was asked to fail."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, Ending]] = []
        self.hook: Any = None

    def __call__(self, session_id: str, ending: Ending) -> None:
        self.calls.append((session_id, ending))
        if self.hook is not None:
            self.hook()


def subscribe(router: EventRouter, session_id: str | None, methods: Any = None, buffer: int = 8) -> CdpSubscription:
    subscription = CdpSubscription(router.unsubscribe, session_id, methods, buffer)
    router.add(subscription)
    return subscription


def buffered(subscription: CdpSubscription) -> list[CdpEvent]:
    events = []
    while True:
        try:
            events.append(subscription.receive_nowait())
        except (trio.WouldBlock, trio.EndOfChannel):
            return events


def test_an_event_nothing_wants_is_skipped_and_counted_unrouted() -> None:
    router = EventRouter(Failed())
    subscribe(router, OTHER)  # another session's subscriber changes nothing here
    assert router.skippable(LOG, SID, "raw")
    assert (router.events, router.events_skipped, router.events_unrouted) == (1, 1, 1)


def test_a_loss_event_is_never_skipped() -> None:
    router = EventRouter(Failed())
    for method in ("Target.detachedFromTarget", "Inspector.detached", "Inspector.targetCrashed"):
        assert not router.skippable(method, SID, "raw")
    assert router.events == 0


@pytest.mark.parametrize("methods", [None, {LOG}])
def test_a_subscriber_that_wants_it_gets_it_decoded(methods: Any) -> None:
    router = EventRouter(Failed())
    tap = Tap(LOG, skip=True)
    router.tap(SID, tap)
    subscribe(router, SID, methods)
    assert not router.skippable(LOG, SID, "raw")
    assert tap.asked == []  # the tap has no say when a subscriber wants it
    assert router.events == 0


def test_a_subscriber_for_other_methods_does_not_stop_the_skip() -> None:
    router = EventRouter(Failed())
    subscribe(router, SID, {"Page.frameNavigated"})
    assert router.skippable(LOG, SID, "raw")


def test_every_tap_that_wants_it_must_say_skip() -> None:
    router = EventRouter(Failed())
    sampler, uninterested = Tap(LOG, skip=True), Tap("Network.requestWillBeSent", skip=False)
    router.tap(SID, sampler)
    router.tap(SID, uninterested)
    assert router.skippable(LOG, SID, "raw")
    assert sampler.asked == [LOG] and uninterested.asked == []
    assert (router.events, router.events_skipped, router.events_unrouted) == (1, 1, 0)

    router.tap(SID, Tap(LOG, skip=False))
    assert not router.skippable(LOG, SID, "raw")
    assert router.events == 1


def test_a_tap_whose_skip_raises_gets_the_event_decoded_and_is_counted() -> None:
    router = EventRouter(Failed())
    router.tap(SID, Tap(LOG, fail=True))
    assert not router.skippable(LOG, SID, "raw")
    assert router.tap_errors == 1


def test_a_full_subscription_drops_the_newest_and_the_next_one_shows_the_gap() -> None:
    router = EventRouter(Failed())
    small, roomy = subscribe(router, SID, buffer=1), subscribe(router, SID, {LOG})
    for n in range(3):
        router.route(CdpEvent(LOG, {"n": n}, SID))
    assert small.dropped == 2 and router.events_dropped == 2
    assert [e.params["n"] for e in buffered(roomy)] == [0, 1, 2]  # others still get every one
    assert [e.params["n"] for e in buffered(small)] == [0]
    router.route(CdpEvent(LOG, {"n": 3}, SID))
    (after,) = buffered(small)
    assert after.params["n"] == 3 and after.dropped_before == 2
    assert router.events == 4 and router.events_unrouted == 0


def test_events_go_by_session_and_method_and_the_rest_is_unrouted() -> None:
    router = EventRouter(Failed())
    browser, page = subscribe(router, None), subscribe(router, SID, {LOG})
    tap = Tap(LOG, "Target.targetCreated")
    router.tap(SID, tap)
    router.route(CdpEvent("Target.targetCreated", {}, None))  # browser level: no taps
    router.route(CdpEvent(LOG, {}, SID))
    router.route(CdpEvent("Page.frameNavigated", {}, SID))
    router.route(CdpEvent(LOG, {}, OTHER))
    assert [e.method for e in buffered(browser)] == ["Target.targetCreated"]
    assert [e.method for e in buffered(page)] == [LOG]
    assert [e.method for e in tap.seen] == [LOG]
    assert (router.events, router.events_unrouted) == (4, 2)


def test_a_tap_that_raises_is_counted_and_the_others_still_get_the_event() -> None:
    router = EventRouter(Failed())
    good = Tap(LOG)
    router.tap(SID, Tap(LOG, fail=True))
    router.tap(SID, good)
    router.route(CdpEvent(LOG, {}, SID))
    assert router.tap_errors == 1 and len(good.seen) == 1


def test_unsubscribe_and_untap_empty_the_tables_and_repeat_harmlessly() -> None:
    router = EventRouter(Failed())
    subscription = subscribe(router, SID)
    tap = Tap(LOG)
    untap = router.tap(SID, tap)
    assert router.subscription_count() == 1
    router.unsubscribe(subscription)
    router.unsubscribe(subscription)
    untap()
    untap()
    assert router.subscription_count() == 0
    router.route(CdpEvent(LOG, {}, SID))
    assert tap.seen == [] and router.events_unrouted == 1


def test_a_session_loss_fails_its_commands_before_it_ends_its_subscriptions() -> None:
    failed = Failed()
    router = EventRouter(failed)
    session = TargetLink(None, SID, "T1")  # type: ignore[arg-type]  # the router never sends
    router.sessions[SID] = session
    mine, other = subscribe(router, SID), subscribe(router, OTHER)
    tap = Tap(LOG)
    router.tap(SID, tap)
    router.route(CdpEvent(LOG, {"n": 1}, SID))
    seen_open: list[bool] = []
    failed.hook = lambda: seen_open.append(mine._ending is None)

    router.route(CdpEvent("Inspector.detached", {"reason": "target_closed"}, SID))

    assert seen_open == [True]
    ((session_id, ending),) = failed.calls
    error = ending()
    assert session_id == SID and isinstance(error, TargetLinkLost) and error.target_id == "T1"
    assert session.lost == "inspector detached: target_closed" and SID not in router.sessions
    # What it held (the loss event included), then the end.
    assert [mine.receive_nowait().method for _ in range(2)] == [LOG, "Inspector.detached"]
    with pytest.raises(TargetLinkLost):
        mine.receive_nowait()
    router.route(CdpEvent(LOG, {}, SID))
    assert len(tap.seen) == 1  # the tap went with its session
    assert buffered(other) == [] and other._ending is None


def test_a_target_crash_ends_every_session_on_that_target() -> None:
    failed = Failed()
    router = EventRouter(failed)
    for sid, target in ((SID, "T1"), (OTHER, "T1"), ("C" * 32, "T2")):
        router.sessions[sid] = TargetLink(None, sid, target)  # type: ignore[arg-type]
    router.route(CdpEvent("Target.targetCrashed", {"targetId": "T1", "status": "crashed", "errorCode": 9}))
    assert sorted(sid for sid, _ in failed.calls) == sorted([SID, OTHER])
    assert list(router.sessions) == ["C" * 32]


def test_losing_the_socket_ends_every_subscription_and_forgets_sessions_and_taps() -> None:
    router = EventRouter(Failed())
    subscriptions = [subscribe(router, SID), subscribe(router, None)]
    router.sessions[SID] = TargetLink(None, SID, "T1")  # type: ignore[arg-type]
    tap = Tap(LOG)
    router.tap(SID, tap)
    router.lose(lambda: CdpConnectionLost("gone"))
    assert router.subscription_count() == 0 and router.sessions == {}
    for subscription in subscriptions:
        with pytest.raises(CdpConnectionLost, match="gone"):
            subscription.receive_nowait()
    router.route(CdpEvent(LOG, {}, SID))
    assert tap.seen == []
