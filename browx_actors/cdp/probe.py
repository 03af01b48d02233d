"""Does a CDP peer still answer? One harmless command, with the command's own deadline.

The session asks this before it believes an error's words (a page can throw "Target
crashed"; only the browser can stop answering), of the browser (``Browser.getVersion``
on its connection) and of a tab (``Runtime.evaluate`` on its flat session).
"""

from __future__ import annotations

from typing import Protocol

from ..jsonsafe import JsonObject
from .protocol import CdpFailure, CdpTimeout

__all__ = ["CdpPeer", "answers"]


class CdpPeer(Protocol):
    """A connection or a flat session: anything commands can be sent to."""

    async def send(self, method: str, params: JsonObject | None = None, *,
                   timeout: float = ...) -> JsonObject: ...


async def answers(peer: CdpPeer, method: str, timeout: float, params: JsonObject | None = None) -> bool | None:
    """True when ``peer`` answers ``method`` within ``timeout`` seconds; False when it
    refuses or is gone (its session or socket lost); None when it stays silent, which
    proves neither."""
    try:
        await peer.send(method, params, timeout=timeout)
    except CdpTimeout:
        return None
    except CdpFailure:
        return False
    return True
