"""The raw CDP client: routing rules without a browser, then the same client on real Chromium."""

from __future__ import annotations

import json
import os
import signal

import pytest
import trio
import trio.testing
from hypothesis import given
from hypothesis import strategies as st

from browx_actors.cdp import (
    CdpConnectionLost,
    CdpError,
    CdpEvent,
    CdpSubscription,
    CdpTimeout,
    ChromiumProcess,
    TargetLinkLost,
    open_cdp_connection,
)
from browx_actors.cdp.connection import CdpConnection
from browx_actors.cdp.protocol import (
    Malformed,
    Reply,
    SessionLoss,
    decode_message,
    encode_command,
    session_losses,
)
from cdp_fixtures import fake_peer, new_page
from polling import poll_until

# -- pure protocol decisions ---------------------------------------------------------


def test_encode_command_puts_session_id_at_top_level() -> None:
    text = encode_command(7, "Runtime.evaluate", {"expression": "1"}, "S1")
    assert json.loads(text) == {
        "id": 7,
        "method": "Runtime.evaluate",
        "params": {"expression": "1"},
        "sessionId": "S1",
    }
    assert json.loads(encode_command(8, "Browser.getVersion")) == {
        "id": 8,
        "method": "Browser.getVersion",
    }


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ('{"id":1,"result":{"a":1}}', Reply(1, {"a": 1}, None)),
        ('{"id":2}', Reply(2, {}, None)),
        ('{"id":3,"error":{"code":-32000,"message":"no"}}', Reply(3, None, {"code": -32000, "message": "no"})),
        ('{"id":4,"result":{},"sessionId":"S"}', Reply(4, {}, None, "S")),
        (
            '{"method":"Page.loadEventFired","params":{"timestamp":1}}',
            CdpEvent("Page.loadEventFired", {"timestamp": 1}),
        ),
        ('{"method":"Runtime.consoleAPICalled","sessionId":"S"}', CdpEvent("Runtime.consoleAPICalled", {}, "S")),
        (b'{"method":"X.y","params":{}}', CdpEvent("X.y", {})),
    ],
)
def test_decode_message_classifies_replies_and_events(raw: str | bytes, expected: object) -> None:
    assert decode_message(raw) == expected


@pytest.mark.parametrize(
    "raw",
    [
        "not json",
        "",
        "[1, 2]",
        "null",
        '{"id":"1","result":{}}',
        '{"id":true,"result":{}}',
        '{"id":1,"result":[1]}',
        '{"id":1,"error":"bad"}',
        '{"method":"X.y","params":[1]}',
        '{"method":5}',
        '{"method":"X.y","sessionId":5}',
        '{"neither":"reply nor event"}',
        b"\xff\xfe\x00garbage",
        "[" * 100_000,
    ],
)
def test_decode_message_turns_garbage_into_malformed(raw: str | bytes) -> None:
    assert isinstance(decode_message(raw), Malformed)


@given(st.one_of(st.text(), st.binary()))
def test_decode_message_never_raises(raw: str | bytes) -> None:
    assert isinstance(decode_message(raw), (Reply, CdpEvent, Malformed))


def test_session_losses_names_the_session_and_the_reason() -> None:
    targets = {"S1": "T1", "S2": "T2", "S3": "T1"}
    detached = CdpEvent("Target.detachedFromTarget", {"sessionId": "S2", "targetId": "T2"})
    assert list(session_losses(detached, targets)) == [SessionLoss("S2", "detached from its target")]
    inspector = CdpEvent("Inspector.detached", {"reason": "Render process gone."}, "S1")
    assert list(session_losses(inspector, targets)) == [
        SessionLoss("S1", "inspector detached: Render process gone.")
    ]
    crashed = CdpEvent("Target.targetCrashed", {"targetId": "T1", "status": "crashed", "errorCode": 5})
    losses = list(session_losses(crashed, targets))
    assert [loss.session_id for loss in losses] == ["S1", "S3"]
    assert "crashed" in losses[0].reason and "errorCode 5" in losses[0].reason
    assert list(session_losses(CdpEvent("Inspector.targetCrashed", {}, "S2"), targets)) == [
        SessionLoss("S2", "target crashed")
    ]
    assert list(session_losses(CdpEvent("Page.loadEventFired", {}, "S1"), targets)) == []


