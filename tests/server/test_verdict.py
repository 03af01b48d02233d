"""A verify_* check's answer (tools/verdict.py): what holds says only what the agent did
not say itself; what fails carries the whole comparison."""

from __future__ import annotations

import pytest

from browx_actors.errors import ToolError
from browx_actors.tools.verdict import verdict


def test_a_check_that_holds_answers_ok_and_its_evidence_only() -> None:
    assert verdict("count", True, 2, 2).envelope() == {"ok": True}
    # Contained, not equal: what was there is news to the agent.
    assert verdict("text", True, "Hello", "Hello E2E").envelope() == {"ok": True, "actual": "Hello E2E"}
    held = verdict("text", True, "Hi", "Hi", matches=[{"ref": "e1"}], element=None)
    assert held.envelope() == {"ok": True, "matches": [{"ref": "e1"}]}


def test_a_check_that_fails_carries_check_expected_and_actual() -> None:
    with pytest.raises(ToolError) as failed:
        verdict("value", False, "Bob", "Ada", element={"ref": "e7"})
    assert failed.value.code == "verification-failed"
    assert 'expected "Bob", found "Ada"' in failed.value.message
    assert failed.value.details == {"check": "value", "passed": False, "expected": "Bob", "actual": "Ada",
                                 "element": {"ref": "e7"}}
