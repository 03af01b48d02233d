"""The operator channel against a test daemon on a real Unix socket.

The daemon here is a ``trio.SocketListener`` on a socket in ``tmp_path``; the server
side is the real :class:`OperatorChannel` actor, run in a nursery (no browser needed:
the channel carries no CDP). The runtime-level test at the end adds real Chromium to
show prompts are routed away from DevTools.
"""

from __future__ import annotations

import json
import socket as stdlib_socket
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
import trio

from browx_actors import RuntimeConfig, open_runtime
from browx_actors.errors import ToolError
from browx_actors.human.await_human import ask_operator
from browx_actors.human.operator import OperatorChannel, OperatorPrompt, OperatorStatus
from browx_actors.human.prompts import PromptSpec
from browx_actors.operator_wire import LineBuffer, Oversized
from e2e_support import session_actor

TOKEN = "op-token-7f3a"
WAIT = 10  # seconds any single step may take before the test fails


class Daemon:
    """One accepted connection, speaking JSON lines."""

    def __init__(self, stream: trio.SocketStream) -> None:
        self.stream = stream
        self.lines = LineBuffer(limit=1 << 20)

    async def send(self, obj: Any) -> None:
        await self.send_raw(json.dumps(obj).encode() + b"\n")

    async def send_raw(self, data: bytes) -> None:
        await self.stream.send_all(data)

    async def hello(self, token: str = TOKEN) -> dict[str, Any]:
        await self.send({"v": 1, "type": "hello", "token": token})
        return await self.recv()

    async def recv(self) -> dict[str, Any]:
        with trio.fail_after(WAIT):
            while True:
                item = self.lines.next()
                if item is not None:
                    assert not isinstance(item, Oversized)
                    message = json.loads(item)
                    assert message["v"] == 1
                    return message
                data = await self.stream.receive_some(65536)
                if not data:
                    raise EOFError("the server closed the connection")
                self.lines.feed(data)

    async def closed(self) -> bool:
        """True once the server has closed its end (after reading anything left)."""
        with trio.fail_after(WAIT):
            while True:
                try:
                    data = await self.stream.receive_some(65536)
                except trio.BrokenResourceError:
                    return True
                if not data:
                    return True
                self.lines.feed(data)


class Socket:
    def __init__(self, listener: trio.SocketListener, path: Path) -> None:
        self.listener = listener
        self.path = path

    async def accept(self) -> Daemon:
        with trio.fail_after(WAIT):
            return Daemon(await self.listener.accept())


@asynccontextmanager
async def daemon_socket(tmp_path: Path) -> AsyncIterator[Socket]:
    path = tmp_path / "op.sock"
    assert len(str(path)) < 100, "Unix socket paths are limited to 107 bytes"
    sock = trio.socket.socket(stdlib_socket.AF_UNIX, stdlib_socket.SOCK_STREAM)
    await sock.bind(str(path))
    sock.listen(8)
    listener = trio.SocketListener(sock)
    async with listener:
        yield Socket(listener, path)


@asynccontextmanager
async def channel(socket: Socket, **options: Any) -> AsyncIterator[OperatorChannel]:
    actor = OperatorChannel(str(socket.path), TOKEN, **options)
    async with trio.open_nursery() as nursery:
        await nursery.start(actor.run)
        yield actor
        nursery.cancel_scope.cancel()


async def linked(socket: Socket) -> Daemon:
    daemon = await socket.accept()
    assert await daemon.hello() == {"v": 1, "type": "ready", "server": "browx-actors"}
    return daemon


class Asker:
    """Runs one ``await_human`` through the operator actor, as the session does."""

    def __init__(self, nursery: trio.Nursery, actor: OperatorChannel, session: str, spec: PromptSpec) -> None:
        self.result: dict[str, Any] | None = None
        self.done = trio.Event()
        nursery.start_soon(self._run, actor, session, spec)

    async def _run(self, actor: OperatorChannel, session: str, spec: PromptSpec) -> None:
        self.result = await ask_operator(actor.ref, session, spec)
        self.done.set()

    async def wait(self) -> dict[str, Any]:
        with trio.fail_after(WAIT):
            await self.done.wait()
        assert self.result is not None
        return self.result


