"""Chaos over real stdio: floods of hostile requests, of calls on one session, and of
garbage from the operator daemon.

Each test counts unanswered requests (none may be left), checks that what should not be
touched was not (no browser launched for refused calls, a second session answering while
the first is flooded), and that the server is whole afterwards.
"""

from __future__ import annotations

import json
import random
import shutil
import socket as stdlib_socket
import tempfile
from collections import Counter
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
import trio

from e2e_support import RawStdio, raw_server

pytestmark = pytest.mark.chromium

TOKEN = "chaos-token-5d1e"


#: Argument values no parameter accepts, as raw JSON (most cannot be sent any other way).
REFUSED = [
    b'"\\ud800"', b'"a\\udfffb"', b"[" * 200 + b"]" * 200, b'{"a":' * 60 + b"1" + b"}" * 60,
    b"9" * 5000, b"-" + b"9" * 4400, b"1e400", b"-1e400", b'["\\udc00"]', b'{"\\ud800":1}',
]
#: Values some parameters accept and others refuse.
OTHER = [b'"x\\u0000y"', b'"' + b"x" * 200_000 + b'"', b"[" + b",".join([b"1"] * 5000) + b"]",
         b"true", b"null", b"{}", b"[]", b"1e308", b"-7", b'"e1"', b"3", b"false"]


def _fuzzed_arguments(rng: random.Random, schema: dict[str, Any]) -> bytes:
    """One call's arguments: each property given any value, one of them a value no
    parameter accepts (or an unknown key), so the dispatch must refuse the call before
    anything is acquired, whatever rule or check comes first."""
    names = list(schema.get("properties", {})) or ["unknown"]
    chosen = rng.sample(names, k=rng.randint(1, len(names)))
    bad = rng.choice(chosen)
    pieces = [json.dumps(name).encode() + b":" + rng.choice(REFUSED if name == bad else REFUSED + OTHER)
              for name in chosen]
    if rng.random() < 0.2:
        pieces.append(b'"\\ud800key":1')
    return b"{" + b",".join(pieces) + b"}"


async def test_a_fuzz_flood_gets_every_answer_and_launches_nothing(tmp_path: Path) -> None:
    rng = random.Random(19)
    async with raw_server(tmp_path / "ws", "eval,secrets,canvas,diagnostics") as raw:
        listing = await raw.request("tools/list", {}, within=30)
        assert listing is not None
        tools = listing["result"]["tools"]
        answers: list[dict[str, Any] | None] = []

        async def one(tool: dict[str, Any]) -> None:
            arguments = _fuzzed_arguments(rng, tool["inputSchema"])
            answers.append(await raw.call_tool(tool["name"], raw_arguments=arguments, within=30))

        sent = 0
        async with trio.open_nursery() as nursery:
            for _ in range(8):
                for tool in tools:
                    nursery.start_soon(one, tool)
                    sent += 1
        assert len(answers) == sent and None not in answers, f"{answers.count(None)} of {sent} got no answer"
        codes = Counter(a.get("code", "json-rpc-error") for a in answers if a is not None)
        assert set(codes) == {"bad-arg"}, codes
        status = await raw.call_tool("runtime_status", within=10)
        assert status is not None
        pool = next(c for c in status["tree"]["children"] if c["id"] == "browser-pool")
        assert pool["launches"] == 0 and status["restarts"] == {}


async def test_a_flooded_session_answers_everything_and_its_neighbour_is_not_held_up(
        tmp_path: Path, pages_url: str) -> None:
    async with raw_server(tmp_path / "ws", "eval") as raw:
        for session in ("busy", "calm"):
            assert (await raw.call_tool("open_session", {"session": session}, within=60) or {}).get("ok")
            assert (await raw.call_tool("navigate", {"url": f"{pages_url}/e2e_app.html", "session": session},
                                        within=60) or {}).get("ok")
        flood: list[dict[str, Any] | None] = []
        calm: list[float] = []

        async def busy_call(i: int) -> None:
            tool, args = (("snapshot", {}), ("eval_js", {"expr": f"{i} * 2"}), ("list_tabs", {}))[i % 3]
            flood.append(await raw.call_tool(tool, {**args, "session": "busy"}, within=120))

        async def calm_calls() -> None:
            for _ in range(5):
                started = trio.current_time()
                envelope = await raw.call_tool("eval_js", {"expr": "1", "session": "calm"}, within=60)
                assert envelope is not None and envelope["ok"], envelope
                calm.append(trio.current_time() - started)

        async with trio.open_nursery() as nursery:
            for i in range(150):  # more than the session's mailbox holds: backpressure
                nursery.start_soon(busy_call, i)
            nursery.start_soon(calm_calls)
        assert len(flood) == 150 and None not in flood
        assert all(envelope["ok"] for envelope in flood if envelope is not None), Counter(
            e.get("code") for e in flood if e is not None)
        assert len(calm) == 5


