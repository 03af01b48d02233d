"""The Chrome DevTools Protocol as data: messages, errors and the decisions about them.

Everything here is free of I/O so the routing rules can be tested without a browser
and without a socket. :mod:`browx_actors.cdp.connection` owns the websocket and calls
these functions from its reader task, through :mod:`browx_actors.cdp.routing` for events.

A CDP message on the browser endpoint is one JSON object per websocket message:

* a reply ``{"id": N, "result": {...}}`` or ``{"id": N, "error": {"code", "message"}}``
  answering the command we sent with id ``N``;
* an event ``{"method": "Domain.event", "params": {...}}``, with a top-level
  ``"sessionId"`` when it comes from a flat session (absent for browser-level events).

Anything else is *malformed*: the reader counts it and carries on, because one bad
message from a browser (or from whatever sits between us and it) must not take down
every session sharing the socket.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Protocol

import attrs

from ..jsonsafe import JsonObject, JsonValue

__all__ = [
    "DEFAULT_BUFFER",
    "DEFAULT_TIMEOUT",
    "LOSS_EVENTS",
    "CdpConnectionLost",
    "CdpEndpointError",
    "CdpError",
    "CdpEvent",
    "CdpFailure",
    "CdpStats",
    "CdpTimeout",
    "EventTap",
    "Malformed",
    "Reply",
    "SessionLoss",
    "TargetLinkLost",
    "decode_message",
    "encode_command",
    "error_from_reply",
    "peek_event",
    "session_losses",
]

DEFAULT_TIMEOUT = 30.0
"""Seconds a command waits for its reply unless told otherwise."""
DEFAULT_BUFFER = 256
"""Events a subscription buffers before it drops the newest."""


class CdpFailure(Exception):
    """Base of every failure this package raises, so an owner can catch them at once."""


class CdpError(CdpFailure):
    """The browser answered a command with an error reply."""

    def __init__(
        self, method: str, code: int, message: str, data: JsonValue = None
    ) -> None:
        self.method = method
        self.code = code
        self.message = message
        self.data = data
        text = f"{method} failed: {message} (code {code})"
        if data is not None:
            text += f": {data}"
        super().__init__(text)


class CdpTimeout(CdpFailure):
    """A command got no reply in time. The late reply, if any, is counted and dropped."""

    def __init__(self, method: str, timeout: float, session_id: str | None = None) -> None:
        self.method = method
        self.timeout = timeout
        self.session_id = session_id
        where = f" on session {session_id}" if session_id else ""
        super().__init__(f"{method}{where} got no reply within {timeout:g} s")


class CdpConnectionLost(CdpFailure):
    """The websocket to the browser is gone; the message names the endpoint and why."""


class TargetLinkLost(CdpConnectionLost):
    """One flat session is gone (detached, or its target crashed); the socket lives on.

    It subclasses :class:`CdpConnectionLost` because for the caller the consequence is
    the same: nothing sent on that session will ever be answered.
    """

    def __init__(self, session_id: str, reason: str, target_id: str | None = None) -> None:
        self.session_id = session_id
        self.reason = reason
        self.target_id = target_id
        target = f" (target {target_id})" if target_id else ""
        super().__init__(f"CDP session {session_id}{target} lost: {reason}")


class CdpEndpointError(CdpFailure):
    """An attach endpoint could not be turned into a browser websocket URL."""


@attrs.frozen
class CdpEvent:
    """One protocol event, as delivered to subscribers.

    ``params`` is the decoded JSON object and is shared by every subscriber that
    receives the event: treat it as read-only. ``dropped_before`` is how many events
    this subscriber lost to a full buffer immediately before this one (0 normally), so
    a consumer sees a gap in the stream where it happened.
    """

    method: str
    params: JsonObject
    session_id: str | None = None
    dropped_before: int = 0


class EventTap(Protocol):
    """A synchronous consumer of one flat session's events, called by the reader itself.

    A subscription buffers events for a task to read later; a tap sees each event in
    the reader, in the order the browser sent it, before any reply that came after it
    is delivered. So a command's reply on that session proves the tap has seen every
    event the browser sent before it: a recorder whose counters must be current when
    a read returns (requests an action started, errors it logged) needs exactly that.
    A tap must be cheap and must not block; it never awaits.
    """

    #: The methods it wants.
    methods: frozenset[str]

    def skip(self, method: str, raw: str) -> bool:
        """True to count this event and drop it without decoding (a flood being sampled).

        Asked only of an event nothing else on the session wants, with the raw text,
        so a cheap look at it (its level) can decide.
        """

    def on_event(self, event: CdpEvent) -> None:
        """Take one decoded event."""


@attrs.frozen
class Reply:
    """A reply to command ``id``: exactly one of ``result`` and ``error`` is set."""

    id: int
    result: JsonObject | None
    error: JsonObject | None
    session_id: str | None = None


@attrs.frozen
class Malformed:
    """A message that is neither a reply nor an event; kept only to be counted."""

    reason: str


@attrs.frozen
class SessionLoss:
    """A flat session that an event has just ended, and why."""

    session_id: str
    reason: str


@attrs.frozen
class CdpStats:
    """A snapshot of a connection's counters (see :meth:`CdpConnection.stats`)."""

    url: str
    commands_sent: int
    replies: int
    events: int
    events_unrouted: int
    events_dropped: int
    unknown_replies: int
    malformed: int
    pending: int
    subscriptions: int
    sessions: int
    lost: str | None
    #: Events a tap counted without decoding them (a flood being sampled), and events
    #: nobody wanted, counted without decoding (both are in ``events`` too).
    events_skipped: int = 0
    #: Exceptions raised by taps (a bug in a recorder; the reader carries on).
    tap_errors: int = 0


