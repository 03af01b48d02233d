"""Saying at once why an action cannot land, pure but for the looks it is given.

The page agent's ``aim`` answers a target that is not ready with what is wrong
(``wait``) and its code (``why``, ``agent/reach.js``). Some codes are known in one look
and no wait mends them unless the page changes: hidden, no area, clipped away, outside
the viewport or its scroll container, covered (``coveredBy`` names the cover), taking
no pointer events. An action refuses those after a short grace (:data:`GRACE_S`) for a
page still settling (a button shown a moment later, a veil lifting), where Playwright
would wait its whole timeout and answer only that it timed out. What may still pass
(disabled, animating) is left to Playwright's wait, whose error says what it waited for
(:func:`~..failures.waited_on`).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

import trio

from ....errors import ToolError
from ....jsonsafe import JsonObject, JsonValue

__all__ = ["GRACE_S", "KNOWN_NOW", "LOOK_EVERY_S", "NOT_VISIBLE", "known_now", "refusal", "within_grace"]

#: How long a target that is not ready for a reason known now is looked at again before
#: the action refuses it: under a second, so the agent hears why at once.
GRACE_S = 0.75
#: Between two looks.
LOOK_EVERY_S = 0.05
#: Codes of reasons that show the element cannot be reached: refused as ``not-visible``.
NOT_VISIBLE = frozenset({"hidden", "zero-size", "clipped", "off-screen", "outside-viewport",
                         "outside-scroll-container"})
#: Every code refused after the grace; the rest (``covered``, ``pointer-events-none``)
#: is ``action-failed``: the element shows, but a pointer cannot land on it.
KNOWN_NOW = NOT_VISIBLE | {"covered", "pointer-events-none"}


def known_now(found: JsonObject) -> bool:
    """Whether ``aim``'s answer is a target not ready for a reason known in one look."""
    return not found.get("ready") and found.get("why") in KNOWN_NOW


async def within_grace(found: JsonObject, look: Callable[[], Awaitable[JsonObject]], *,
                       grace_s: float = GRACE_S) -> JsonObject:
    """``found``, or the answer of ``look`` once it is no longer :func:`known_now`,
    looking every :data:`LOOK_EVERY_S` for up to ``grace_s``; the last answer."""
    deadline = trio.current_time() + grace_s
    while known_now(found) and trio.current_time() < deadline:
        await trio.sleep(LOOK_EVERY_S)
        found = await look()
    return found


def refusal(action: str, label: str, found: JsonObject) -> ToolError:
    """The error for a target :func:`known_now` says the action cannot reach: one line
    with what is wrong, ``reason`` its code, ``coveredBy`` the cover when covered."""
    why = str(found["why"])
    wait = str(found.get("cannot") or found.get("wait") or why)
    fields: dict[str, JsonValue] = {"reason": why}
    cover = found.get("coveredBy")
    if isinstance(cover, str):
        fields["coveredBy"] = cover
    code = "not-visible" if why in NOT_VISIBLE else "action-failed"
    return ToolError(code, f"{action} on {label} cannot land: {wait}", **fields)
