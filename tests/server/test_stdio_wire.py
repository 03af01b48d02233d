"""The stdio transport over a real pipe: hostile lines get answers, hostile results get written.

The server is ``tests/mcp_echo_server.py`` (the real transport, a stand-in dispatch) in a
subprocess, spoken to in raw lines, because the SDK's client cannot even send most of
these. Each request must be answered within a second and the server must keep serving.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import mcp.types as types

from e2e_support import RawStdio, raw_stdio

SERVER = [sys.executable, str(Path(__file__).parents[1] / "mcp_echo_server.py")]
WITHIN = 1.0


async def _still_serving(raw: RawStdio) -> None:
    assert await raw.call_tool("echo", {"text": "still here"}, within=5) == {"ok": True, "args": {"text": "still here"}}


async def test_a_result_with_a_lone_surrogate_is_written_and_the_server_lives() -> None:
    async with raw_stdio(SERVER) as raw:
        await raw.initialize()
        envelope = await raw.call_tool("surrogate", within=WITHIN)
        assert envelope == {"ok": True, "title": "before\ufffdafter"}
        await _still_serving(raw)
    for line in raw.received:
        json.loads(line.decode("utf-8"))  # strict UTF-8, strict JSON


async def test_a_result_that_is_no_json_data_becomes_internal_and_the_server_lives() -> None:
    async with raw_stdio(SERVER) as raw:
        await raw.initialize()
        envelope = await raw.call_tool("unwritable", within=WITHIN)
        assert envelope is not None and envelope["ok"] is False and envelope["code"] == "internal"
        await _still_serving(raw)


async def test_arguments_the_sdk_parser_refuses_still_reach_the_dispatch() -> None:
    """Over the SDK's transport each of these got no answer at all."""
    async with raw_stdio(SERVER) as raw:
        await raw.initialize()
        surrogate = await raw.call_tool("echo", raw_arguments=b'{"text":"\\ud800"}', within=WITHIN)
        assert surrogate == {"ok": True, "args": {"text": "\ufffd"}}  # the stand-in echoes; the egress would refuse
        # The stand-in echoes the marks the transport left for the dispatch to refuse;
        # it cannot write them back, so these answer internal (the real dispatch: bad-arg).
        deep = await raw.call_tool("echo", raw_arguments=b'{"a":' + b"[" * 200 + b"]" * 200 + b"}", within=WITHIN)
        assert deep is not None and deep["code"] == "internal"
        digits = await raw.call_tool("echo", raw_arguments=b'{"n":' + b"7" * 5000 + b"}", within=WITHIN)
        assert digits is not None and digits["code"] == "internal"
        await _still_serving(raw)


async def test_lines_that_are_no_request_get_the_json_rpc_error_with_their_id() -> None:
    async with raw_stdio(SERVER) as raw:
        await raw.initialize()
        await raw.send_line(b'{"jsonrpc":"2.0","id":"broken","method":42}')
        invalid = await raw.answer("broken", WITHIN)
        assert invalid is not None and invalid["error"]["code"] == types.INVALID_REQUEST
        await raw.send_line(b"this is not json")
        parse = await raw.answer(None, WITHIN)
        assert parse is not None and parse["error"]["code"] == types.PARSE_ERROR
        await raw.send_line(b'{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"x":"\\udc00"}}')
        unknown = await raw.request("no/such/method", {"x": "\ud800"}, within=WITHIN)
        assert unknown is not None and "error" in unknown
        await _still_serving(raw)
