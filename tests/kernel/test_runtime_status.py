"""How an ended session answers its next call, without a browser: the mapping from
the way its actor ended to the code and reason (``runtime/status.py``)."""

from __future__ import annotations

import pytest

from browx_actors.errors import CODES
from browx_actors.kernel.actor_ref import ActorCrashed, ActorStopped, ActorUnavailable
from browx_actors.runtime.status import ended_code, ended_reason
from browx_actors.sessions.chromium.losses import BrowserLost


def _ended(kind: type[ActorUnavailable], cause: BaseException | None = None) -> ActorUnavailable:
    failure = kind("session:s1", "ended")
    failure.__cause__ = cause
    return failure


def test_a_session_whose_browser_was_lost_says_browser_crashed_and_how() -> None:
    failure = _ended(ActorCrashed, BrowserLost("s1", "the renderer was killed"))
    assert ended_code(failure) == "browser-crashed"
    assert ended_reason(failure) == "session 's1' ended: the renderer was killed"


def test_a_lost_browser_wins_even_when_the_actor_stopped_cleanly() -> None:
    failure = _ended(ActorStopped, BrowserLost("s1", "the browser exited"))
    assert ended_code(failure) == "browser-crashed"
    assert ended_reason(failure) == "session 's1' ended: the browser exited"


def test_an_actor_that_crashed_of_anything_else_says_session_crashed() -> None:
    failure = _ended(ActorCrashed, ValueError("boom"))
    assert ended_code(failure) == "session-crashed"
    assert ended_reason(failure) == "actor 'session:s1' ended"


@pytest.mark.parametrize("failure", [_ended(ActorStopped), _ended(ActorUnavailable), None])
def test_a_session_that_stopped_or_left_no_failure_says_session_closed(failure: ActorUnavailable | None) -> None:
    assert ended_code(failure) == "session-closed"
    expected = "the session ended" if failure is None else "actor 'session:s1' ended"
    assert ended_reason(failure) == expected


def test_every_ended_code_is_a_known_error_code() -> None:
    failures = [_ended(ActorCrashed, BrowserLost("s1", "x")), _ended(ActorCrashed), _ended(ActorStopped), None]
    assert {ended_code(f) for f in failures} <= set(CODES)