# -- the connection against a scripted peer ---------------------------------------------


def _event(method: str, session_id: str | None = None, **params: object) -> str:
    message: dict[str, object] = {"method": method, "params": params}
    if session_id is not None:
        message["sessionId"] = session_id
    return json.dumps(message)


async def test_garbage_and_unknown_messages_are_counted_and_the_reader_survives() -> None:
    async with fake_peer() as (url, _), open_cdp_connection(url) as conn:
        garbage = [
            "not json at all",
            "[1, 2, 3]",
            '{"id":"seven","result":{}}',
            '{"method":"Page.frameNavigated","params":5}',
            {"bytes": "fffe00"},
            '{"id":987654,"result":{}}',
            _event("Nobody.listens", x=1),
            _event("Nobody.listens", "S-unknown"),
        ]
        await conn.send("Test.emit", {"raw": garbage})
        assert await conn.send("Test.echo", {"still": "alive"}) == {"still": "alive"}
        stats = conn.stats()
        assert stats.malformed == 5
        assert stats.unknown_replies == 1
        assert stats.events == 2
        assert stats.events_unrouted == 2
        assert stats.pending == 0
        assert stats.lost is None


async def test_replies_are_routed_by_id_not_by_order() -> None:
    async with fake_peer() as (url, _), open_cdp_connection(url) as conn:
        results: dict[int, int] = {}

        async def call(n: int) -> None:
            results[n] = (await conn.send("Test.hold", {"count": 20}))["id"]

        async with trio.open_nursery() as nursery:
            for n in range(20):
                nursery.start_soon(call, n)
        # Each caller got the reply to its own command id, though they came reversed.
        assert sorted(results.values()) == sorted(set(results.values()))
        assert len(results) == 20
        assert conn.stats().replies == 20


async def test_error_reply_raises_cdp_error() -> None:
    async with fake_peer() as (url, _), open_cdp_connection(url) as conn:
        with pytest.raises(CdpError) as info:
            await conn.send("Test.error", {"message": "Cannot find context"})
        assert info.value.method == "Test.error"
        assert info.value.code == -32000
        assert info.value.message == "Cannot find context"
        assert "Test.error failed: Cannot find context" in str(info.value)
        with pytest.raises(CdpError, match="wasn't found"):
            await conn.send("Nope.method")


async def test_timeout_names_the_method_and_leaves_nothing_pending() -> None:
    async with fake_peer() as (url, _), open_cdp_connection(url) as conn:
        with pytest.raises(CdpTimeout) as info:
            await conn.send("Test.silent", session_id="S9", timeout=0.2)
        assert info.value.method == "Test.silent"
        assert str(info.value) == "Test.silent on session S9 got no reply within 0.2 s"
        assert conn.stats().pending == 0
        # A timeout shorter than the write only times the command out.
        with pytest.raises(CdpTimeout):
            await conn.send("Test.echo", timeout=1e-9)
        assert conn.lost is None
        # The late replies find no waiter: counted, not fatal.
        await conn.send("Test.answerSilent")
        assert conn.stats().unknown_replies == 2
        assert await conn.send("Test.echo", {"n": 1}) == {"n": 1}


async def test_cancelled_caller_leaves_no_pending_entry() -> None:
    async with fake_peer() as (url, _), open_cdp_connection(url) as conn:
        with trio.move_on_after(0.1) as scope:
            await conn.send("Test.silent")
        assert scope.cancelled_caught
        assert conn.stats().pending == 0

        async with trio.open_nursery() as nursery:
            for _ in range(5):
                nursery.start_soon(conn.send, "Test.silent")
            await trio.testing.wait_all_tasks_blocked()  # each send is registered, then waits
            nursery.cancel_scope.cancel()
        assert conn.stats().pending == 0