CONFIRM = PromptSpec("confirm", "Send the email?", None, 60_000)
CHOOSE = PromptSpec("choose", "Which account?", ("alice", "bob"), 60_000)


# -- trust --------------------------------------------------------------------------


async def test_a_wrong_token_is_refused_and_hears_nothing_then_the_right_one_is_accepted(tmp_path: Path) -> None:
    async with daemon_socket(tmp_path) as socket, channel(socket) as actor, trio.open_nursery() as nursery:
        asker = Asker(nursery, actor, "default", CONFIRM)  # waiting before any daemon is trusted
        impostor = await socket.accept()
        refusal = await impostor.hello("guess")
        assert refusal["type"] == "error" and refusal["code"] == "bad-hello"
        assert await impostor.closed()
        assert impostor.lines.next() is None  # no prompt ever reached it

        silent = await socket.accept()  # the server redials; this one speaks out of turn
        await silent.send({"v": 1, "type": "human.done", "ticket": "abcdef", "value": True})
        assert (await silent.recv())["code"] == "bad-hello" and await silent.closed()

        daemon = await linked(socket)
        prompt = await daemon.recv()
        assert prompt["type"] == "human.prompt" and prompt["session"] == "default"
        await daemon.send({"v": 1, "type": "human.done", "ticket": prompt["ticket"], "value": True})
        assert await asker.wait() == {"ok": True, "kind": "confirm", "value": True, "timedOut": False}
        status = await actor.ref.call(OperatorStatus())
        assert status["refused"] == 2 and status["connected"] and status["links"] == 1


# -- answers ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("spec", "value"),
    [
        (PromptSpec("acknowledge", "Log in, then proceed", None, 60_000), {"done": "yes"}),
        (CONFIRM, False),
        (CHOOSE, 1),
        (PromptSpec("input", "The SMS code?", None, 60_000), "493817"),
    ],
)
async def test_done_answers_each_kind(tmp_path: Path, spec: PromptSpec, value: Any) -> None:
    async with daemon_socket(tmp_path) as socket, channel(socket) as actor, trio.open_nursery() as nursery:
        daemon = await linked(socket)
        asker = Asker(nursery, actor, "s1", spec)
        prompt = await daemon.recv()
        assert prompt == {"v": 1, "type": "human.prompt", "session": "s1", "ticket": prompt["ticket"],
                          "kind": spec.kind, "prompt": spec.prompt,
                          "choices": None if spec.choices is None else list(spec.choices),
                          "timeoutMs": 60_000}
        await daemon.send({"v": 1, "type": "human.done", "ticket": prompt["ticket"], "value": value})
        assert await asker.wait() == {"ok": True, "kind": spec.kind, "value": value, "timedOut": False}
        assert await daemon.recv() == {"v": 1, "type": "human.ended", "ticket": prompt["ticket"],
                                       "reason": "answered"}


async def test_abort_bad_values_and_unknown_tickets(tmp_path: Path) -> None:
    async with daemon_socket(tmp_path) as socket, channel(socket) as actor, trio.open_nursery() as nursery:
        daemon = await linked(socket)
        asker = Asker(nursery, actor, "s1", CHOOSE)
        ticket = (await daemon.recv())["ticket"]
        await daemon.send({"v": 1, "type": "human.done", "ticket": ticket, "value": 2})
        bad = await daemon.recv()
        assert bad["type"] == "error" and bad["code"] == "bad-value" and bad["ticket"] == ticket
        await daemon.send({"v": 1, "type": "human.done", "ticket": "000000" if ticket != "000000" else "111111",
                           "value": 0})
        assert (await daemon.recv())["code"] == "unknown-ticket"
        await daemon.send({"v": 1, "type": "human.abort", "ticket": ticket, "reason": "the human left"})
        result = await asker.wait()
        assert result["value"] is None and result["timedOut"] is False and result["kind"] == "choose"
        assert result["error"].startswith("operator-aborted") and "the human left" in result["error"]
        assert (await daemon.recv())["reason"] == "aborted"
        # After its end the ticket is dead.
        await daemon.send({"v": 1, "type": "human.done", "ticket": ticket, "value": 0})
        assert (await daemon.recv())["code"] == "unknown-ticket"


