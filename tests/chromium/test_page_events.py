"""What a session records from its tabs' raw events: the tap the CDP reader feeds, the
console and request logs, sampling, and the counters an action's settle reads (no
browser: the events are what Chromium sends, written out)."""

from __future__ import annotations

import asyncio
import json
import threading
from typing import Any

from browx_actors.cdp import CdpEvent, peek_event
from browx_actors.sessions.chromium.console.sampler import HELD_BACK, held_back_counts
from browx_actors.sessions.chromium.tabs.events import PageEvents, Pulse, RequestTracker, Sampler
from browx_actors.sessions.chromium.tabs.tap import FLOOD_LOOK_S, RESAMPLE_AFTER_S, browser_own_request

SESSION = "0123456789ABCDEF0123456789ABCDEF"
TARGET = "T1"


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def raw(method: str, params: dict[str, Any]) -> str:
    """An event exactly as Chromium writes it on a flat session."""
    return json.dumps({"method": method, "params": params}, separators=(",", ":"))[:-1] + \
        f',"sessionId":"{SESSION}"}}'


def console(kind: str, *args: Any) -> dict[str, Any]:
    values = [{"type": "string", "value": a} if isinstance(a, str) else
              {"type": "number", "value": a, "description": str(a)} for a in args]
    return {"type": kind, "args": values, "executionContextId": 1, "timestamp": 1.7e12,
            "stackTrace": {"callFrames": [{"functionName": "go", "scriptId": "1", "url": "http://h/app.js",
                                           "lineNumber": 2, "columnNumber": 8}]}}


def feed(tap: Any, method: str, params: dict[str, Any]) -> bool:
    """What the reader does with one message: skip it on the tap's say-so, or decode it."""
    text = raw(method, params)
    peeked = peek_event(text)
    assert peeked == (method, SESSION)
    if method in tap.methods and tap.skip(method, text):
        return False
    tap.on_event(CdpEvent(method, json.loads(text)["params"], SESSION))
    return True


def make(record: bool = True) -> tuple[PageEvents, Any, Clock]:
    clock = Clock()
    events = PageEvents(Pulse(), record=record, clock=clock)
    return events, events.tap(TARGET, object(), main_frame=TARGET), clock


def test_peek_reads_method_and_session_and_gives_up_on_anything_else() -> None:
    assert peek_event(raw("Runtime.consoleAPICalled", {"type": "log"})) == ("Runtime.consoleAPICalled", SESSION)
    assert peek_event('{"id":3,"result":{}}') is None
    assert peek_event('{"method":"Target.targetCreated","params":{}}') is None  # browser level: no session
    assert peek_event('{"params":{},"method":"X.y","sessionId":"AB"}') is None  # another key order
    assert peek_event('{"method":"X.y","params":{},"sessionId":"not hex!"}') is None
    assert peek_event(b'{"method":"X.y"}') is None


def test_console_entries_are_formatted_located_and_read_by_sequence() -> None:
    events, tap, _ = make()
    feed(tap, "Runtime.consoleAPICalled", console("log", "loaded %s in %d ms", "app", 12.7, "extra"))
    feed(tap, "Runtime.consoleAPICalled", console("error", "token changed to", "abc"))
    feed(tap, "Runtime.exceptionThrown", {"timestamp": 1.7e12, "exceptionDetails": {
        "text": "Uncaught", "exception": {"type": "object", "subtype": "error",
                                          "description": "TypeError: x is undefined\n    at go (app.js:3:9)"},
        "stackTrace": {"callFrames": [{"functionName": "go", "url": "http://h/app.js", "lineNumber": 2,
                                       "columnNumber": 8}]}}})
    feed(tap, "Log.entryAdded", {"entry": {"source": "network", "level": "error", "url": "http://h/missing.png",
                                           "text": "Failed to load resource: 404", "timestamp": 1.7e12}})
    entries = events.console.entries()
    assert [(e.level, e.kind, e.source, e.text) for e in entries] == [
        ("info", "log", "console", "loaded app in 12 ms extra"),
        ("error", "error", "console", "token changed to abc"),
        ("error", "exception", "exception", "TypeError: x is undefined"),
        ("error", "error", "network", "Failed to load resource: 404"),
    ]
    assert (entries[0].url, entries[0].line, entries[0].column) == ("http://h/app.js", 3, 9)
    assert entries[2].stack == ("go (http://h/app.js:3:9)",)
    # What an action's result lists: errors after its mark, with Playwright's type names.
    assert events.console.since(entries[0].id, errors_only=True) == [
        {"id": 2, "type": "error", "text": "token changed to abc"},
        {"id": 3, "type": "pageerror", "text": "TypeError: x is undefined"},
        {"id": 4, "type": "error", "text": "Failed to load resource: 404"},
    ]
    assert events.console.last_seq == 4


