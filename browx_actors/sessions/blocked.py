"""Requests the operator's origin policy blocked in a session's browser, told in results.

Both engines block a page's requests that leave the policy (``origins.py``) where the
browser makes them (chromium's Fetch layer, firefox's network intercept), so a page's own
navigations, fetches and subresources are stopped, not only the agent's ``navigate``.
Each engine's routes note what they blocked here; the session adds ``blockedRequests:
{count, origins}`` to the result of the call during which it happened, so the agent
hears that the page tried to reach outside, and where.
"""

from __future__ import annotations

from collections import deque

from ..tools import Reply

__all__ = ["BlockedRequests"]

#: Origins remembered, newest last: enough to name what one call met.
_KEEP = 200


class BlockedRequests:
    def __init__(self) -> None:
        #: Requests blocked since the session began.
        self.total = 0
        self._recent: deque[tuple[int, str]] = deque(maxlen=_KEEP)

    def note(self, origin: str) -> None:
        self.total += 1
        self._recent.append((self.total, origin))

    def told(self, result: object, since: int) -> object:
        """``result`` with ``blockedRequests`` when requests were blocked after ``since``."""
        if self.total <= since or not isinstance(result, Reply):
            return result
        origins = sorted({origin for number, origin in self._recent if number > since})
        result["blockedRequests"] = {"count": self.total - since, "origins": origins}
        return result