@asynccontextmanager
async def _daemon_socket() -> AsyncIterator[tuple[Path, trio.SocketListener]]:
    folder = Path(tempfile.mkdtemp(prefix="bx-op-", dir="/tmp"))  # Unix socket paths stay short
    path = folder / "op.sock"
    sock = trio.socket.socket(stdlib_socket.AF_UNIX, stdlib_socket.SOCK_STREAM)
    await sock.bind(str(path))
    sock.listen(8)
    try:
        async with trio.SocketListener(sock) as listener:
            yield path, listener
    finally:
        shutil.rmtree(folder, ignore_errors=True)


async def _lines(stream: trio.SocketStream, buffer: bytearray) -> dict[str, Any]:
    with trio.fail_after(30):
        while b"\n" not in buffer:
            data = await stream.receive_some(65536)
            if not data:
                raise EOFError
            buffer += data
    line, _, rest = bytes(buffer).partition(b"\n")
    buffer[:] = rest
    message: dict[str, Any] = json.loads(line)
    return message


_GARBAGE = [
    b"not json", b"\xff\xfe", b"[1,2]", b'{"v":2,"type":"hello"}', b'{"v":1}',
    b'{"v":1,"type":"human.done","ticket":"\\ud800","value":1}',
    b'{"v":1,"type":"human.abort","ticket":"\\udfff","reason":"\\ud800"}',
    b'{"v":1,"type":"view.start","session":"\\ud800"}',
    b'{"v":1,"type":"human.done","ticket":' + b"9" * 5000 + b"}",
    b'{"v":1,"type":"human.done","ticket":"x","value":' + b"[" * 3000 + b"]" * 3000 + b"}",
    b'{"v":1,"type":"shell.exec"}', b'{"v":1,"type":"human.done","ticket":"nope","value":1}',
]


async def test_a_daemon_flooding_garbage_and_dropping_costs_only_its_own_link(tmp_path: Path) -> None:
    async with _daemon_socket() as (path, listener):
        extra = {"BROWX_OPERATOR_SOCKET": str(path), "BROWX_OPERATOR_TOKEN": TOKEN}
        async with raw_server(tmp_path / "ws", "operator-channel", extra_env=extra) as raw:
            for _ in range(5):  # a burst of garbage, then the daemon drops the link
                with trio.fail_after(30):
                    stream = await listener.accept()
                buffer = bytearray()
                await stream.send_all(json.dumps({"v": 1, "type": "hello", "token": TOKEN}).encode() + b"\n")
                assert (await _lines(stream, buffer))["type"] == "ready"
                for line in _GARBAGE * 20:
                    await stream.send_all(line + b"\n")
                errors = [await _lines(stream, buffer) for _ in range(len(_GARBAGE) * 20)]
                assert {e["type"] for e in errors} == {"error"}
                await stream.aclose()
            with trio.fail_after(30):
                stream = await listener.accept()
            buffer = bytearray()
            await stream.send_all(json.dumps({"v": 1, "type": "hello", "token": TOKEN}).encode() + b"\n")
            assert (await _lines(stream, buffer))["type"] == "ready"
            answered: list[dict[str, Any] | None] = []

            async def ask(raw: RawStdio) -> None:
                answered.append(await raw.call_tool("await_human", {"prompt": "Still there?"}, within=60))

            async with trio.open_nursery() as nursery:
                nursery.start_soon(ask, raw)
                prompt = await _lines(stream, buffer)
                assert prompt["type"] == "human.prompt"
                await stream.send_all(json.dumps({"v": 1, "type": "human.done", "ticket": prompt["ticket"],
                                                  "value": None}).encode() + b"\n")
            assert answered[0] is not None and answered[0]["ok"] is True, answered
            status = await raw.call_tool("runtime_status", within=30)
            assert status is not None
            operator = next(c for c in status["tree"]["children"] if c["id"] == "operator-channel")
            assert operator["connected"] is True and operator["links"] == 6
            assert status["restarts"] == {}