async def test_an_unanswered_prompt_times_out_and_the_daemon_hears_it(tmp_path: Path) -> None:
    async with daemon_socket(tmp_path) as socket, channel(socket) as actor, trio.open_nursery() as nursery:
        daemon = await linked(socket)
        asker = Asker(nursery, actor, "s1", PromptSpec("confirm", "Quick?", None, 200))
        ticket = (await daemon.recv())["ticket"]
        assert await asker.wait() == {"ok": True, "kind": "confirm", "value": None, "timedOut": True}
        assert await daemon.recv() == {"v": 1, "type": "human.ended", "ticket": ticket, "reason": "timeout"}


async def test_a_prompt_waits_for_a_daemon_within_its_timeout(tmp_path: Path) -> None:
    async with daemon_socket(tmp_path) as socket, channel(socket) as actor, trio.open_nursery() as nursery:
        asker = Asker(nursery, actor, "s1", CONFIRM)
        await trio.sleep(0.3)
        daemon = await linked(socket)
        ticket = (await daemon.recv())["ticket"]
        await daemon.send({"v": 1, "type": "human.done", "ticket": ticket, "value": True})
        assert (await asker.wait())["value"] is True


async def test_one_prompt_per_session_on_the_daemon_too(tmp_path: Path) -> None:
    async with daemon_socket(tmp_path) as socket, channel(socket) as actor, trio.open_nursery() as nursery:
        daemon = await linked(socket)
        asker = Asker(nursery, actor, "s1", CONFIRM)
        ticket = (await daemon.recv())["ticket"]
        with pytest.raises(ToolError) as busy:
            await actor.ref.call(OperatorPrompt("s1", CHOOSE))
        assert busy.value.code == "human-busy"
        await daemon.send({"v": 1, "type": "human.done", "ticket": ticket, "value": False})
        assert (await asker.wait())["value"] is False


# -- drops and garbage ----------------------------------------------------------------


async def test_a_dropped_socket_ends_prompts_in_flight_and_a_redial_resumes_none(tmp_path: Path) -> None:
    async with daemon_socket(tmp_path) as socket, channel(socket) as actor, trio.open_nursery() as nursery:
        daemon = await linked(socket)
        asker = Asker(nursery, actor, "s1", CONFIRM)
        old_ticket = (await daemon.recv())["ticket"]
        await daemon.stream.aclose()
        with trio.fail_after(2):  # at once, not at the prompt's one-minute timeout
            result = await asker.wait()
        assert result["value"] is None and result["timedOut"] is False
        assert result["error"].startswith("operator-channel-down")

        again = await linked(socket)
        await again.send({"v": 1, "type": "human.done", "ticket": old_ticket, "value": True})
        assert (await again.recv())["code"] == "unknown-ticket"
        fresh = Asker(nursery, actor, "s1", CONFIRM)
        ticket = (await again.recv())["ticket"]
        await again.send({"v": 1, "type": "human.done", "ticket": ticket, "value": True})
        assert (await fresh.wait())["value"] is True