def encode_command(
    command_id: int,
    method: str,
    params: Mapping[str, JsonValue] | None = None,
    session_id: str | None = None,
) -> str:
    """Serialize one command; ``sessionId`` rides at top level for flat sessions."""
    message: JsonObject = {"id": command_id, "method": method}
    if params:
        message["params"] = params
    if session_id is not None:
        message["sessionId"] = session_id
    return json.dumps(message, separators=(",", ":"))


def _excerpt(raw: str | bytes, limit: int = 80) -> str:
    text = raw if isinstance(raw, str) else raw[: limit * 4].decode("utf-8", "replace")
    return text[:limit] + ("..." if len(text) > limit else "")


def decode_message(raw: str | bytes) -> Reply | CdpEvent | Malformed:
    """Classify one websocket message. Never raises: bad input becomes :class:`Malformed`."""
    try:
        message = json.loads(raw)
    except (ValueError, RecursionError) as exc:
        return Malformed(f"not JSON ({exc.__class__.__name__}): {_excerpt(raw)!r}")
    if not isinstance(message, dict):
        return Malformed(f"not a JSON object: {_excerpt(raw)!r}")
    session_id = message.get("sessionId")
    if session_id is not None and not isinstance(session_id, str):
        return Malformed(f"sessionId is not a string: {_excerpt(raw)!r}")

    if "id" in message:
        command_id = message["id"]
        if type(command_id) is not int:
            return Malformed(f"id is not an integer: {_excerpt(raw)!r}")
        error = message.get("error")
        if error is not None:
            if not isinstance(error, dict):
                return Malformed(f"error is not an object: {_excerpt(raw)!r}")
            return Reply(command_id, None, error, session_id)
        result = message.get("result", {})
        if not isinstance(result, dict):
            return Malformed(f"result is not an object: {_excerpt(raw)!r}")
        return Reply(command_id, result, None, session_id)

    method = message.get("method")
    if isinstance(method, str):
        params = message.get("params", {})
        if not isinstance(params, dict):
            return Malformed(f"params is not an object: {_excerpt(raw)!r}")
        return CdpEvent(method, params, session_id)
    return Malformed(f"neither a reply nor an event: {_excerpt(raw)!r}")


