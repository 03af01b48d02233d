"""`cdp.answers`: an answer, a refusal or loss, and silence are three different things."""

from __future__ import annotations

from typing import Any

import pytest

from browx_actors.cdp import CdpError, CdpTimeout, TargetLinkLost, answers


class _Peer:
    def __init__(self, outcome: BaseException | None) -> None:
        self.outcome = outcome
        self.sent: list[tuple[str, Any, float]] = []

    async def send(self, method: str, params: dict[str, Any] | None = None, *, timeout: float = 30) -> dict:
        self.sent.append((method, params, timeout))
        if self.outcome is not None:
            raise self.outcome
        return {}


@pytest.mark.parametrize(("outcome", "expected"), [
    (None, True),
    (CdpError("Runtime.evaluate", -32000, "No target with given id found"), False),
    (TargetLinkLost("S1", "target crashed"), False),
    (CdpTimeout("Runtime.evaluate", 1.0, "S1"), None),
])
async def test_answers_tells_an_answer_from_a_refusal_from_silence(outcome: BaseException | None,
                                                                    expected: bool | None) -> None:
    peer = _Peer(outcome)
    assert await answers(peer, "Runtime.evaluate", 1.0, {"expression": "0"}) is expected
    assert peer.sent == [("Runtime.evaluate", {"expression": "0"}, 1.0)]  # the command's own deadline
