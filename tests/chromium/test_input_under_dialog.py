"""Input a dialog cuts short, without a browser, under trio.testing.MockClock: what was
written is noted in the tab's input state, and the release of an interrupted gesture
does not wait for a page the dialog blocks."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest
import trio
import trio.testing

from browx_actors.cdp import CdpTimeout
from browx_actors.sessions.chromium.input.commands import mouse_press, mouse_release
from browx_actors.sessions.chromium.input.send import ACTION_TIMEOUT_MS, release_input, releases_applied, send_input
from browx_actors.sessions.chromium.input.state import InputState


@pytest.fixture
def mock_clock() -> trio.testing.MockClock:
    return trio.testing.MockClock(autojump_threshold=0)


class _Cdp:
    """A tab's CDP session whose page acks input only once ``answered`` is set (a
    dialog blocks it), recording what was written and what was acked."""

    def __init__(self) -> None:
        self.written: list[str] = []
        self.acked: list[str] = []
        self.answered = trio.Event()

    async def send_sequence(self, commands: list[Any], *, timeout: float) -> list[dict[str, Any]]:
        await trio.lowlevel.checkpoint_if_cancelled()
        self.written += [params["type"] for _, params in commands]  # written at once, as the real write is
        with trio.move_on_after(timeout):
            await self.answered.wait()
        if not self.answered.is_set():
            raise CdpTimeout(commands[0][0], timeout)  # as the real connection does
        self.acked += [params["type"] for _, params in commands]
        return [{} for _ in commands]


def _session(cdp: _Cdp, nursery: trio.Nursery | None = None, dialog: bool = False) -> Any:
    page = object()
    tab = SimpleNamespace(input=InputState(x=5.0, y=5.0), page=page)
    dialogs = SimpleNamespace(open_on=lambda p: object() if dialog and p is page else None)
    return SimpleNamespace(cdp=cdp, tabs=SimpleNamespace(current=tab), page=page, dialogs=dialogs, nursery=nursery,
                           releases_in_flight=set())


async def test_input_cut_short_after_it_was_written_is_noted(mock_clock: trio.testing.MockClock) -> None:
    cdp = _Cdp()
    session = _session(cdp)
    with trio.move_on_after(0.05) as scope:  # a dialog opened under the press: its scope is cancelled
        await send_input(session, "mouse_down", mouse_press(10, 20, button="left"))
    assert scope.cancelled_caught and cdp.written == ["mousePressed"] and cdp.acked == []
    assert session.tabs.current.input.buttons == 1  # down, for the mouse_up after handle_dialog
    assert session.tabs.current.input.position() == (10, 20)


async def test_input_cancelled_before_it_was_written_is_not_noted(mock_clock: trio.testing.MockClock) -> None:
    cdp = _Cdp()
    session = _session(cdp)
    with trio.CancelScope() as scope:
        scope.cancel()
        await send_input(session, "mouse_down", mouse_press(10, 20, button="left"))
    assert cdp.written == [] and session.tabs.current.input.buttons == 0


async def test_a_release_under_a_dialog_is_written_at_once_and_acked_later(
    mock_clock: trio.testing.MockClock,
) -> None:
    cdp = _Cdp()
    async with trio.open_nursery() as nursery:
        session = _session(cdp, nursery, dialog=True)
        session.tabs.current.input.buttons = 1
        started = trio.current_time()
        await release_input(session, "drag", mouse_release(30, 40, button="left", buttons=1))
        assert trio.current_time() == started  # no wait for the blocked page
        assert cdp.written == ["mouseReleased"] and cdp.acked == []
        assert session.tabs.current.input.buttons == 0 and session.tabs.current.input.position() == (30, 40)
        await trio.sleep(5)
        cdp.answered.set()  # handle_dialog: the page goes on, and acks the release
    assert cdp.acked == ["mouseReleased"]


async def test_the_wait_for_releases_ends_when_the_page_acked_them(
    mock_clock: trio.testing.MockClock,
) -> None:
    """After the answer, the page runs what the release set off (a touchcancel handler)
    and acks it; waiting for that ack is what makes the handler's effect visible to the
    next call."""
    cdp = _Cdp()
    async with trio.open_nursery() as nursery:
        session = _session(cdp, nursery, dialog=True)
        await release_input(session, "gesture_swipe", mouse_release(1, 1))
        assert len(session.releases_in_flight) == 1
        nursery.start_soon(_answer_after, cdp, 2.0)
        started = trio.current_time()
        await releases_applied(session)
        assert trio.current_time() - started == pytest.approx(2.0)
        assert cdp.acked == ["mouseReleased"] and session.releases_in_flight == set()
        await releases_applied(session)  # nothing in flight: at once
        assert trio.current_time() - started == pytest.approx(2.0)


async def _answer_after(cdp: _Cdp, seconds: float) -> None:
    await trio.sleep(seconds)
    cdp.answered.set()


async def test_a_release_nobody_acks_is_given_up_beside_the_mailbox(mock_clock: trio.testing.MockClock) -> None:
    cdp = _Cdp()
    async with trio.open_nursery() as nursery:
        session = _session(cdp, nursery, dialog=True)
        await release_input(session, "drag", mouse_release(1, 1))
        started = trio.current_time()
    # The nursery (the session's) waited for the ack no longer than an action's bound.
    assert trio.current_time() - started == pytest.approx(ACTION_TIMEOUT_MS / 1000)
    assert cdp.acked == [] and session.releases_in_flight == set()


async def test_a_release_with_no_dialog_waits_for_its_ack(mock_clock: trio.testing.MockClock) -> None:
    cdp = _Cdp()
    cdp.answered.set()
    session = _session(cdp)
    await release_input(session, "drag", mouse_release(1, 1))
    assert cdp.acked == ["mouseReleased"]