async def test_socket_close_fails_every_pending_call_at_once() -> None:
    async with fake_peer() as (url, _), open_cdp_connection(url) as conn:
        failures: list[tuple[BaseException, float]] = []
        events = conn.subscribe(None)

        async def waiter() -> None:
            try:
                await conn.send("Test.silent", timeout=30)
            except CdpConnectionLost as exc:
                failures.append((exc, trio.current_time()))

        async def closer() -> None:
            with pytest.raises(CdpConnectionLost):
                await conn.send("Test.close", {"code": 1011, "reason": "peer exploded"})

        with trio.fail_after(5):
            async with trio.open_nursery() as nursery:
                for _ in range(3):
                    nursery.start_soon(waiter)
                await trio.testing.wait_all_tasks_blocked()  # each send is registered, then waits
                await conn.send("Test.emit", {"raw": [_event("Before.close")]})
                start = trio.current_time()
                nursery.start_soon(closer)
        assert len(failures) == 3
        for failure, when in failures:
            assert when - start < 1
            assert url in str(failure)
            assert "peer exploded" in str(failure)
        assert conn.lost is not None
        # Later sends fail immediately with the same story.
        with trio.fail_after(0.1), pytest.raises(CdpConnectionLost, match="peer exploded"):
            await conn.send("Test.echo")
        # A subscription delivers what it already had, then raises the loss.
        assert (await events.receive()).method == "Before.close"
        with pytest.raises(CdpConnectionLost, match="peer exploded"):
            await events.receive()
        with pytest.raises(CdpConnectionLost):
            async for _ in conn.subscribe("S1"):
                pass


async def test_a_write_stalled_past_its_deadline_abandons_the_socket() -> None:
    async with fake_peer() as (url, _), open_cdp_connection(url, disconnect_timeout=0.2) as conn:
        with pytest.raises(CdpTimeout):
            await conn.send("Test.stall", timeout=0.1)
        blob = "x" * (8 * 1024 * 1024)
        with trio.fail_after(20):
            while True:
                try:
                    await conn.send("Test.echo", {"blob": blob}, timeout=0.3)
                except CdpTimeout:
                    continue  # written in full, never answered: the socket is still sound
                except CdpConnectionLost as exc:
                    error = exc
                    break
        assert "stalled" in str(error) and "partial frame" in str(error)
        assert conn.lost == str(error)
        with pytest.raises(CdpConnectionLost, match="stalled"):
            await conn.send("Test.echo")


async def test_leaving_the_context_fails_callers_outside_it() -> None:
    async with fake_peer() as (url, _):
        failures: list[BaseException] = []
        async with trio.open_nursery() as outer, open_cdp_connection(url) as conn:

            async def waiter() -> None:
                try:
                    await conn.send("Test.silent")
                except CdpConnectionLost as exc:
                    failures.append(exc)

            outer.start_soon(waiter)
            await trio.testing.wait_all_tasks_blocked()  # the send is registered, then waits
        assert len(failures) == 1
        assert "closed by its owner" in str(failures[0])


async def test_body_exception_is_not_wrapped_in_a_group() -> None:
    async with fake_peer() as (url, _):
        with pytest.raises(KeyError):
            async with open_cdp_connection(url):
                raise KeyError("from the body")


async def test_outer_cancellation_passes_through_cleanly() -> None:
    async with fake_peer() as (url, _):
        with trio.move_on_after(0.2) as scope:
            async with open_cdp_connection(url) as conn, trio.open_nursery() as nursery:
                nursery.start_soon(conn.send, "Test.silent")
                await trio.sleep_forever()
        assert scope.cancelled_caught
        assert conn.lost is not None and "closed by its owner" in conn.lost
        assert conn.stats().pending == 0


async def test_unreachable_endpoint_is_a_connection_error() -> None:
    with trio.socket.socket() as sock:
        await sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    url = f"ws://127.0.0.1:{port}/devtools/browser/none"
    with pytest.raises(CdpConnectionLost, match="could not be opened"):
        async with open_cdp_connection(url):
            pass