_EVENT_HEAD = '{"method":"'
_SESSION_TAIL = ',"sessionId":"'
#: Chromium's session ids: 32 upper-case hex digits. A peek that finds anything else
#: gives up, and the message is decoded as usual.
_SESSION_ID_CHARS = frozenset("0123456789ABCDEFabcdef")


def peek_event(raw: str | bytes) -> tuple[str, str] | None:
    """``(method, session_id)`` of a flat-session event, read without decoding it.

    Chromium writes an event as ``{"method":"...","params":{...},"sessionId":"..."}``:
    the method first, and the session id appended last by the browser process. A
    consumer that only counts a flood of one event (40,000 console messages a second)
    can decide from these two strings whether the message needs decoding at all. Any
    message that does not look exactly like that (a reply, a browser-level event,
    another serializer's key order) gives ``None`` and is decoded as usual, so the peek
    can only ever save work, never misroute a message.
    """
    if not isinstance(raw, str) or not raw.startswith(_EVENT_HEAD) or not raw.endswith('"}'):
        return None
    end = raw.find('"', len(_EVENT_HEAD))
    tail = raw.rfind(_SESSION_TAIL, end)
    if end < 0 or tail < 0:
        return None
    session_id = raw[tail + len(_SESSION_TAIL):-2]
    if not session_id or len(session_id) > 64 or not _SESSION_ID_CHARS.issuperset(session_id):
        return None
    return raw[len(_EVENT_HEAD):end], session_id


def error_from_reply(method: str, error: Mapping[str, JsonValue]) -> CdpError:
    """Build the exception for an error reply, tolerating missing fields."""
    code = error.get("code")
    return CdpError(
        method,
        code if isinstance(code, int) else 0,
        str(error.get("message", "unknown error")),
        error.get("data"),
    )


LOSS_EVENTS = frozenset(
    {
        "Target.detachedFromTarget",
        "Inspector.detached",
        "Inspector.targetCrashed",
        "Target.targetCrashed",
    }
)
"""The events :func:`session_losses` acts on; the reader checks this set first."""


def session_losses(
    event: CdpEvent, targets: Mapping[str, str]
) -> Iterable[SessionLoss]:
    """Which flat sessions does ``event`` end?

    ``targets`` maps the session ids we attached to their target ids; it is needed for
    ``Target.targetCrashed``, which names a target, not a session. The events:

    * ``Target.detachedFromTarget`` {sessionId}: the session is gone (target closed,
      or someone detached it). It may arrive on the browser or on a parent session.
    * ``Inspector.detached`` {reason}: arrives on the session itself.
    * ``Inspector.targetCrashed`` (on the session, once ``Inspector.enable`` was sent)
      and ``Target.targetCrashed`` {targetId, status, errorCode} (browser level, with
      target discovery on): the renderer died; nothing pending will be answered.
    """
    method = event.method
    params = event.params
    if method == "Target.detachedFromTarget":
        session_id = params.get("sessionId")
        if isinstance(session_id, str):
            return (SessionLoss(session_id, "detached from its target"),)
    elif method == "Inspector.detached":
        if event.session_id is not None:
            reason = params.get("reason", "unknown reason")
            return (SessionLoss(event.session_id, f"inspector detached: {reason}"),)
    elif method == "Inspector.targetCrashed":
        if event.session_id is not None:
            return (SessionLoss(event.session_id, "target crashed"),)
    elif method == "Target.targetCrashed":
        target_id = params.get("targetId")
        if isinstance(target_id, str):
            reason = (
                f"target crashed (status {params.get('status', '?')}, "
                f"errorCode {params.get('errorCode', '?')})"
            )
            return tuple(
                SessionLoss(session_id, reason)
                for session_id, target in targets.items()
                if target == target_id
            )
    return ()