def test_a_flood_is_sampled_counted_and_never_decoded_past_the_bucket() -> None:
    events, tap, clock = make()
    decoded = sum(feed(tap, "Runtime.consoleAPICalled", console("log", "flood", i)) for i in range(3000))
    # The burst is admitted whole, the rest only counted.
    assert decoded == 1000
    book = events.console.tab(TARGET)
    assert book.counts() == {"seen": 3000, "byLevel": {"info": 3000}, "kept": 1000, "dropped": 0,
                             "sampledOut": 2000, "sampledInPage": 0}
    # Errors have a bucket of their own: a log flood does not hide them.
    assert feed(tap, "Runtime.consoleAPICalled", console("error", "still seen"))
    # Half a second later the bucket has room for 250 more logs.
    clock.now += 0.5
    assert sum(feed(tap, "Runtime.consoleAPICalled", console("log", "later")) for _ in range(400)) == 250
    assert book.counts()["kept"] == 1000 and book.dropped == 251  # the ring keeps the newest


def test_a_dry_bucket_asks_once_per_context_for_the_page_to_sample_itself() -> None:
    _, tap, clock = make()
    asked: list[int] = []
    tap.on_flood = asked.append
    flood = [dict(console("log", "flood", i), executionContextId=7) for i in range(1500)]
    for params in flood:
        feed(tap, "Runtime.consoleAPICalled", params)
    assert asked == [7]  # when the bucket ran dry, once, for the context the flood came from
    # A look at most every FLOOD_LOOK_S: another context's flood is found at the next one.
    other = dict(console("log", '"executionContextId":9'), executionContextId=8)
    feed(tap, "Runtime.consoleAPICalled", other)
    assert asked == [7]
    clock.now += FLOOD_LOOK_S
    # A string that spells the field is escaped in the message, so it never passes for it.
    for _ in range(200):  # past what the bucket refilled meanwhile
        feed(tap, "Runtime.consoleAPICalled", other)
    assert asked == [7, 8]
    clock.now += 1
    for params in flood[:600]:
        feed(tap, "Runtime.consoleAPICalled", params)
    assert asked == [7, 8]  # still sampling: not asked again so soon
    clock.now += RESAMPLE_AFTER_S
    for params in flood[:1100]:
        feed(tap, "Runtime.consoleAPICalled", params)
    assert asked == [7, 8, 7]  # the sampler steps aside after a calm second: asked again
    # A new document's contexts are new: the ids seen so far are forgotten.
    tap.on_event(CdpEvent("Runtime.executionContextsCleared", {}, SESSION))
    assert tap._sampling_asked == {}


def test_the_pages_held_back_counts_are_seen_and_never_recorded_and_a_forgery_is_a_message() -> None:
    events, tap, _ = make()
    nonce = events.sampling_nonce
    for i in range(1000):  # the bucket dry, so only what must be read is decoded
        feed(tap, "Runtime.consoleAPICalled", console("log", "flood", i))
    assert feed(tap, "Runtime.consoleAPICalled", console("debug", HELD_BACK, 4000, 12, 3, nonce))
    book = events.console.tab(TARGET)
    assert book.counts() == {"seen": 5015, "byLevel": {"info": 5000, "warn": 12, "error": 3}, "kept": 1000,
                             "dropped": 0, "sampledOut": 4015, "sampledInPage": 4015}
    # The page does not know the nonce: its look-alike line is one of its messages.
    for forged in (console("debug", HELD_BACK, 99, 0, 0, "guess"), console("log", HELD_BACK, 99, 0, 0, nonce),
                   console("debug", HELD_BACK, -1, 0, 0, nonce), console("debug", HELD_BACK, 1, 0, nonce)):
        assert held_back_counts(forged, nonce) is None
    events2, tap2, _ = make()
    feed(tap2, "Runtime.consoleAPICalled", console("debug", HELD_BACK, 99, 0, 0, "guess"))
    assert events2.console.tab(TARGET).counts()["sampledInPage"] == 0
    assert events2.console.tab(TARGET).counts()["kept"] == 1


def test_recording_off_keeps_errors_and_counters_only() -> None:
    events, tap, _ = make(record=False)
    assert not feed(tap, "Runtime.consoleAPICalled", console("log", "quiet"))
    assert feed(tap, "Runtime.consoleAPICalled", console("error", "loud"))
    assert [e.text for e in events.console.entries()] == ["loud"]
    feed(tap, "Network.requestWillBeSent", request("1", "http://h/a.json", "Fetch"))
    assert events.requests.started == 1 and events.requests.in_flight == 1
    assert len(events.network(TARGET)) == 0