async def test_events_route_by_session_and_method() -> None:
    async with fake_peer() as (url, _), open_cdp_connection(url) as conn:
        browser = conn.subscribe(None)
        s1_all = conn.subscribe("S1")
        s1_console = conn.subscribe("S1", methods={"Runtime.consoleAPICalled"})
        s2_all = conn.subscribe("S2")
        await conn.send(
            "Test.emit",
            {
                "raw": [
                    _event("Target.targetCreated"),
                    _event("Runtime.consoleAPICalled", "S1", n=1),
                    _event("Page.loadEventFired", "S1"),
                    _event("Runtime.consoleAPICalled", "S2", n=2),
                ]
            },
        )

        def drain(subscription: CdpSubscription) -> list[tuple[str, str | None]]:
            out = []
            while True:
                try:
                    event = subscription.receive_nowait()
                except trio.WouldBlock:
                    return out
                out.append((event.method, event.session_id))

        assert drain(browser) == [("Target.targetCreated", None)]
        assert drain(s1_all) == [("Runtime.consoleAPICalled", "S1"), ("Page.loadEventFired", "S1")]
        assert drain(s1_console) == [("Runtime.consoleAPICalled", "S1")]
        assert drain(s2_all) == [("Runtime.consoleAPICalled", "S2")]
        s2_all.close()
        assert conn.stats().subscriptions == 3
        async for _ in s2_all:
            raise AssertionError("a closed subscription yields nothing new")


async def test_overflow_drops_newest_for_that_subscriber_only_and_shows_the_gap() -> None:
    async with fake_peer() as (url, _), open_cdp_connection(url) as conn:
        async with conn.subscribe("S1", buffer=2) as small, conn.subscribe("S1", buffer=100) as big:
            await conn.send(
                "Test.emit", {"raw": [_event("Frame.n", "S1", n=n) for n in range(1, 6)]}
            )
            assert small.dropped == 3
            assert big.dropped == 0
            assert conn.stats().events_dropped == 3
            # The oldest survive (the newest were dropped), unmarked.
            first, second = await small.receive(), await small.receive()
            assert (first.params["n"], second.params["n"]) == (1, 2)
            assert first.dropped_before == second.dropped_before == 0
            # The next delivered event carries the size of the gap before it.
            await conn.send("Test.emit", {"raw": [_event("Frame.n", "S1", n=6), _event("Frame.n", "S1", n=7)]})
            sixth, seventh = await small.receive(), await small.receive()
            assert (sixth.params["n"], sixth.dropped_before) == (6, 3)
            assert (seventh.params["n"], seventh.dropped_before) == (7, 0)
            # The roomy subscriber saw every event.
            assert [(await big.receive()).params["n"] for _ in range(7)] == [1, 2, 3, 4, 5, 6, 7]
        assert conn.stats().subscriptions == 0


async def test_session_loss_fails_only_that_sessions_calls() -> None:
    async with fake_peer() as (url, _), open_cdp_connection(url) as conn:
        one = await conn.attach("T1")
        two = await conn.attach("T2")
        assert one.session_id == "S-T1"
        one_events = one.subscribe()
        failures: list[BaseException] = []

        async def waiter() -> None:
            try:
                await one.send("Test.silent")
            except TargetLinkLost as exc:
                failures.append(exc)

        async with trio.open_nursery() as nursery:
            nursery.start_soon(waiter)
            nursery.start_soon(two.send, "Test.silent")
            await trio.testing.wait_all_tasks_blocked()  # each send is registered, then waits
            await conn.send(
                "Test.emit",
                {"raw": [_event("Target.detachedFromTarget", sessionId="S-T1", targetId="T1")]},
            )
            assert len(failures) == 1
            assert conn.stats().pending == 1  # the call on the other session still waits
            await conn.send("Test.answerSilent")
        error = failures[0]
        assert isinstance(error, TargetLinkLost)
        assert error.session_id == "S-T1"
        assert "S-T1" in str(error) and "T1" in str(error) and "detached" in str(error)
        assert one.lost == "detached from its target"
        with trio.fail_after(0.1), pytest.raises(TargetLinkLost, match="S-T1"):
            await one.send("Test.echo")
        with pytest.raises(TargetLinkLost):
            await one_events.receive()
        assert await two.send("Test.echo", {"ok": 1}) == {"ok": 1}
        # A crash reported by target id ends the sessions on that target.
        await conn.send(
            "Test.emit",
            {"raw": [_event("Target.targetCrashed", targetId="T2", status="crashed", errorCode=5)]},
        )
        with pytest.raises(TargetLinkLost, match="crashed"):
            await two.send("Test.echo")
        assert conn.stats().sessions == 0


