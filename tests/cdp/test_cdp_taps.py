"""Taps: a recorder fed by the reader itself, in the browser's order and before any
later reply, and the peek that lets a flood be counted without decoding it."""

from __future__ import annotations

import json
from typing import Any

from browx_actors.cdp import CdpEvent, open_cdp_connection
from cdp_fixtures import fake_peer

SID = "0123456789ABCDEF0123456789ABCDEF"


def chromium_event(method: str, session_id: str = SID, **params: Any) -> str:
    """An event as Chromium writes it: compact, the session id appended last."""
    body = json.dumps({"method": method, "params": params}, separators=(",", ":"))
    return body[:-1] + f',"sessionId":"{session_id}"}}'


class Recorder:
    methods = frozenset({"Runtime.consoleAPICalled", "Network.requestWillBeSent"})

    def __init__(self, skip_logs: bool = False, fail: bool = False) -> None:
        self.seen: list[tuple[str, Any]] = []
        self.asked: list[str] = []
        self.skip_logs = skip_logs
        self.fail = fail

    def skip(self, method: str, raw: str) -> bool:
        self.asked.append(method)
        return self.skip_logs and '"type":"log"' in raw

    def on_event(self, event: CdpEvent) -> None:
        if self.fail:
            raise RuntimeError("a recorder bug")
        self.seen.append((event.method, event.params.get("n")))


async def test_a_tap_has_seen_every_earlier_event_when_a_reply_arrives() -> None:
    async with fake_peer() as (url, _), open_cdp_connection(url) as conn:
        recorder = Recorder()
        untap = conn.tap(SID, recorder)
        await conn.send("Test.emit", {"raw": [
            chromium_event("Runtime.consoleAPICalled", n=1, type="log"),
            chromium_event("Page.frameNavigated", n=2),  # not a method it wants
            chromium_event("Network.requestWillBeSent", n=3),
            chromium_event("Runtime.consoleAPICalled", "FEDCBA9876543210FEDCBA9876543210", n=4),  # another session
        ]})
        # No waiting: the reply came after the events, so the tap has them, in order.
        assert recorder.seen == [("Runtime.consoleAPICalled", 1), ("Network.requestWillBeSent", 3)]
        stats = conn.stats()
        assert stats.events == 4 and stats.events_unrouted == 2 and stats.events_skipped == 2
        untap()
        await conn.send("Test.emit", {"raw": [chromium_event("Network.requestWillBeSent", n=5)]})
        assert len(recorder.seen) == 2


async def test_a_flood_the_tap_samples_out_is_counted_undecoded_and_others_still_decode() -> None:
    async with fake_peer() as (url, _), open_cdp_connection(url) as conn:
        recorder = Recorder(skip_logs=True)
        conn.tap(SID, recorder)
        await conn.send("Test.emit", {"raw": [
            *(chromium_event("Runtime.consoleAPICalled", n=i, type="log") for i in range(50)),
            chromium_event("Runtime.consoleAPICalled", n=99, type="error"),
        ]})
        assert recorder.seen == [("Runtime.consoleAPICalled", 99)]
        assert conn.stats().events_skipped == 50 and conn.stats().events == 51
        # A subscriber that wants the method gets every event decoded: skipping is the
        # tap's say only when nothing else on the session wants it.
        async with conn.subscribe(SID, methods={"Runtime.consoleAPICalled"}) as everything:
            asked = len(recorder.asked)
            await conn.send("Test.emit", {"raw": [chromium_event("Runtime.consoleAPICalled", n=7, type="log")]})
            assert (await everything.receive()).params["n"] == 7
            assert len(recorder.asked) == asked and recorder.seen[-1] == ("Runtime.consoleAPICalled", 7)


async def test_a_failing_tap_is_counted_and_the_reader_carries_on() -> None:
    async with fake_peer() as (url, _), open_cdp_connection(url) as conn:
        conn.tap(SID, Recorder(fail=True))
        survivor = Recorder()
        conn.tap(SID, survivor)
        await conn.send("Test.emit", {"raw": [chromium_event("Network.requestWillBeSent", n=1)]})
        assert conn.stats().tap_errors == 1 and survivor.seen == [("Network.requestWillBeSent", 1)]
        assert (await conn.send("Test.emit", {"raw": []})) == {}


async def test_an_auto_attached_session_is_adopted_once_and_ends_with_its_detach() -> None:
    async with fake_peer() as (url, _), open_cdp_connection(url) as conn:
        child = conn.adopt(SID, "FRAME1")
        assert conn.adopt(SID, "FRAME1") is child and conn.stats().sessions == 1
        recorder = Recorder()
        child.tap(recorder)
        await conn.send("Test.emit", {"raw": [
            json.dumps({"method": "Target.detachedFromTarget", "params": {"sessionId": SID}}),
            chromium_event("Network.requestWillBeSent", n=1),
        ]})
        assert child.lost is not None and recorder.seen == []  # the tap went with its session
        assert conn.stats().sessions == 0
