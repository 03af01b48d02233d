"""What a ``verify_*`` check answers, on every engine.

A check that holds answers ``ok`` and only what the agent did not say itself: the
``actual`` value when it is not exactly the one expected (a text that contains the
expected one, say), and the check's own evidence (the matches found, the element's
state). One that does not hold is a ``verification-failed`` error carrying ``check``,
``expected`` and ``actual``, so the agent reads the difference without another call.
"""

from __future__ import annotations

import json

from ..errors import ToolError
from ..jsonsafe import JsonValue
from .reply import Reply

__all__ = ["verdict"]


def verdict(check: str, passed: bool, expected: JsonValue, actual: JsonValue, **evidence: JsonValue) -> Reply:
    """The answer of ``check``: a :class:`Reply` when it ``passed``, else the raised error."""
    if passed:
        reply = Reply.of(**{key: value for key, value in evidence.items() if value is not None})
        if actual != expected:
            reply["actual"] = actual
        return reply
    raise ToolError(
        "verification-failed",
        # JSON quoting, not repr: the masking of secrets knows JSON's escaped form.
        f"{check}: expected {json.dumps(expected, ensure_ascii=False)}, found {json.dumps(actual, ensure_ascii=False)}",
        check=check, passed=False, expected=expected, actual=actual, **evidence,
    )
