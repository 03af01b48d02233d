"""What a daemon asks of a live view, and the lines that answer it: pure.

The daemon controls views with three messages: ``view.start`` (whose fields other
than ``session`` are optional, with defaults and clamps), ``view.stop`` and
``frame.ack``. This module turns their bodies (already past
:func:`~browx_actors.operator_wire.parse_line`) into values, and builds the
``view.started``, ``view.stopped`` and ``error`` lines the server answers with, so the
stream actor only routes.

Refusals are :class:`ViewRefused`, carrying one of the live-view wire codes of
:data:`browx_actors.errors.WIRE_CODES`. They are not :class:`~browx_actors.errors.ToolError`
on purpose: they go to the daemon as ``error`` lines and never into a tool result.

Strictness: a number is a JSON number that is finite and not a boolean; ``maxWidth``
and ``quality`` must also be whole (``960.0`` is 960, ``960.5`` is refused). ``null``
is a wrong type, not a request for the default: absent means default. Values out of
range are clamped, not refused. No line carries page content, and no
message echoes what the daemon sent beyond a session name that is safe to repeat.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

import attrs

from ..jsonsafe import JsonValue
from ..operator_wire import encode, error_line

__all__ = [
    "DEFAULT_FPS",
    "DEFAULT_QUALITY",
    "DEFAULT_WIDTH",
    "ERROR_CODES",
    "FORMAT",
    "MAX_FPS",
    "MAX_QUALITY",
    "MAX_SESSION_CHARS",
    "MAX_WIDTH",
    "MIN_FPS",
    "MIN_QUALITY",
    "MIN_WIDTH",
    "STOP_REASONS",
    "FrameAck",
    "ViewRefused",
    "ViewRequest",
    "parse_frame_ack",
    "parse_view_start",
    "parse_view_stop",
    "started_line",
    "stopped_line",
    "view_error_line",
]

DEFAULT_FPS, MIN_FPS, MAX_FPS = 5.0, 0.2, 5.0
DEFAULT_WIDTH, MIN_WIDTH, MAX_WIDTH = 960, 160, 1280
DEFAULT_QUALITY, MIN_QUALITY, MAX_QUALITY = 60, 10, 80
FORMAT = "jpeg"
#: A longer session name is refused (``invalid-view``): it could not be echoed safely,
#: and it would crowd the frame data out of a 64 KiB line.
MAX_SESSION_CHARS = 256

#: ``view.stopped`` reasons (``docs/operator-channel.md`` lists them).
STOP_REASONS = ("daemon", "session-closed", "channel-down", "channel-closed", "stalled", "page-closed",
                "source-error")
#: ``error`` codes of the live view (``docs/operator-channel.md`` lists them).
ERROR_CODES = ("view-disabled", "invalid-view", "unknown-session", "view-unsupported", "view-limit",
               "view-failed")


@attrs.frozen
class ViewRequest:
    """A ``view.start`` after defaults and clamps: what the stream runs with."""

    session: str
    max_fps: float = attrs.field(default=DEFAULT_FPS, converter=float)
    max_width: int = DEFAULT_WIDTH
    quality: int = DEFAULT_QUALITY
    format: str = FORMAT


@attrs.frozen
class FrameAck:
    """A ``frame.ack``: the daemon has handed on the frame ``seq`` of ``session``."""

    session: str
    seq: int


class ViewRefused(Exception):
    """A view message refused with a live-view wire code; :meth:`line` is the answer."""

    def __init__(self, code: str, message: str, *, session: object = None, field: str | None = None) -> None:
        if code not in ERROR_CODES:
            raise ValueError(f"{code!r} is not a live-view error code")
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message
        self.session = session
        self.field = field

    def line(self) -> bytes:
        extra = {} if self.field is None else {"field": self.field}
        return view_error_line(self.code, self.message, session=self.session, **extra)


# -- parsing ------------------------------------------------------------------------------


def parse_view_start(body: Mapping[str, JsonValue]) -> ViewRequest:
    """The :class:`ViewRequest` of a ``view.start`` body, or :class:`ViewRefused` (``invalid-view``)."""
    session = _session(body)
    fmt = body.get("format", FORMAT)
    if fmt != FORMAT:
        raise _invalid("format", 'format must be "jpeg"', session)
    return ViewRequest(
        session,
        max_fps=_clamp(_number(body, "maxFps", DEFAULT_FPS, session), MIN_FPS, MAX_FPS),
        max_width=int(_clamp(_whole(body, "maxWidth", DEFAULT_WIDTH, session), MIN_WIDTH, MAX_WIDTH)),
        quality=int(_clamp(_whole(body, "quality", DEFAULT_QUALITY, session), MIN_QUALITY, MAX_QUALITY)),
    )


def parse_view_stop(body: Mapping[str, JsonValue]) -> str:
    """The session a ``view.stop`` names, or :class:`ViewRefused` (``invalid-view``)."""
    return _session(body)


def parse_frame_ack(body: Mapping[str, JsonValue]) -> FrameAck:
    """A ``frame.ack`` body as a :class:`FrameAck`, or :class:`ViewRefused` (``invalid-view``)."""
    session = _session(body)
    seq = body.get("seq")
    if type(seq) is not int or seq < 0:
        raise _invalid("seq", "seq must be a whole number >= 0", session)
    return FrameAck(session, seq)


def _session(body: Mapping[str, JsonValue]) -> str:
    session = body.get("session")
    if not _echoable(session):
        raise _invalid("session", f"session must be a string of 1 to {MAX_SESSION_CHARS} characters", None)
    assert isinstance(session, str)
    return session


def _number(body: Mapping[str, JsonValue], name: str, default: float, session: str) -> int | float:
    if name not in body:
        return default
    value = body[name]
    # A JSON integer stays a Python int, however long: never float() it before the clamp.
    if type(value) is int or (type(value) is float and math.isfinite(value)):
        return value
    raise _invalid(name, f"{name} must be a finite number", session)


def _whole(body: Mapping[str, JsonValue], name: str, default: int, session: str) -> int | float:
    value = _number(body, name, default, session)
    if isinstance(value, float) and not value.is_integer():
        raise _invalid(name, f"{name} must be a whole number", session)
    return value


def _clamp(value: float, low: float, high: float) -> float:
    return float(min(max(value, low), high))


def _invalid(field: str, message: str, session: str | None) -> ViewRefused:
    return ViewRefused("invalid-view", message, session=session, field=field)


def _echoable(session: object) -> bool:
    """Is this a session name we may parse and repeat on a line?"""
    if not isinstance(session, str) or not 1 <= len(session) <= MAX_SESSION_CHARS:
        return False
    try:
        session.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate: json.loads lets it through
        return False
    return True


# -- the answers --------------------------------------------------------------------------


def started_line(request: ViewRequest) -> bytes:
    """``view.started``, echoing the values that applied."""
    return encode("view.started", session=request.session, format=request.format,
                  maxFps=_plain(request.max_fps), maxWidth=request.max_width, quality=request.quality)


def stopped_line(session: str, reason: str) -> bytes:
    """``view.stopped`` with one of :data:`STOP_REASONS`."""
    if reason not in STOP_REASONS:
        raise ValueError(f"{reason!r} is not a view.stopped reason")
    return encode("view.stopped", session=session, reason=reason)


def view_error_line(code: str, message: str, *, session: object = None, **fields: JsonValue) -> bytes:
    """An ``error`` line with a live-view code; ``session`` only when it is safe to echo."""
    if code not in ERROR_CODES:
        raise ValueError(f"{code!r} is not a live-view error code")
    if _echoable(session):
        fields = {"session": session, **fields}
    return error_line(code, message, **fields)


def _plain(value: float) -> int | float:
    """5.0 goes on the wire as 5; 0.2 stays 0.2."""
    return int(value) if value.is_integer() else value