def request(request_id: str, url: str, kind: str, **extra: Any) -> dict[str, Any]:
    return {"requestId": request_id, "loaderId": extra.pop("loaderId", "L0"), "frameId": extra.pop("frameId", TARGET),
            "type": kind, "timestamp": 10.0, "wallTime": 1700000000.0,
            "request": {"url": url, "method": extra.pop("method", "GET"), "headers": extra.pop("headers", {}),
                        "hasPostData": False}, **extra}


def test_requests_are_tracked_for_settle_and_a_navigation_that_commits_is_not_an_ended_one() -> None:
    events, tap, _ = make()
    requests = events.requests
    feed(tap, "Network.requestWillBeSent", request("9", "http://h/next.html", "Document", loaderId="9"))
    feed(tap, "Page.frameNavigated", {"frame": {"id": TARGET, "loaderId": "9", "url": "http://h/next.html"}})
    feed(tap, "Network.loadingFinished", {"requestId": "9", "timestamp": 10.2, "encodedDataLength": 900})
    assert (requests.started, requests.in_flight, requests.navigations_ended) == (1, 0, 0)
    assert events.commits(TARGET) == 1
    # A 204 (or a download) ends its navigation request without a commit: that one counts.
    feed(tap, "Network.requestWillBeSent", request("10", "http://h/status/204", "Document", loaderId="10"))
    feed(tap, "Network.loadingFinished", {"requestId": "10", "timestamp": 10.3, "encodedDataLength": 0})
    # A subframe's document does not count, nor does a fetch.
    feed(tap, "Network.requestWillBeSent", request("11", "http://h/frame.html", "Document", loaderId="11",
                                                   frameId="F2"))
    feed(tap, "Network.loadingFailed", {"requestId": "11", "timestamp": 10.4, "errorText": "net::ERR_ABORTED"})
    assert (requests.started, requests.in_flight, requests.navigations_ended) == (3, 0, 1)
    # What a closed tab had in flight never ends: forgetting it lets settle's wait finish.
    feed(tap, "Network.requestWillBeSent", request("12", "http://h/slow", "Fetch"))
    assert requests.in_flight == 1
    events.forget(TARGET, [tap.key])
    assert requests.in_flight == 0 and events.commits(TARGET) == 0


def test_the_network_log_redacts_follows_redirects_and_bounds_itself() -> None:
    events, tap, _ = make()
    feed(tap, "Network.requestWillBeSent", request(
        "1", "https://ada:pw@h/login?token=abc&q=1", "Document", loaderId="1",
        headers={"Authorization": "Bearer abc", "Accept": "text/html"}))
    feed(tap, "Network.requestWillBeSentExtraInfo", {"requestId": "1", "headers": {
        "Cookie": "sid=abc", "Accept": "text/html"}})
    feed(tap, "Network.requestWillBeSent", request(
        "1", "https://h/home", "Document", loaderId="1",
        redirectResponse={"status": 302, "statusText": "Found", "headers": {"Location": "/home",
                                                                           "Set-Cookie": "sid=new\nx=1"}}))
    feed(tap, "Network.responseReceived", {"requestId": "1", "type": "Document", "response": {
        "status": 200, "statusText": "OK", "mimeType": "text/html", "headers": {"Content-Type": "text/html"},
        "remoteIPAddress": "127.0.0.1", "remotePort": 443, "protocol": "h2"}})
    feed(tap, "Network.loadingFinished", {"requestId": "1", "timestamp": 10.25, "encodedDataLength": 1234})
    hop, final = list(events.network(TARGET))
    assert hop.url == "https://ada:<redacted>@h/login?token=<redacted>&q=1"
    assert hop.request_headers == {"Cookie": "<redacted>", "Accept": "text/html"}
    assert hop.status == 302 and hop.redirected_to == "https://h/home"
    assert hop.response_headers["Set-Cookie"] == "<redacted> (2 values)"
    assert (final.status, final.mime, final.size, final.duration_ms, final.remote) == (
        200, "text/html", 1234, 250.0, "127.0.0.1:443")
    from browx_actors.sessions.chromium.network.log import summary_line
    assert summary_line(final) == f"#{final.id} GET 200 document 1.2 kB 250 ms https://h/home"
    feed(tap, "Network.requestWillBeSent", request("2", "http://h/x.png", "Image"))
    feed(tap, "Network.loadingFailed", {"requestId": "2", "timestamp": 10.5, "errorText": "net::ERR_FAILED",
                                        "blockedReason": "mixed-content"})
    assert summary_line(events.network(TARGET).get(final.id + 1)).startswith(  # type: ignore[arg-type]
        f"#{final.id + 1} GET failed(net::ERR_FAILED, mixed-content) image - 500 ms")
    log = events.network(TARGET)
    log._maxlen = 3
    for i in range(3, 8):
        feed(tap, "Network.requestWillBeSent", request(str(i), f"http://h/{i}", "Fetch"))
    assert len(log) == 3 and log.dropped == 5 and log.total == 8