@pytest.mark.parametrize(
    ("line", "code"),
    [
        (b"this is not json\n", "bad-line"),
        (b"\xff\xfe\xfd\n", "bad-line"),
        (b"[1,2,3]\n", "bad-line"),
        (b'{"type":"human.done","ticket":"x","value":1}\n', "bad-version"),
        (b'{"v":1}\n', "bad-message"),
        (b'{"v":1,"type":"shell.exec","cmd":"rm -rf /"}\n', "unknown-type"),
        (b'{"v":1,"type":"hello","token":"op-token-7f3a"}\n', "bad-message"),
        (b'{"v":1,"type":"view.start","session":"default"}\n', "view-disabled"),
        (b'{"v":1,"type":"human.done","value":1}\n', "no-ticket"),
        # A lone surrogate once crashed the channel: its error line echoed the ticket.
        (b'{"v":1,"type":"human.done","ticket":"\\ud800","value":1}\n', "bad-line"),
        (b'{"v":1,"type":"human.abort","ticket":"x","reason":"\\udfff"}\n', "bad-line"),
        (b'{"v":1,"type":"view.start","session":"\\ud800"}\n', "bad-line"),
        (b'{"v":1,"type":"human.done","ticket":' + b"9" * 5000 + b',"value":1}\n', "bad-line"),
        (b'{"v":1,"type":"human.done","ticket":"x","value":' + b"[" * 5000 + b"]" * 5000 + b'}\n', "bad-line"),
    ],
)
async def test_garbage_lines_are_answered_and_the_link_lives_on(tmp_path: Path, line: bytes, code: str) -> None:
    async with daemon_socket(tmp_path) as socket, channel(socket) as actor, trio.open_nursery() as nursery:
        daemon = await linked(socket)
        asker = Asker(nursery, actor, "s1", CHOOSE)
        ticket = (await daemon.recv())["ticket"]
        await daemon.send_raw(line)
        error = await daemon.recv()
        assert error["type"] == "error" and error["code"] == code and isinstance(error["error"], str)
        await daemon.send({"v": 1, "type": "human.done", "ticket": ticket, "value": 0})
        assert (await asker.wait())["value"] == 0


async def test_a_burst_of_hostile_lines_costs_nothing_but_error_lines(tmp_path: Path) -> None:
    """Four such lines in 5 s once exceeded the restart intensity and ended the server."""
    async with daemon_socket(tmp_path) as socket, channel(socket) as actor, trio.open_nursery() as nursery:
        daemon = await linked(socket)
        asker = Asker(nursery, actor, "s1", CONFIRM)
        ticket = (await daemon.recv())["ticket"]
        for _ in range(20):
            await daemon.send_raw(b'{"v":1,"type":"human.done","ticket":"\\ud800","value":1}\n')
            assert (await daemon.recv())["code"] == "bad-line"
        await daemon.send({"v": 1, "type": "human.done", "ticket": ticket, "value": True})
        assert (await asker.wait())["value"] is True
        assert (await actor.ref.call(OperatorStatus()))["links"] == 1


async def test_an_oversized_line_is_answered_then_drops_the_link_and_the_server_redials(tmp_path: Path) -> None:
    async with daemon_socket(tmp_path) as socket, channel(socket) as actor, trio.open_nursery() as nursery:
        daemon = await linked(socket)
        asker = Asker(nursery, actor, "s1", CONFIRM)
        await daemon.recv()
        await daemon.send_raw(b'{"v":1,"type":"human.done","value":"' + b"A" * (70 * 1024) + b'"}\n')
        error = await daemon.recv()
        assert error["code"] == "line-too-long"
        assert await daemon.closed()
        result = await asker.wait()
        assert result["error"].startswith("operator-channel-down")

        again = await linked(socket)
        fresh = Asker(nursery, actor, "s1", CONFIRM)
        ticket = (await again.recv())["ticket"]
        await again.send({"v": 1, "type": "human.done", "ticket": ticket, "value": True})
        assert (await fresh.wait())["value"] is True
        assert actor.ref.alive


async def test_a_withdrawn_prompt_is_ended_for_the_daemon(tmp_path: Path) -> None:
    async with daemon_socket(tmp_path) as socket, channel(socket) as actor:
        daemon = await linked(socket)
        with trio.move_on_after(0.5):  # the asking session goes away
            await ask_operator(actor.ref, "s1", CONFIRM)
        ended = await daemon.recv()
        assert ended["type"] == "human.prompt"
        ended = await daemon.recv()
        assert ended["type"] == "human.ended" and ended["reason"] == "cancelled"
        assert (await actor.ref.call(OperatorStatus()))["pending"] == 0


