"""The data collector that keeps a session's request and response bodies, for network_body.

Registered once per user context when the session starts, before its first request
(:meth:`~..session.FirefoxSession.on_start`); Firefox then keeps each body up to
:data:`BODY_MAX` bytes, the newest within its own budget.
"""

from __future__ import annotations

from ....bidi import BidiConnection

__all__ = ["BODY_MAX", "collect"]

#: The largest body Firefox keeps for network_body.
BODY_MAX = 20 * 1024 * 1024


async def collect(bidi: BidiConnection, user_context: str) -> str:
    """Have Firefox keep the request and response bodies of ``user_context``; the collector's id."""
    answer = await bidi.send("network.addDataCollector", {"dataTypes": ["request", "response"],
                                                          "maxEncodedDataSize": BODY_MAX,
                                                          "userContexts": [user_context]})
    return str(answer["collector"])