async def test_detach_ends_the_session() -> None:
    async with fake_peer() as (url, script), open_cdp_connection(url) as conn:
        session = await conn.attach("T1")
        await session.detach()
        assert script.received[-1]["params"] == {"sessionId": "S-T1"}
        assert session.lost == "detached by its owner"
        with pytest.raises(TargetLinkLost, match="detached by its owner"):
            await session.send("Test.echo")
        await session.detach()  # idempotent


# -- the same client against real Chromium --------------------------------------------


async def test_two_pages_on_two_flat_sessions_over_one_socket(cdp: CdpConnection) -> None:
    one = await new_page(cdp, "data:text/html,<title>one</title>")
    two = await new_page(cdp, "data:text/html,<title>two</title>")
    assert one.session_id != two.session_id

    async def title(session: object) -> str:
        for _ in range(100):
            reply = await session.send(  # type: ignore[attr-defined]
                "Runtime.evaluate", {"expression": "document.title", "returnByValue": True}
            )
            if reply["result"]["value"]:
                return reply["result"]["value"]
            await trio.sleep(0.02)
        raise AssertionError("page never got its title")

    assert await title(one) == "one"
    assert await title(two) == "two"
    await one.send("Runtime.evaluate", {"expression": "window.mark = 'A'"})
    await two.send("Runtime.evaluate", {"expression": "window.mark = 'B'"})
    probe = {"expression": "window.mark", "returnByValue": True}
    assert (await one.send("Runtime.evaluate", probe))["result"]["value"] == "A"
    assert (await two.send("Runtime.evaluate", probe))["result"]["value"] == "B"


async def test_console_events_reach_only_their_own_session(cdp: CdpConnection) -> None:
    one = await new_page(cdp)
    two = await new_page(cdp)
    console = {"Runtime.consoleAPICalled"}
    async with one.subscribe(methods=console) as one_events, two.subscribe(methods=console) as two_events:
        await one.send("Runtime.enable")
        await two.send("Runtime.enable")
        await one.send("Runtime.evaluate", {"expression": "console.log('from-one'); console.log('end')"})
        await two.send("Runtime.evaluate", {"expression": "console.log('from-two'); console.log('end')"})

        async def texts(events: object) -> list[str]:
            seen = []
            with trio.fail_after(5):
                async for event in events:  # type: ignore[attr-defined]
                    seen.append(event.params["args"][0]["value"])
                    if seen[-1] == "end":
                        return seen
            raise AssertionError("subscription ended early")

        assert await texts(one_events) == ["from-one", "end"]
        assert await texts(two_events) == ["from-two", "end"]
    # Runtime.enable also produced events nobody subscribed to; they were only counted.
    assert cdp.stats().events_unrouted > 0


async def test_a_five_megabyte_reply_survives(cdp: CdpConnection) -> None:
    page = await new_page(cdp)
    reply = await page.send(
        "Runtime.evaluate",
        {"expression": "'x'.repeat(5 * 1024 * 1024)", "returnByValue": True},
    )
    assert len(reply["result"]["value"]) == 5 * 1024 * 1024
    assert await page.send("Runtime.evaluate", {"expression": "1"})


async def test_a_too_small_message_limit_loses_the_connection_clearly(
    chromium: ChromiumProcess,
) -> None:
    async with open_cdp_connection(chromium.ws_url, max_message_size=1024 * 1024) as conn:
        page = await new_page(conn)
        with pytest.raises(CdpConnectionLost, match="1009"):
            await page.send(
                "Runtime.evaluate",
                {"expression": "'x'.repeat(2 * 1024 * 1024)", "returnByValue": True},
            )