async def test_a_prompt_too_long_for_one_line_is_refused() -> None:
    async with trio.open_nursery() as nursery:
        actor = OperatorChannel("/nonexistent/op.sock", TOKEN)
        await nursery.start(actor.run)
        long_choices = tuple(f"\u0001{i}" * 100 for i in range(100))
        with pytest.raises(ToolError) as refused:
            await actor.ref.call(OperatorPrompt("s1", PromptSpec("choose", "x", long_choices, 1000)))
        assert refused.value.code == "bad-arg"
        assert (await actor.ref.call(OperatorStatus()))["pending"] == 0
        nursery.cancel_scope.cancel()


# -- in the runtime, next to a real session ---------------------------------------------


def _config(tmp_path: Path, socket: Socket, caps: str = "operator-channel,secrets,eval") -> RuntimeConfig:
    return RuntimeConfig.from_env({
        "BROWX_CAPABILITIES": caps,
        "BROWX_OPERATOR_SOCKET": str(socket.path),
        "BROWX_OPERATOR_TOKEN": TOKEN,
    }, workspace=tmp_path)


def test_the_capability_needs_a_socket_and_a_token(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="BROWX_OPERATOR_SOCKET"):
        RuntimeConfig.from_env({"BROWX_CAPABILITIES": "operator-channel"}, workspace=tmp_path)
    with pytest.raises(ValueError, match=r"live-view .*needs operator-channel"):  # naming both
        RuntimeConfig.from_env({"BROWX_CAPABILITIES": "live-view"}, workspace=tmp_path)


async def test_prompts_go_to_the_daemon_and_devtools_answers_are_ignored(tmp_path: Path) -> None:
    async with daemon_socket(tmp_path) as socket, open_runtime(
        config=_config(tmp_path, socket), capabilities=["operator-channel", "secrets", "eval"]) as runtime:
        ids = runtime.root.child_ids()
        assert ids.index("operator-channel") < ids.index("browser-pool")
        daemon = await linked(socket)
        status = await runtime.call_tool("runtime_status")
        tree = {c["id"]: c for c in status["tree"]["children"]}
        assert list(tree) == ["recorder", "operator-channel", "browser-pool", "firefox-pool", "devices", "sessions"]
        assert tree["operator-channel"]["connected"] is True and tree["operator-channel"]["pending"] == 0
        await runtime.call_tool("register_secret", {"name": "CARD", "value": "4111-1111"})
        session = await session_actor(runtime, "default")
        bridge = session.human
        results: list[dict[str, Any]] = []

        async def ask() -> None:
            results.append(await runtime.call_tool("await_human", {
                "kind": "confirm", "prompt": "Pay with <CARD>?", "timeoutMs": 60_000}))

        async with trio.open_nursery() as nursery:
            nursery.start_soon(ask)
            prompt = await daemon.recv()
            assert prompt["prompt"] == "Pay with <CARD>?"  # masked before it left the server
            # The DevTools route, with the daemon's own ticket: dropped.
            await bridge.wait_until(lambda: bridge.world_context() is not None)
            sent = await session.cdp.send("Runtime.evaluate", {
                "expression": f"__browx.confirm(true, {json.dumps(prompt['ticket'])})",
                "contextId": bridge.world_context()})
            assert sent["result"]["value"] is True  # the helper sent it; the server ignored it
            await trio.sleep(0.3)
            assert not results
            # Another tool on the same session runs while the prompt waits.
            assert (await runtime.call_tool("eval_js", {"expr": "6 * 7"}))["value"] == 42
            await daemon.send({"v": 1, "type": "human.done", "ticket": prompt["ticket"], "value": False})
        assert results == [{"ok": True, "kind": "confirm", "value": False, "timedOut": False}]


