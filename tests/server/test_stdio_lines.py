"""The stdio transport's line rules, pure: every request is answered, every message written.

The SDK's JSON parser refuses a lone surrogate escape, an integer of more than 4,300
digits and nesting past 200 levels, and its transport then drops the request without an
answer; its writer raises on a string that cannot be encoded. These tests hold
``decode_line`` and ``encode_message`` to the opposite: each such request reaches the
dispatch (whose checks refuse it, naming the limit) or is answered with a JSON-RPC
error carrying its id, and each outgoing message becomes one line of valid UTF-8 JSON.
"""

from __future__ import annotations

import json
from typing import Any

import mcp.types as types
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from browx_actors.errors import ToolError
from browx_actors.jsonsafe import MAX_INT_DIGITS
from browx_actors.server.stdio_lines import WIRE_DEPTH, decode_line, encode_message
from browx_actors.tools import Param, validate_args
from browx_actors.tools.params import MAX_DEPTH, Unreadable


def _call(arguments: str, request_id: str = "7") -> bytes:
    return (f'{{"jsonrpc":"2.0","id":{request_id},"method":"tools/call",'
            f'"params":{{"name":"snapshot","arguments":{arguments}}}}}').encode()


def _arguments(message: Any) -> dict[str, Any]:
    assert isinstance(message, types.JSONRPCRequest), message
    assert message.params is not None
    arguments: dict[str, Any] = message.params["arguments"]
    return arguments


def _refusal(arguments: dict[str, Any]) -> ToolError:
    with pytest.raises(ToolError) as caught:
        validate_args((Param("scope", "string", "x"), Param("n", "integer", "n", minimum=0, maximum=10)), arguments)
    assert caught.value.code == "bad-arg"
    return caught.value


def test_a_lone_surrogate_escape_reaches_the_dispatch_which_names_the_field() -> None:
    message = decode_line(_call('{"scope":"a\\ud800b"}'))
    err = _refusal(_arguments(message))
    assert err.details["field"] == "scope" and "surrogate" in err.message


def test_an_integer_of_5000_digits_reaches_the_dispatch_which_names_the_limit() -> None:
    message = decode_line(_call('{"n":' + "9" * 5000 + "}"))
    value = _arguments(message)["n"]
    assert isinstance(value, Unreadable)
    err = _refusal(_arguments(message))
    assert err.details["field"] == "n" and f"{MAX_INT_DIGITS:,}" in err.message and "5,000" in err.message


@pytest.mark.parametrize("depth", [40, 200, 5000, 100_000])
def test_deep_nesting_reaches_the_dispatch_which_names_the_limit(depth: int) -> None:
    message = decode_line(_call('{"scope":' + "[" * depth + "]" * depth + "}"))
    err = _refusal(_arguments(message))
    assert err.details["field"] == "scope" and f"{MAX_DEPTH} levels" in err.message


def test_nesting_past_the_wire_depth_is_cut_into_a_mark() -> None:
    message = decode_line(_call('{"scope":' + "[" * 300 + '"deep"' + "]" * 300 + "}"))
    value = _arguments(message)["scope"]
    levels = 0
    while isinstance(value, list):
        value, levels = value[0], levels + 1
    assert isinstance(value, Unreadable)
    assert levels == WIRE_DEPTH - 3  # the request, its params and the arguments hold the first three


def test_brackets_inside_strings_do_not_count_as_nesting() -> None:
    text = "[" * 500
    message = decode_line(_call(json.dumps({"scope": text, "n": 3}).replace("3", "9" * 4400)))
    arguments = _arguments(message)
    assert arguments["scope"] == text and isinstance(arguments["n"], Unreadable)


def test_well_formed_lines_take_the_sdk_path_unchanged() -> None:
    message = decode_line(_call('{"scope":"#main","n":3}'))
    assert _arguments(message) == {"scope": "#main", "n": 3}


