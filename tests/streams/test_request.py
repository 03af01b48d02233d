"""view.start, view.stop and frame.ack parsed, and the lines that answer them."""

from __future__ import annotations

import json
import math
from typing import Any

import pytest

from browx_actors.errors import WIRE_CODES
from browx_actors.operator_wire import Message, parse_line
from browx_actors.streams.request import (
    ERROR_CODES,
    MAX_SESSION_CHARS,
    STOP_REASONS,
    FrameAck,
    ViewRefused,
    ViewRequest,
    parse_frame_ack,
    parse_view_start,
    parse_view_stop,
    started_line,
    stopped_line,
    view_error_line,
)


def wire(line: bytes) -> dict[str, Any]:
    assert line.endswith(b"\n") and line.count(b"\n") == 1
    parsed: dict[str, Any] = json.loads(line)
    assert parsed["v"] == 1
    return parsed


def refused(body: dict[str, Any]) -> ViewRefused:
    with pytest.raises(ViewRefused) as caught:
        parse_view_start(body)
    assert caught.value.code == "invalid-view"
    return caught.value


# -- defaults and clamps ---------------------------------------------------------------------------


def test_every_field_but_session_is_optional_and_defaults_as_the_spec_says() -> None:
    request = parse_view_start({"session": "default"})
    assert request == ViewRequest("default", max_fps=5.0, max_width=960, quality=60, format="jpeg")
    assert wire(started_line(request)) == {"v": 1, "type": "view.started", "session": "default",
                                           "format": "jpeg", "maxFps": 5, "maxWidth": 960, "quality": 60}


def test_the_spec_s_own_view_start_line_parses() -> None:
    message = parse_line(b'{ "v": 1, "type": "view.start", "session": "default", "maxFps": 5, '
                         b'"maxWidth": 960, "quality": 60, "format": "jpeg" }')
    assert isinstance(message, Message) and message.type == "view.start"
    assert parse_view_start(message.body) == ViewRequest("default")


@pytest.mark.parametrize(("field", "given", "applied"), [
    ("maxFps", 6, 5.0), ("maxFps", 5.0001, 5.0), ("maxFps", 1e308, 5.0), ("maxFps", 10**400, 5.0),
    ("maxFps", 0.1, 0.2), ("maxFps", 0, 0.2), ("maxFps", -3, 0.2), ("maxFps", -(10**400), 0.2),
    ("maxFps", 5, 5.0), ("maxFps", 0.2, 0.2), ("maxFps", 2.5, 2.5), ("maxFps", 1, 1.0),
    ("maxWidth", 1281, 1280), ("maxWidth", 99_999, 1280), ("maxWidth", 10**400, 1280), ("maxWidth", 1e300, 1280),
    ("maxWidth", 159, 160), ("maxWidth", 0, 160), ("maxWidth", -960, 160),
    ("maxWidth", 1280, 1280), ("maxWidth", 160, 160), ("maxWidth", 640, 640), ("maxWidth", 960.0, 960),
    ("quality", 81, 80), ("quality", 100, 80), ("quality", 9, 10), ("quality", 0, 10), ("quality", -5, 10),
    ("quality", 80, 80), ("quality", 10, 10), ("quality", 45, 45), ("quality", 70.0, 70),
])
def test_out_of_range_values_are_clamped_at_both_ends(field: str, given: Any, applied: float) -> None:
    request = parse_view_start({"session": "s", field: given})
    values = {"maxFps": request.max_fps, "maxWidth": request.max_width, "quality": request.quality}
    assert values[field] == applied and type(values[field]) is type(applied)
    assert wire(started_line(request))[field] == applied  # the echo says what applied


def test_the_echo_writes_whole_rates_as_integers_and_others_as_they_are() -> None:
    assert wire(started_line(parse_view_start({"session": "s", "maxFps": 0.5})))["maxFps"] == 0.5
    assert b'"maxFps":3,' in started_line(parse_view_start({"session": "s", "maxFps": 3.0}))


# -- refusals ------------------------------------------------------------------------------------


@pytest.mark.parametrize("field", ["maxFps", "maxWidth", "quality"])
@pytest.mark.parametrize("value", [True, False, None, "5", "", [5], {"n": 5}, math.nan, math.inf, -math.inf])
def test_a_field_of_the_wrong_type_is_refused_naming_it(field: str, value: Any) -> None:
    error = refused({"session": "default", field: value})
    assert error.field == field and field in error.message
    line = wire(error.line())
    assert line == {"v": 1, "type": "error", "code": "invalid-view", "error": error.message,
                    "session": "default", "field": field}


@pytest.mark.parametrize(("field", "value"), [("maxWidth", 960.5), ("quality", 60.25), ("maxWidth", 1e-9)])
def test_width_and_quality_must_be_whole(field: str, value: float) -> None:
    error = refused({"session": "s", field: value})
    assert error.field == field and "whole" in error.message