async def test_the_runtime_reports_a_dropped_daemon_as_unanswered(tmp_path: Path) -> None:
    async with daemon_socket(tmp_path) as socket, open_runtime(
        config=_config(tmp_path, socket, caps="operator-channel"), capabilities=["operator-channel"]) as runtime:
        daemon = await linked(socket)
        async with trio.open_nursery() as nursery:
            results: list[dict[str, Any]] = []

            async def ask() -> None:
                results.append(await runtime.call_tool("await_human", {"prompt": "Ready?"}))

            nursery.start_soon(ask)
            await daemon.recv()
            await daemon.stream.aclose()
        assert results[0]["error"].startswith("operator-channel-down")
        assert results[0]["kind"] == "acknowledge" and results[0]["value"] is None
        again = await linked(socket)
        async with trio.open_nursery() as nursery:
            nursery.start_soon(ask)
            ticket = (await again.recv())["ticket"]
            await again.send({"v": 1, "type": "human.done", "ticket": ticket, "value": None})
        assert results[1] == {"ok": True, "kind": "acknowledge", "value": None, "timedOut": False}


async def test_a_link_that_keeps_crashing_is_stopped_and_the_server_serves_on(tmp_path: Path,
                                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    """Fault injection: the link actor itself fails again and again (its dial loop
    raises). Its own supervisor gives up after 3 restarts in 5 s; the root, for which
    that supervisor is a temporary child, neither restarts it nor counts it, so the
    rest of the tree serves on and await_human says the channel is unavailable."""
    from browx_actors.human import operator

    def broken(failures: int) -> float:
        raise RuntimeError("a bug in the link")

    monkeypatch.setattr(operator, "redial_delay", broken)
    config = RuntimeConfig.from_env({"BROWX_CAPABILITIES": "operator-channel,eval",
                                     "BROWX_OPERATOR_SOCKET": str(tmp_path / "nobody.sock"),
                                     "BROWX_OPERATOR_TOKEN": TOKEN}, workspace=tmp_path)
    async with open_runtime(config=config, capabilities=["operator-channel", "eval"]) as runtime:
        with trio.fail_after(WAIT):
            await runtime.events.wait_for(lambda e: e.supervisor == "operator" and e.kind == "escalated")
            await runtime.events.wait_for(lambda e: e.supervisor == "runtime" and e.child == "operator-channel"
                                          and e.kind == "exited")
        assert runtime.root.ref.alive
        assert "operator-channel" not in runtime.root.child_ids()
        assert not any(e.kind == "escalated" for e in runtime.events.events if e.supervisor == "runtime")
        refused = await runtime.call_tool("await_human", {"prompt": "Ready?", "timeoutMs": 1000})
        assert (refused["code"], refused["component"]) == ("unavailable", "operator-channel"), refused
        assert (await runtime.call_tool("eval_js", {"expr": "6 * 7"}))["value"] == 42
        status = await runtime.call_tool("runtime_status")
        assert [c["id"] for c in status["tree"]["children"]] == [
            "recorder", "browser-pool", "firefox-pool", "devices", "sessions"]


async def test_a_firefox_session_asks_the_daemon_through_the_operator_channel(tmp_path: Path) -> None:
    # firefox has no isolated world for DevTools answers; the operator channel reaches a person all the same.
    async with daemon_socket(tmp_path) as socket, open_runtime(
            config=_config(tmp_path, socket), capabilities=["operator-channel"]) as runtime:
        daemon = await linked(socket)
        opened = await runtime.call_tool("open_session", {"session": "ff", "engine": "firefox"})
        assert opened["ok"] is True and opened["engine"] == "firefox", opened
        results: list[dict[str, Any]] = []

        async def ask() -> None:
            results.append(await runtime.call_tool("await_human", {
                "session": "ff", "kind": "confirm", "prompt": "Place the order?", "timeoutMs": 60_000}))

        async with trio.open_nursery() as nursery:
            nursery.start_soon(ask)
            prompt = await daemon.recv()
            assert prompt["prompt"] == "Place the order?" and prompt["session"] == "ff"
            await daemon.send({"v": 1, "type": "human.done", "ticket": prompt["ticket"], "value": True})
        assert results == [{"ok": True, "kind": "confirm", "value": True, "timedOut": False}]
