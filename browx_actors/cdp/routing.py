"""Who gets each CDP event, and what ends with a flat session.

A :class:`~.connection.CdpConnection` owns one :class:`EventRouter`. Its reader hands
the router every event, one method call per message, and the router decides in place:
no I/O, no task, nothing that could wait. It holds the subscriptions and taps of every
session on the socket and the flat sessions themselves, so that the events that end a
session can end everything that hung on it. The commands still waiting on a session
are the connection's; the router asks the connection to fail them.

Events and the overflow policy
    Events are routed by their top-level ``sessionId`` (``None`` for browser-level
    events) to the subscriptions for that session whose ``methods`` match. Each
    subscription has a bounded buffer. When it is full the reader drops the *newest*
    event for that subscription only (others still get it) and never waits: a slow
    screencast consumer must not stall replies for everyone else. Drops are counted
    in :attr:`CdpSubscription.dropped` and ``CdpConnection.stats().events_dropped``,
    and the next event that does reach the subscription carries
    ``dropped_before = <events lost just before it>``, so the gap is visible in the
    stream itself. Events nobody subscribed to, replies for unknown ids and malformed
    messages are counted in :meth:`CdpConnection.stats` and otherwise ignored.

Taps and skipping
    A tap (:class:`~.protocol.EventTap`) is fed by the reader itself, in the browser's
    order. A flat-session event that no subscription wants, that ends no session, and
    that every tap wanting it says to skip is counted and dropped from a peek at its
    raw text, without a JSON parse (:meth:`EventRouter.skippable`). A tap that raises
    is counted in ``tap_errors`` and the reader carries on: a recorder's bug must not
    take every session on the socket down with it.

Session loss
    ``Target.detachedFromTarget``, ``Inspector.detached`` and
    ``Inspector.targetCrashed``/``Target.targetCrashed`` end one flat session
    (:func:`~.protocol.session_losses` says which): its commands fail with
    :class:`TargetLinkLost`, its subscriptions deliver what they hold and then raise
    it, and its taps go. A crashed session is over for good (reattach to the target
    for a new one).
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from .link import TargetLink
from .protocol import LOSS_EVENTS, CdpEvent, EventTap, TargetLinkLost, session_losses
from .subscription import CdpSubscription, Ending

__all__ = ["EventRouter", "FailCommands"]

log = logging.getLogger("browx_actors.cdp")

FailCommands = Callable[[str, Ending], None]
"""How the router fails the commands still waiting on a session that just ended:
``fail(session_id, ending)`` settles each with ``ending()``."""


class EventRouter:
    """The subscriptions, taps and flat sessions of one connection, and the routing
    of its events to them. Built and owned by :class:`~.connection.CdpConnection`.

    The counters are plain attributes the connection's ``stats()`` reads: ``events``
    (every event, skipped ones included), ``events_unrouted`` (wanted by nobody),
    ``events_dropped`` (lost to a full subscription buffer), ``events_skipped``
    (counted from a peek, never decoded) and ``tap_errors``.
    """

    def __init__(self, fail_commands: FailCommands) -> None:
        self._fail_commands = fail_commands
        self._subscriptions: dict[str | None, list[CdpSubscription]] = {}
        self._taps: dict[str, list[EventTap]] = {}
        #: The flat sessions whose loss events end them, by session id.
        self.sessions: dict[str, TargetLink] = {}
        self.events = 0
        self.events_unrouted = 0
        self.events_dropped = 0
        self.events_skipped = 0
        self.tap_errors = 0

    # -- the tables ------------------------------------------------------------------

    def add(self, subscription: CdpSubscription) -> None:
        """Route ``subscription``'s session's events to it from now on."""
        self._subscriptions.setdefault(subscription.session_id, []).append(subscription)

    def unsubscribe(self, subscription: CdpSubscription) -> None:
        """Stop routing to ``subscription``; a no-op if it is already gone."""
        subscriptions = self._subscriptions.get(subscription.session_id)
        if subscriptions is not None and subscription in subscriptions:
            subscriptions.remove(subscription)
            if not subscriptions:
                del self._subscriptions[subscription.session_id]

    def tap(self, session_id: str, tap: EventTap) -> Callable[[], None]:
        """Feed ``tap`` the events of ``session_id``; returns the function that removes it."""
        taps = self._taps.setdefault(session_id, [])
        taps.append(tap)

        def untap() -> None:
            current = self._taps.get(session_id)
            if current is not None and tap in current:
                current.remove(tap)
                if not current:
                    del self._taps[session_id]

        return untap

    def subscription_count(self) -> int:
        return sum(len(s) for s in self._subscriptions.values())

    # -- routing (called by the reader, per message) ---------------------------------

    def skippable(self, method: str, session_id: str, raw: str) -> bool:
        """Whether a flat-session event can be counted and dropped undecoded: nobody
        subscribed wants it, it ends no session, and every tap that wants it says skip
        (a page flooding the console costs a peek per message, not a JSON parse)."""
        if method in LOSS_EVENTS:
            return False
        for subscription in self._subscriptions.get(session_id, ()):
            if subscription.methods is None or method in subscription.methods:
                return False
        wanted = False
        for tap in self._taps.get(session_id, ()):
            if method in tap.methods:
                wanted = True
                if not self._tap_skips(tap, method, raw):
                    return False
        self.events += 1
        self.events_skipped += 1
        if not wanted:
            self.events_unrouted += 1
        return True

    def _tap_skips(self, tap: EventTap, method: str, raw: str) -> bool:
        try:
            return tap.skip(method, raw)
        except Exception:
            self._tap_failed(tap)
            return False

    def _tap_failed(self, tap: EventTap) -> None:
        # A recorder's bug must not take every session on the socket down with it.
        self.tap_errors += 1
        if self.tap_errors <= 3:
            log.exception("CDP tap %r failed", tap)

    def route(self, event: CdpEvent) -> None:
        """Offer a decoded event to its session's subscriptions and taps, then end the
        sessions it ends."""
        self.events += 1
        wanted = False
        for subscription in self._subscriptions.get(event.session_id, ()):
            if subscription.methods is None or event.method in subscription.methods:
                wanted = True
                if not subscription._offer(event):
                    self.events_dropped += 1
        if event.session_id is not None:
            for tap in self._taps.get(event.session_id, ()):
                if event.method in tap.methods:
                    wanted = True
                    try:
                        tap.on_event(event)
                    except Exception:
                        self._tap_failed(tap)
        if not wanted:
            self.events_unrouted += 1
        if event.method in LOSS_EVENTS:
            targets = {sid: session.target_id for sid, session in self.sessions.items()}
            for loss in session_losses(event, targets):
                self.end_session(loss.session_id, loss.reason)

    # -- endings ---------------------------------------------------------------------

    def end_session(self, session_id: str, reason: str) -> None:
        """End one flat session: mark it lost, fail its commands, end its subscriptions
        and drop its taps."""
        session = self.sessions.pop(session_id, None)
        target_id = None
        if session is not None:
            target_id = session.target_id
            session._lost = reason

        def ending() -> TargetLinkLost:
            return TargetLinkLost(session_id, reason, target_id)

        self._fail_commands(session_id, ending)
        for subscription in self._subscriptions.pop(session_id, ()):
            subscription._finish(ending)
        self._taps.pop(session_id, None)

    def lose(self, ending: Ending) -> None:
        """The socket is gone: end every subscription with ``ending()``, forget every
        session and tap."""
        subscriptions = [s for group in self._subscriptions.values() for s in group]
        self._subscriptions.clear()
        for subscription in subscriptions:
            subscription._finish(ending)
        self.sessions.clear()
        self._taps.clear()
