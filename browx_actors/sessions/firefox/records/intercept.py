"""One ``network.addIntercept`` per BiDi connection, shared by the sessions that route.

Why shared, and why unscoped. Firefox 153 accepts ``userContexts`` on
``network.addIntercept`` but ignores it: the intercept blocks the requests of every user
context, so of every session on the browser. Scoping by ``contexts`` (top-level tabs)
works, but a tab the page opens (``window.open``) would make its first requests before
the session could add an intercept for it. So the connection gets one intercept with no
scope and no URL patterns, and Python decides per request: the request goes to the
session whose tab (or frame) made it, and a request no routing session owns (another
session's, a worker's with no context) is continued at once. One intercept, not one
per session: with two, each blocked request would list both, and the owner's answer
would race the other session's "not mine, continue".

The cost: while any session routes, every request of the browser waits for one round
trip to Python. When the last routing session leaves, the intercept is removed.

The same holds for the ``authRequired`` phase (a proxy's credentials, :mod:`..proxy_auth`):
one more intercept of that phase per connection, its challenges dispatched the same way.
"""

from __future__ import annotations

import logging
from typing import Protocol

import trio

from ....bidi import BidiConnection, BidiFailure
from ....jsonsafe import JsonObject

__all__ = ["Interceptor", "Member"]

log = logging.getLogger("browx_actors.firefox.intercept")


class Member(Protocol):
    """A session's routes, as the interceptor hands them blocked requests."""

    def owns(self, context: str) -> bool:
        """Whether ``context`` is a tab or frame of this member's session."""
        ...

    def take(self, params: JsonObject, *, owned: bool) -> None:
        """A blocked request to answer (``owned``) or just continue; must not wait."""
        ...


class Interceptor:
    """The intercept of one connection, and the members it dispatches blocked requests to."""

    def __init__(self, bidi: BidiConnection, phase: str = "beforeRequestSent") -> None:
        self.bidi = bidi
        #: The phase it blocks in, and the event that reports a request blocked there.
        self.phase = phase
        self._event = f"network.{phase}"
        self.members: list[Member] = []
        self.intercept: str | None = None
        #: Every intercept this connection had: a request blocked just before a removal
        #: still names the old one, and must still be answered.
        self._ours: set[str] = set()
        #: While an add is in flight its id is unknown, and a blocked request may come first.
        self._adding = False
        self._lock = trio.Lock()
        bidi.listen(self._on_event)

    async def join(self, member: Member) -> None:
        async with self._lock:
            if member in self.members:
                return
            self.members.append(member)
            if self.intercept is None:
                self._adding = True
                try:
                    answer = await self.bidi.send("network.addIntercept", {"phases": [self.phase]})
                except BaseException:
                    self.members.remove(member)
                    raise
                finally:
                    self._adding = False
                self.intercept = str(answer["intercept"])
                self._ours.add(self.intercept)

    async def leave(self, member: Member) -> None:
        """``member`` gets no more requests; the last one out removes the intercept.

        The last member keeps receiving (as the one that continues the rest) until the
        removal is answered: a request blocked before it comes on the socket before the
        answer, and someone has to let it go.
        """
        async with self._lock:
            if member not in self.members:
                return
            if len(self.members) == 1 and self.intercept is not None:
                intercept, self.intercept = self.intercept, None
                try:
                    await self.bidi.send("network.removeIntercept", {"intercept": intercept}, timeout=5)
                except BidiFailure as exc:  # the browser is going: nothing is blocked any more
                    log.debug("removing intercept %s: %s", intercept, exc)
            self.members.remove(member)

    def _on_event(self, method: str, params: JsonObject) -> None:
        if method != self._event or not params.get("isBlocked"):
            return
        names = {str(i) for i in params.get("intercepts") or ()}
        if not (names & self._ours or (self._adding and names - self._ours)):
            return  # someone else's intercept
        if not self.members:
            log.warning("a request blocked by our intercept arrived after every member left")
            return
        context = params.get("context")
        owner = next((m for m in self.members if isinstance(context, str) and m.owns(context)), None)
        if owner is not None:
            owner.take(params, owned=True)
        else:
            self.members[0].take(params, owned=False)