@pytest.mark.parametrize("fmt", ["png", "JPEG", "jpg", "webp", "", None, 1, True, ["jpeg"]])
def test_a_format_other_than_jpeg_is_refused(fmt: Any) -> None:
    error = refused({"session": "default", "format": fmt})
    assert error.field == "format" and "format" in error.message
    assert parse_view_start({"session": "default", "format": "jpeg"}).format == "jpeg"


@pytest.mark.parametrize("body", [
    {}, {"session": None}, {"session": 7}, {"session": True}, {"session": ["default"]}, {"session": ""},
    {"session": "x" * (MAX_SESSION_CHARS + 1)}, {"session": "bad\ud800surrogate"},
    {"maxFps": 5},
])
def test_a_missing_or_unusable_session_is_refused_and_not_echoed(body: dict[str, Any]) -> None:
    error = refused(body)
    assert error.field == "session" and "session" in error.message
    assert "session" not in wire(error.line())


def test_the_longest_session_name_is_accepted() -> None:
    name = "\u00e9" * MAX_SESSION_CHARS
    assert parse_view_start({"session": name}).session == name


def test_a_refusal_never_repeats_what_the_daemon_sent() -> None:
    secret = "page-text-4111-1111"
    for body in ({"session": "s", "maxFps": secret}, {"session": "s", "format": secret},
                 {"session": secret * 40}):
        assert secret.encode() not in refused(body).line()


def test_unknown_fields_are_ignored() -> None:
    assert parse_view_start({"session": "s", "maxHeight": "whatever", "v": 1, "type": "view.start"}) == \
        ViewRequest("s")


# -- view.stop and frame.ack ----------------------------------------------------------------------


def test_view_stop_names_a_session() -> None:
    assert parse_view_stop({"session": "default"}) == "default"
    with pytest.raises(ViewRefused) as caught:
        parse_view_stop({"session": 3})
    assert caught.value.code == "invalid-view" and caught.value.field == "session"


@pytest.mark.parametrize(("body", "field"), [
    ({"seq": 1}, "session"), ({"session": "s"}, "seq"), ({"session": "s", "seq": -1}, "seq"),
    ({"session": "s", "seq": 1.0}, "seq"), ({"session": "s", "seq": True}, "seq"),
    ({"session": "s", "seq": "4"}, "seq"),
])
def test_frame_ack_needs_a_session_and_a_whole_seq(body: dict[str, Any], field: str) -> None:
    with pytest.raises(ViewRefused) as caught:
        parse_frame_ack(body)
    assert caught.value.code == "invalid-view" and caught.value.field == field


def test_frame_ack_parses() -> None:
    assert parse_frame_ack({"v": 1, "type": "frame.ack", "session": "default", "seq": 412}) == FrameAck("default", 412)


# -- the answers -----------------------------------------------------------------------------------


def test_the_reasons_and_codes_are_the_spec_s_and_the_wire_table_s() -> None:
    assert STOP_REASONS == ("daemon", "session-closed", "channel-down", "channel-closed", "stalled",
                            "page-closed", "source-error")
    assert ERROR_CODES == ("view-disabled", "invalid-view", "unknown-session", "view-unsupported", "view-limit",
                           "view-failed")
    assert set(STOP_REASONS) | set(ERROR_CODES) == set(WIRE_CODES)


@pytest.mark.parametrize("reason", STOP_REASONS)
def test_view_stopped_carries_each_reason(reason: str) -> None:
    assert wire(stopped_line("default", reason)) == {"v": 1, "type": "view.stopped", "session": "default",
                                                     "reason": reason}


def test_view_stopped_refuses_a_reason_the_spec_does_not_list() -> None:
    with pytest.raises(ValueError):
        stopped_line("default", "tired")


@pytest.mark.parametrize("code", ERROR_CODES)
def test_error_lines_carry_each_code(code: str) -> None:
    assert wire(view_error_line(code, "why", session="default")) == {
        "v": 1, "type": "error", "code": code, "error": "why", "session": "default"}
    assert ViewRefused(code, "why").code == code


@pytest.mark.parametrize("session", [None, 5, "", "x" * (MAX_SESSION_CHARS + 1), "\udfff"])
def test_an_error_line_echoes_only_a_session_that_is_safe_to_repeat(session: object) -> None:
    assert "session" not in wire(view_error_line("unknown-session", "no such session", session=session))


@pytest.mark.parametrize("code", ["bad-line", "view-stalled", "unknown-tool", "stalled"])
def test_only_live_view_codes_make_error_lines(code: str) -> None:
    with pytest.raises(ValueError):
        view_error_line(code, "x")
    with pytest.raises(ValueError):
        ViewRefused(code, "x")