def test_a_pulse_wakes_a_waiter_from_another_thread_and_times_out_without_sleeping() -> None:
    async def scenario() -> tuple[bool, bool, bool]:
        pulse, tracker = Pulse(), RequestTracker()
        tracker._pulse = pulse
        tracker.begin(("s", "1"))
        # The request ends on another thread (the Trio reader) while the waiter waits.
        timer = threading.Timer(0.05, lambda: tracker.end(("s", "1")))
        timer.start()
        idle = await tracker.wait_idle(30)
        already = await pulse.wait_until(lambda: True, timeout=0)
        never = await pulse.wait_until(lambda: False, timeout=0)
        return idle, already, never

    assert asyncio.run(scenario()) == (True, True, False)


def test_requests_still_in_flight_are_named_oldest_first_redacted_and_cut() -> None:
    events, tap, _ = make()
    feed(tap, "Network.requestWillBeSent", request("1", "http://user:hunter2@h/slow?token=abc", "Fetch"))
    feed(tap, "Network.requestWillBeSent", request("2", "data:text/plain," + "x" * 5000, "Fetch"))
    feed(tap, "Network.requestWillBeSent", request("3", "http://h/ended", "Fetch"))
    feed(tap, "Network.loadingFinished", {"requestId": "3"})
    pending = events.requests.pending()
    assert len(pending) == 2 and pending[0].startswith("GET http://") and "hunter2" not in pending[0]
    assert pending[1].startswith("GET data:text/plain,xxx") and len(pending[1]) == len("GET ") + 200
    assert events.requests.pending(limit=1) == pending[:1]


def test_the_sampler_refills_at_its_rate() -> None:
    clock = Clock()
    sampler = Sampler(rate=10, burst=2, clock=clock)
    assert [sampler.admit() for _ in range(3)] == [True, True, False]
    clock.now += 0.15
    assert [sampler.admit() for _ in range(2)] == [True, False]


def test_a_download_link_ends_a_navigation_without_any_request() -> None:
    events, tap, _ = make()
    feed(tap, "Page.downloadWillBegin", {"frameId": TARGET, "guid": "g1", "url": "http://h/r.csv",
                                         "suggestedFilename": "r.csv"})
    feed(tap, "Page.downloadWillBegin", {"frameId": "F2", "guid": "g2", "url": "http://h/s.csv",
                                         "suggestedFilename": "s.csv"})
    assert events.downloads_begun == 2 and events.requests.navigations_ended == 1
    assert events.requests.in_flight == 0


def test_the_browsers_own_icon_fetch_is_no_request_an_action_waits_for() -> None:
    icon = {"requestId": "9", "type": "Other", "initiator": {"type": "other"},
            "request": {"url": "http://h/favicon.ico", "method": "GET"}}
    assert browser_own_request(icon)
    # The page asking for it itself (a script, a link element) is the page's request.
    assert not browser_own_request({**icon, "type": "Fetch", "initiator": {"type": "script"}})
    assert not browser_own_request({**icon, "request": {"url": "http://h/app/icon.png"}})
    events, tap, _ = make()
    feed(tap, "Network.requestWillBeSent", icon)
    assert events.requests.started == 0


def test_a_settle_waits_for_the_requests_of_its_own_tab_not_of_the_tabs_it_opened() -> None:
    """A popup's document can be held by its setup before it loads: the opener's action
    has settled when its own tab's requests have, and the popup is the agent's to select."""
    tracker = RequestTracker()
    tracker.begin(("opener-session", "1"), ("GET", "http://h/api"), tab="opener")
    tracker.begin(("popup-session", "7"), ("GET", "http://h/child.html"), tab="popup")
    assert (tracker.started_on("opener"), tracker.started_on("popup"), tracker.started_on(None)) == (1, 1, 2)
    assert tracker.pending(tab="opener") == ["GET http://h/api"]
    assert tracker.pending(tab="popup") == ["GET http://h/child.html"] and len(tracker.pending()) == 2

    async def idle(tab: str | None) -> bool:
        return await tracker.wait_idle(0, tab)

    tracker.end(("opener-session", "1"))
    assert asyncio.run(idle("opener")) is True
    assert asyncio.run(idle(None)) is False  # the popup's document is still loading
    assert asyncio.run(idle("popup")) is False
