"""Playwright's CDP traffic on our socket: which messages are its, and how they are renamed.

A fleet's endpoint (browserless, a grid that proxies CDP) starts a new browser for every
websocket, so an attached session keeps one socket to it, its
:class:`~.connection.CdpConnection`, and Playwright reaches the browser through a
loopback relay (:mod:`.relay`) that carries Playwright's commands over that socket.
This module is the relay's bookkeeping, free of I/O:

* **Playwright's root is a browser session of ours.** Playwright turns auto-attach on at
  its root, and every flat session it opens is announced there
  (``Target.attachedToTarget``); ours, opened at the socket's own root, are announced at
  that root too. Were Playwright's root the socket's root, it would take our sessions for
  pages of its own. So the relay opens one flat session to the browser target
  (``Target.attachToBrowserTarget``) and Playwright's root commands ride it: what
  Playwright starts is announced on that session, what we start on the socket's root, and
  each side's state (auto-attach, target discovery) is its own.
* **Playwright's sessions** are that browser session and every session announced on one
  of Playwright's sessions; a ``Target.detachedFromTarget`` there ends one. Events of
  those sessions are Playwright's; everything else on the socket is ours.
* **Ids.** Playwright numbers its commands itself; on our socket each takes an id from
  our counter, so that the two never collide, and its reply goes back to Playwright under
  Playwright's own id.

The text is renamed in place where Chromium's layout allows (the id leads a reply, the
session id ends a message), so a screenshot's megabytes are not parsed and written again
on their way through; anything laid out otherwise is decoded and encoded.
"""

from __future__ import annotations

import json
import re

import attrs

from ..jsonsafe import JsonObject
from .protocol import encode_command

__all__ = ["Forwarded", "RelayMap", "RelayRefusal"]

_REPLY_HEAD = re.compile(r'\{"id":(-?\d+),')
_SESSION_EVENTS = frozenset({"Target.attachedToTarget", "Target.detachedFromTarget"})


@attrs.frozen
class Forwarded:
    """One of Playwright's commands, renamed for our socket: its text and the id it took."""

    our_id: int
    text: str


@attrs.frozen
class RelayRefusal:
    """A message from Playwright that is not a command: the error reply it gets instead
    (``None`` when it has no id to answer)."""

    reply: str | None


@attrs.frozen
class _Waiting:
    playwright_id: int
    session_id: str


class RelayMap:
    """The relay's state for one Playwright connection, whose root rides ``root_session``."""

    def __init__(self, root_session: str) -> None:
        self.root_session = root_session
        #: Playwright's flat sessions: its root's and every one announced on one of them.
        self.sessions: set[str] = {root_session}
        self._waiting: dict[int, _Waiting] = {}
        self._root_tail = f',"sessionId":"{root_session}"}}'

    @property
    def waiting(self) -> int:
        """Playwright's commands sent and not yet answered."""
        return len(self._waiting)

    # -- from Playwright ---------------------------------------------------------------

    def command(self, raw: str | bytes, our_id: int) -> Forwarded | RelayRefusal:
        """Playwright's message ``raw`` as the command to write on our socket under
        ``our_id`` (its root's commands go to the browser session), or its refusal."""
        try:
            message = json.loads(raw)
        except (ValueError, RecursionError):
            return RelayRefusal(None)
        if not isinstance(message, dict):
            return RelayRefusal(None)
        playwright_id = message.get("id")
        if type(playwright_id) is not int:
            return RelayRefusal(None)
        method, params, session_id = message.get("method"), message.get("params"), message.get("sessionId")
        if not isinstance(method, str) or not isinstance(params, dict | None) \
                or not isinstance(session_id, str | None):
            return RelayRefusal(_error_reply(playwright_id, session_id if isinstance(session_id, str) else None,
                                             "the relay takes CDP commands only"))
        target_session = self.root_session if session_id is None else session_id
        self._waiting[our_id] = _Waiting(playwright_id, target_session)
        return Forwarded(our_id, encode_command(our_id, method, params, target_session))

    # -- from the browser ------------------------------------------------------------

    def from_browser(self, raw: str | bytes, peeked: tuple[str, str] | None) -> str | bytes | None:
        """What Playwright gets of the browser's message ``raw``: the reply to one of its
        commands under its own id, an event of one of its sessions (its root's without a
        session id), or ``None`` for a message that is ours. ``peeked`` is
        :func:`~.protocol.peek_event` of ``raw``, which the reader takes once for both
        of us: on a flood of our own events it is all this costs."""
        if peeked is not None and isinstance(raw, str):
            method, session_id = peeked
            if session_id not in self.sessions:
                return None
            if method in _SESSION_EVENTS:
                self._track(json.loads(raw))
            return self._as_playwright(raw)
        if isinstance(raw, str):
            head = _REPLY_HEAD.match(raw)
            if head is not None:
                waiting = self._waiting.pop(int(head.group(1)), None)
                if waiting is None:
                    return None
                return self._as_playwright(f'{{"id":{waiting.playwright_id},{raw[head.end():]}')
            if '"sessionId"' not in raw:  # a browser-level event, ours, without parsing it
                return None
        return self._decoded(raw)

    def _decoded(self, raw: str | bytes) -> str | None:
        """The slow path, for a message Chromium did not lay out as usual."""
        try:
            message = json.loads(raw)
        except (ValueError, RecursionError):
            return None
        if not isinstance(message, dict):
            return None
        if "id" in message:
            waiting = self._waiting.pop(message["id"], None) if type(message["id"]) is int else None
            if waiting is None:
                return None
            message["id"] = waiting.playwright_id
        elif message.get("sessionId") not in self.sessions:
            return None
        else:
            self._track(message)
        if message.get("sessionId") == self.root_session:
            del message["sessionId"]
        return json.dumps(message, separators=(",", ":"))

    def _as_playwright(self, text: str) -> str:
        """``text`` with the root's session id taken off: on Playwright's side it is the root."""
        if text.endswith(self._root_tail):
            return text[: -len(self._root_tail)] + "}"
        if f'"sessionId":"{self.root_session}"' in text:  # laid out otherwise: re-encode
            message = json.loads(text)
            if message.get("sessionId") == self.root_session:
                del message["sessionId"]
            return json.dumps(message, separators=(",", ":"))
        return text

    def _track(self, message: JsonObject) -> None:
        """Playwright's sessions as one of its sessions announces or ends a child."""
        params = message.get("params")
        if not isinstance(params, dict) or message.get("sessionId") not in self.sessions:
            return
        child = params.get("sessionId")
        if not isinstance(child, str):
            return
        if message.get("method") == "Target.attachedToTarget":
            self.sessions.add(child)
        elif message.get("method") == "Target.detachedFromTarget" and child != self.root_session:
            self._end(child)

    def _end(self, session_id: str) -> None:
        """A session of Playwright's is gone: the browser answers none of its commands
        still waiting (Playwright fails them itself), so they are forgotten."""
        self.sessions.discard(session_id)
        for our_id in [i for i, w in self._waiting.items() if w.session_id == session_id]:
            del self._waiting[our_id]


def _error_reply(playwright_id: int, session_id: str | None, message: str) -> str:
    reply: JsonObject = {"id": playwright_id, "error": {"code": -32600, "message": message}}
    if session_id is not None:
        reply["sessionId"] = session_id
    return json.dumps(reply, separators=(",", ":"))