async def test_sigkill_mid_call_fails_the_call_within_a_second(
    chromium: ChromiumProcess, cdp: CdpConnection
) -> None:
    page = await new_page(cdp)
    failures: list[tuple[BaseException, float]] = []
    killed_at = 0.0
    failed = trio.Event()

    async def forever() -> None:
        try:
            await page.send(
                "Runtime.evaluate",
                {"expression": "new Promise(() => {})", "awaitPromise": True},
                timeout=30,
            )
        except CdpConnectionLost as exc:
            failures.append((exc, trio.current_time()))
            failed.set()

    with trio.fail_after(5):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(forever)
            await trio.testing.wait_all_tasks_blocked()  # the send is registered, then waits
            await trio.sleep(0.1)
            killed_at = trio.current_time()
            os.killpg(chromium.pid, signal.SIGKILL)
            with trio.fail_after(1):
                await failed.wait()
    error, failed_at = failures[0]
    assert failed_at - killed_at < 1
    assert chromium.ws_url in str(error)
    assert "closed" in str(error)
    assert await chromium.wait_exit() == -signal.SIGKILL
    with pytest.raises(CdpConnectionLost, match="closed"):
        await cdp.send("Browser.getVersion")


async def test_a_crashed_page_fails_its_session_not_the_others(cdp: CdpConnection) -> None:
    victim = await new_page(cdp)
    bystander = await new_page(cdp)
    failures: list[BaseException] = []

    async def forever() -> None:
        try:
            await victim.send(
                "Runtime.evaluate",
                {"expression": "new Promise(() => {})", "awaitPromise": True},
            )
        except TargetLinkLost as exc:
            failures.append(exc)

    with trio.fail_after(5):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(forever)
            await trio.testing.wait_all_tasks_blocked()  # the send is registered, then waits
            with pytest.raises(TargetLinkLost, match="crashed"):
                await victim.send("Page.crash")
    assert len(failures) == 1 and victim.session_id in str(failures[0])
    assert (await bystander.send("Runtime.evaluate", {"expression": "6*7", "returnByValue": True}))[
        "result"
    ]["value"] == 42


async def test_closing_a_target_ends_its_session(cdp: CdpConnection) -> None:
    page = await new_page(cdp)
    await cdp.send("Target.closeTarget", {"targetId": page.target_id})
    await poll_until(lambda: page.lost is not None, interval=0.01, timeout=5)
    with pytest.raises(TargetLinkLost, match=page.session_id):
        await page.send("Runtime.evaluate", {"expression": "1"})
    assert (await cdp.send("Browser.getVersion"))["product"].startswith(("Chrome", "Headless"))


async def test_a_sequence_is_written_in_order_before_any_reply_is_awaited() -> None:
    async with fake_peer() as (url, script), open_cdp_connection(url) as conn:
        # Test.hold answers nothing until three are waiting: awaited one by one, the
        # first would never get its reply.
        results = await conn.send_sequence(
            [("Test.hold", {"count": 3}), ("Test.hold", {"count": 3}), ("Test.hold", {"count": 3})],
            session_id="S1", timeout=5,
        )
        sent = [c for c in script.received if c["method"] == "Test.hold"]
        assert [c["id"] for c in sent] == sorted(c["id"] for c in sent)
        assert all(c["sessionId"] == "S1" for c in sent)
        # The peer answered in reverse; each result is still its own command's.
        assert [r["id"] for r in results] == [c["id"] for c in sent]
        assert conn.stats().pending == 0


async def test_a_sequence_raises_its_first_failure_after_every_reply() -> None:
    async with fake_peer() as (url, script), open_cdp_connection(url) as conn:
        with pytest.raises(CdpError, match="first"):
            await conn.send_sequence([
                ("Test.echo", {"n": 1}),
                ("Test.error", {"message": "first"}),
                ("Test.error", {"message": "second"}),
                ("Test.echo", {"n": 4}),
            ])
        assert [c["method"] for c in script.received[-4:]] == ["Test.echo", "Test.error", "Test.error", "Test.echo"]
        assert conn.stats().pending == 0
        with pytest.raises(CdpTimeout) as info:
            await conn.send_sequence([("Test.echo", {}), ("Test.silent", {})], timeout=0.2)
        assert info.value.method == "Test.silent"
        assert conn.stats().pending == 0 and conn.lost is None