@pytest.mark.parametrize(("line", "expected_id", "code"), [
    (b"not json at all", None, types.PARSE_ERROR),
    (b'{"jsonrpc":"2.0","id":5,"method":"tools/call"', None, types.PARSE_ERROR),
    (b'{"jsonrpc":"2.0","id":5,"method":17}', 5, types.INVALID_REQUEST),
    (b'{"jsonrpc":"1.0","id":"abc","method":"ping"}', "abc", types.INVALID_REQUEST),
    (b'[1, 2, 3]', None, types.INVALID_REQUEST),
    (b'{"jsonrpc":"2.0","id":' + b"1" * 5000 + b',"method":"ping"}', None, types.INVALID_REQUEST),
])
def test_what_is_no_request_is_answered_with_the_json_rpc_error(line: bytes, expected_id: Any, code: int) -> None:
    answer = decode_line(line)
    assert isinstance(answer, bytes) and answer.endswith(b"\n")
    error = types.jsonrpc_message_adapter.validate_json(answer, by_name=False)
    assert isinstance(error, types.JSONRPCError)
    assert error.id == expected_id and error.error.code == code


@pytest.mark.parametrize("line", [
    b"", b"   \n",
    b'{"jsonrpc":"2.0","method":"notifications/x","params":{"a":"\\ud800"}}',
    b'{"jsonrpc":"2.0","method":7}',  # a broken notification: JSON-RPC answers none
    b'{"jsonrpc":"2.0","id":3,"result":{"bad":"\\udfff"}}',  # a response to us
])
def test_notifications_responses_and_blank_lines_are_never_answered(line: bytes) -> None:
    decoded = decode_line(line)
    assert decoded is None or isinstance(decoded, (types.JSONRPCNotification, types.JSONRPCResponse))


def _tool_response(structured: dict[str, Any], text: str = "{}") -> types.JSONRPCResponse:
    result = types.CallToolResult(content=[types.TextContent(type="text", text=text)], structured_content=structured)
    return types.JSONRPCResponse(jsonrpc="2.0", id=9, result=result.model_dump(by_alias=True, exclude_none=True))


def _written(message: types.JSONRPCMessage) -> dict[str, Any]:
    line = encode_message(message)
    assert line.endswith(b"\n") and line.count(b"\n") == 1
    data = json.loads(line.decode("utf-8"))  # strict UTF-8 and strict JSON
    assert isinstance(data, dict)
    return data


def test_a_lone_surrogate_in_a_result_is_written_as_the_replacement_character() -> None:
    data = _written(_tool_response({"ok": True, "title": "a\ud800b"}, text='{"title":"\ud800"}'))
    assert data["id"] == 9
    assert data["result"]["structuredContent"]["title"] == "a\ufffdb"
    assert data["result"]["content"][0]["text"] == '{"title":"\ufffd"}'


def test_a_result_that_cannot_be_written_becomes_an_internal_tool_result() -> None:
    data = _written(_tool_response({"ok": True, "thing": object()}))
    assert data["id"] == 9 and data["result"]["isError"] is True
    assert data["result"]["structuredContent"]["code"] == "internal"
    assert json.loads(data["result"]["content"][0]["text"])["code"] == "internal"


def test_any_other_unwritable_response_becomes_a_json_rpc_internal_error() -> None:
    message = types.JSONRPCResponse(jsonrpc="2.0", id="r", result={"tools": [object()]})
    data = _written(message)
    assert data["id"] == "r" and data["error"]["code"] == types.INTERNAL_ERROR


def test_an_error_message_holding_a_surrogate_is_written_valid() -> None:
    message = types.JSONRPCError(jsonrpc="2.0", id=4, error=types.ErrorData(code=-32601,
                                                                              message="Method not found: \ud800"))
    assert _written(message)["error"]["message"] == "Method not found: \ufffd"


_json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=5), inner, max_size=4),
    max_leaves=20,
)


@settings(max_examples=200, deadline=None)
@given(_json_values)
def test_every_result_is_written_as_one_line_of_strict_json(value: Any) -> None:
    _written(_tool_response({"ok": True, "value": value}))


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=200))
def test_no_line_makes_the_reader_raise(raw: bytes) -> None:
    decode_line(raw)
    decode_line(b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","arguments":' + raw + b"}}")
