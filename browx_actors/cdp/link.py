"""A link to one target: a CDP flat session, sharing its connection's socket.

CDP calls it a session (``Target.attachToTarget`` answers a ``sessionId``); here it is a
*link*, so that "session" means one thing in this code base, a browx session. Commands
carry the link's ``sessionId`` at the top level; the connection routes the replies and
events back. Once the browser detaches it (or its target crashes) every call fails with
:class:`~browx_actors.cdp.protocol.TargetLinkLost`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Protocol

from ..jsonsafe import JsonObject
from .protocol import DEFAULT_BUFFER, DEFAULT_TIMEOUT, CdpFailure, EventTap, TargetLinkLost
from .subscription import CdpSubscription

__all__ = ["LinkTransport", "TargetLink"]


class LinkTransport(Protocol):
    """What a link needs of its connection (a :class:`~.connection.CdpConnection`):
    the socket's send paths, event routing, and the end of the session."""

    async def send(self, method: str, params: JsonObject | None = None, *,
                   session_id: str | None = None, timeout: float = DEFAULT_TIMEOUT) -> JsonObject: ...

    async def send_sequence(self, commands: Sequence[tuple[str, JsonObject | None]], *,
                            session_id: str | None = None,
                            timeout: float = DEFAULT_TIMEOUT) -> list[JsonObject]: ...

    def subscribe(self, session_id: str | None, *, methods: Iterable[str] | None = None,
                  buffer: int = DEFAULT_BUFFER) -> CdpSubscription: ...

    def tap(self, session_id: str, tap: EventTap) -> Callable[[], None]: ...

    def _unsubscribe(self, subscription: CdpSubscription) -> None: ...

    def _end_session(self, session_id: str, reason: str) -> None: ...


class TargetLink:
    """A link to one target: commands carry its ``sessionId`` on the shared socket."""

    def __init__(self, connection: LinkTransport, session_id: str, target_id: str) -> None:
        self.connection = connection
        self.session_id = session_id
        self.target_id = target_id
        self._lost: str | None = None

    @property
    def lost(self) -> str | None:
        """Why the session ended, or ``None`` while it is usable."""
        return self._lost

    def _lost_error(self) -> TargetLinkLost:
        assert self._lost is not None
        return TargetLinkLost(self.session_id, self._lost, self.target_id)

    async def send(
        self,
        method: str,
        params: JsonObject | None = None,
        *,
        timeout: float = DEFAULT_TIMEOUT,
    ) -> JsonObject:
        if self._lost is not None:
            raise self._lost_error()
        return await self.connection.send(
            method, params, session_id=self.session_id, timeout=timeout
        )

    async def send_sequence(
        self,
        commands: Sequence[tuple[str, JsonObject | None]],
        *,
        timeout: float = DEFAULT_TIMEOUT,
    ) -> list[JsonObject]:
        """:meth:`CdpConnection.send_sequence` on this session."""
        if self._lost is not None:
            raise self._lost_error()
        return await self.connection.send_sequence(commands, session_id=self.session_id, timeout=timeout)

    def subscribe(
        self, *, methods: Iterable[str] | None = None, buffer: int = DEFAULT_BUFFER
    ) -> CdpSubscription:
        if self._lost is not None:
            subscription = CdpSubscription(self.connection._unsubscribe, self.session_id, methods, buffer)
            subscription._finish(self._lost_error)
            return subscription
        return self.connection.subscribe(self.session_id, methods=methods, buffer=buffer)

    def tap(self, tap: EventTap) -> Callable[[], None]:
        """:meth:`CdpConnection.tap` on this session; a lost session takes no tap."""
        if self._lost is not None:
            return lambda: None
        return self.connection.tap(self.session_id, tap)

    async def detach(self, *, timeout: float = DEFAULT_TIMEOUT) -> None:
        """Detach from the target. A no-op if the session is already gone."""
        if self._lost is not None:
            return
        try:
            await self.connection.send(
                "Target.detachFromTarget", {"sessionId": self.session_id}, timeout=timeout
            )
        except CdpFailure:
            # Already detached by the browser while we asked: that is what we wanted.
            if self._lost is None:
                raise
            return
        self.connection._end_session(self.session_id, "detached by its owner")

    def __repr__(self) -> str:
        state = f" lost={self._lost!r}" if self._lost else ""
        return f"<TargetLink {self.session_id} target={self.target_id}{state}>"
