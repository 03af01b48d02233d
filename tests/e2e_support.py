"""Helpers for the end-to-end suite: loopback page servers, the real server over stdio.

- :func:`serve_pages` runs a ``ThreadingHTTPServer`` for ``tests/pages`` on 127.0.0.1
  (the ``pages_url`` / ``pages_url2`` fixtures give two, on different ports, for two
  origins); ``/status/NNN`` answers with that status and an empty body.
- :func:`browx_server` starts ``python -m browx_actors serve`` as a subprocess through
  the MCP SDK's stdio client (``Client(StdioServerParameters(...))``) with the given
  capabilities and ``BROWX_WORKSPACE``, and yields the connected client.
- :func:`call` calls a tool and returns its envelope, after checking that the envelope
  is the same in the first text content and in ``structured_content`` and that
  ``is_error`` agrees with ``ok``. Every raw text the client received is kept in
  :data:`Transcript` objects so a test can scan everything an agent saw.
- :func:`recording_server` is a stdio transport of our own for the shutdown test: it
  keeps the server's exit code and how long it took to leave after stdin closed, which
  the SDK's transport keeps to itself (it also kills the server's process group after
  two seconds, which would hide a slow shutdown).
"""

from __future__ import annotations

import base64
import contextlib
import functools
import http.server
import json
import os
import re
import struct
import subprocess
import sys
import threading
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path
from typing import Any, TextIO
from urllib.parse import urlsplit

import anyio
import attrs
import mcp.types as types
import pytest
import trio
from mcp.client import Client
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.shared.message import SessionMessage

from polling import poll_until

PAGES = Path(__file__).with_name("pages")
REPO = Path(__file__).resolve().parent.parent
#: The pinned npm packages (``peers/package.json``), served under ``/node_modules/`` beside
#: the pages, so a page can load a real library's files without a copy in the repository.
NODE_MODULES = REPO / "peers" / "node_modules"

# -- loopback page servers ------------------------------------------------------------


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass

    def end_headers(self) -> None:
        self.send_header("Cache-Control", "no-store")
        super().end_headers()

    def do_GET(self) -> None:
        # /status/NNN answers with that status and no body (a 204 navigates nowhere).
        if self.path.startswith("/status/") and self.path[8:].isdigit():
            self.send_response(int(self.path[8:]))
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        super().do_GET()

    def translate_path(self, path: str) -> str:
        if path.startswith("/node_modules/"):
            rest = super().translate_path(path[len("/node_modules"):])
            return str(NODE_MODULES / Path(rest).relative_to(self.directory))
        return super().translate_path(path)


#: What a page reads back of a storage state: its cookie and one localStorage item.
STORAGE_READ = "({cookie: document.cookie, kept: localStorage.getItem('kept')})"


def write_storage_state(workspace: Path, origin: str) -> str:
    """A storage-state file as storage_state_save writes it (a cookie and ``origin``'s
    localStorage item ``kept``); its workspace-relative path."""
    host = urlsplit(origin).hostname
    state = {"cookies": [{"name": "who", "value": "ada", "domain": host, "path": "/", "expires": -1,
                          "httpOnly": False, "secure": False, "sameSite": "Lax"}],
             "origins": [{"origin": origin, "localStorage": [{"name": "kept", "value": "from-file"}]}]}
    (workspace / "state").mkdir(parents=True, exist_ok=True)
    (workspace / "state" / "login.json").write_text(json.dumps(state))
    return "state/login.json"


@contextmanager
def serving(server: http.server.HTTPServer, scheme: str = "http") -> Iterator[str]:
    """Run ``server`` (bound to 127.0.0.1) on a daemon thread; yields its base URL, and
    shuts it down on the way out. What every test server here shares."""
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"{scheme}://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


@contextmanager
def serve_pages(directory: Path = PAGES) -> Iterator[str]:
    """An HTTP server on 127.0.0.1 for ``directory``; yields its base URL."""
    handler = functools.partial(_QuietHandler, directory=str(directory))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    with serving(server) as url:
        yield url


@pytest.fixture
def pages_url() -> Iterator[str]:
    with serve_pages() as url:
        yield url


@pytest.fixture
def pages_url2() -> Iterator[str]:
    """A second origin (another port) serving the same pages."""
    with serve_pages() as url:
        yield url


# -- the server over the SDK's stdio client -------------------------------------------


def worktree_pythonpath() -> str:
    """PYTHONPATH for a child that must import this checkout's package (the shared
    venv's editable install points at another one)."""
    return os.pathsep.join(p for p in (str(REPO), os.environ.get("PYTHONPATH")) if p)


def server_env(workspace: Path, capabilities: str = "", extra: dict[str, str] | None = None) -> dict[str, str]:
    env = {
        "BROWX_WORKSPACE": str(workspace),
        "BROWX_CAPABILITIES": capabilities,
        "PYTHONPATH": worktree_pythonpath(),
    }
    for key in ("BROWX_CHROMIUM", "TMPDIR", "LANG", "LC_ALL"):
        if key in os.environ:
            env[key] = os.environ[key]
    env.update(extra or {})
    return env


def server_params(workspace: Path, capabilities: str = "", extra_args: tuple[str, ...] = (),
                  env: dict[str, str] | None = None) -> StdioServerParameters:
    return StdioServerParameters(
        command=sys.executable,
        args=["-m", "browx_actors", "serve", *extra_args],
        env=server_env(workspace, capabilities, env),
        cwd=str(workspace),
    )


@attrs.define
class Transcript:
    """Every raw JSON text and image the client received, in order."""

    texts: list[str] = attrs.Factory(list)
    structured: list[str] = attrs.Factory(list)
    images: list[bytes] = attrs.Factory(list)

    def everything(self) -> str:
        return "\n".join(self.texts + self.structured)


@asynccontextmanager
async def browx_server(workspace: Path, capabilities: str = "", *extra_args: str,
                       env: dict[str, str] | None = None, errlog: TextIO | None = None) -> AsyncIterator[Client]:
    """The real server in a subprocess (``serve`` plus ``extra_args``, ``env`` over the
    usual variables), connected through the SDK's stdio client; ``errlog``: a file that
    gets the server's stderr (its log), where a test can read it."""
    workspace.mkdir(parents=True, exist_ok=True)
    failure: Exception | None = None
    params = server_params(workspace, capabilities, extra_args, env)
    server = params if errlog is None else stdio_client(params, errlog=errlog)
    async with Client(server, read_timeout_seconds=150) as client:  # type: ignore[arg-type]
        client.transcript = Transcript()  # type: ignore[attr-defined]
        try:
            yield client
        except Exception as exc:
            # Re-raised after the client has left, so a failed assertion reads as
            # itself rather than nested in the SDK's task-group exception groups.
            failure = exc
    if failure is not None:
        raise failure


async def call_result(client: Client, tool: str, args: dict[str, Any] | None = None) -> types.CallToolResult:
    """The raw tool result, recorded in the client's transcript."""
    result = await client.call_tool(tool, {} if args is None else args)
    transcript: Transcript | None = getattr(client, "transcript", None)
    if transcript is not None:
        for item in result.content:
            if isinstance(item, types.TextContent):
                transcript.texts.append(item.text)
            elif isinstance(item, types.ImageContent):
                transcript.images.append(base64.b64decode(item.data))
        if result.structured_content is not None:
            transcript.structured.append(json.dumps(result.structured_content, ensure_ascii=False))
    return result


async def call(client: Client, tool: str, args: dict[str, Any] | None = None) -> dict[str, Any]:
    """Call ``tool`` and return its envelope (checked for consistency)."""
    result = await call_result(client, tool, args)
    return envelope_of(result)


def envelope_of(result: types.CallToolResult) -> dict[str, Any]:
    assert result.content, "a tool result without content"
    first = result.content[0]
    assert isinstance(first, types.TextContent), f"first content is {first.type}, not the JSON envelope"
    envelope = json.loads(first.text)
    assert isinstance(envelope, dict) and "ok" in envelope, envelope
    assert result.structured_content == envelope, "structured_content differs from the text envelope"
    assert result.is_error is (envelope["ok"] is not True), (result.is_error, envelope)
    if envelope["ok"] is not True:
        assert isinstance(envelope.get("code"), str) and isinstance(envelope.get("error"), str), envelope
    return envelope


async def ok(client: Client, tool: str, args: dict[str, Any] | None = None) -> dict[str, Any]:
    """Call ``tool`` and insist it succeeded."""
    envelope = await call(client, tool, args)
    assert envelope["ok"] is True, f"{tool} {args} failed: {envelope}"
    return envelope


async def eval_value(client: Client, expr: str, session: str = "default") -> Any:
    """What ``expr`` evaluates to in the session's current page (``eval_js``; the eval capability)."""
    return (await ok(client, "eval_js", {"expr": expr, "session": session}))["value"]


async def page_ready(client: Client, session: str = "default") -> None:
    """Until the page says it has loaded its libraries (``<body data-ready="yes">``, as
    the real-library test pages do once their widgets are built)."""
    async def loaded() -> bool:
        return bool(await eval_value(client, "document.body.dataset.ready || ''", session) == "yes")

    await poll_until(loaded, interval=0.05)


async def fails(client: Client, tool: str, args: dict[str, Any] | None, code: str) -> dict[str, Any]:
    """Call ``tool`` and insist it failed with ``code``."""
    envelope = await call(client, tool, args)
    assert envelope["ok"] is False and envelope["code"] == code, f"{tool} {args}: {envelope}"
    return envelope


# -- images ---------------------------------------------------------------------------

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
JPEG_MAGIC = b"\xff\xd8\xff"


def png_size(data: bytes) -> tuple[int, int]:
    assert data[:8] == PNG_MAGIC, data[:8]
    assert data[12:16] == b"IHDR"
    width, height = struct.unpack(">II", data[16:24])
    return width, height


def jpeg_size(data: bytes) -> tuple[int, int]:
    """Width and height from the first start-of-frame marker."""
    assert data[:3] == JPEG_MAGIC, data[:3]
    i = 2
    while i < len(data):
        assert data[i] == 0xFF, f"bad JPEG marker at {i}"
        marker = data[i + 1]
        if marker in (0xD8, 0x01) or 0xD0 <= marker <= 0xD7:
            i += 2
            continue
        length = struct.unpack(">H", data[i + 2:i + 4])[0]
        if marker in (0xC0, 0xC1, 0xC2, 0xC3, 0xC5, 0xC6, 0xC7, 0xC9, 0xCA, 0xCB, 0xCD, 0xCE, 0xCF):
            height, width = struct.unpack(">HH", data[i + 5:i + 9])
            return width, height
        i += 2 + length
    raise AssertionError("no SOF marker in the JPEG")


def images_of(result: types.CallToolResult) -> list[tuple[str, bytes]]:
    return [
        (item.mime_type, base64.b64decode(item.data))
        for item in result.content
        if isinstance(item, types.ImageContent)
    ]


# -- processes ------------------------------------------------------------------------


def cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""


def process_alive(pid: int) -> bool:
    """True while ``pid`` exists and is not a zombie."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    state = stat.rsplit(")", 1)[1].split()[0]
    return state not in ("Z", "X")


def processes_matching(needle: str) -> list[int]:
    """Live pids whose command line contains ``needle``."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit() and needle in cmdline(int(entry.name)) and process_alive(int(entry.name)):
            found.append(int(entry.name))
    return found


def user_data_dir_of(pid: int) -> str:
    for arg in cmdline(pid).split(" "):
        if arg.startswith("--user-data-dir="):
            return arg
    raise AssertionError(f"pid {pid} has no --user-data-dir: {cmdline(pid)!r}")


async def wait_until_gone(pids: list[int], seconds: float = 10) -> list[int]:
    """Wait for the pids to leave; returns those still alive after ``seconds``."""
    with trio.move_on_after(seconds):
        await poll_until(lambda: not any(process_alive(p) for p in pids), interval=0.05)
    return [p for p in pids if process_alive(p)]


# -- a recording stdio transport (exit code, exit time, stderr) -----------------------


@attrs.define
class Recording:
    pid: int | None = None
    stderr: bytes = b""
    returncode: int | None = None
    exit_seconds: float | None = None
    """From closing the server's stdin to the process having exited by itself."""


@asynccontextmanager
async def recording_server(workspace: Path, capabilities: str, record: Recording,
                           *extra_args: str) -> AsyncIterator[Any]:
    """A stdio transport for ``Client`` that closes stdin at the end and waits (up to
    20 s) for the server to leave on its own, keeping its exit code (``serve`` gets
    ``extra_args``; the server's environment is this process's plus the test's)."""
    workspace.mkdir(parents=True, exist_ok=True)
    read_send, read_recv = anyio.create_memory_object_stream[SessionMessage | Exception](0)
    write_send, write_recv = anyio.create_memory_object_stream[SessionMessage](0)
    env = {**os.environ, **server_env(workspace, capabilities)}
    process = await trio.lowlevel.open_process(
        [sys.executable, "-m", "browx_actors", "serve", *extra_args], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, env=env, cwd=str(workspace),
    )
    record.pid = process.pid
    assert process.stdin is not None and process.stdout is not None and process.stderr is not None
    stdin, stdout, stderr = process.stdin, process.stdout, process.stderr
    stdin_closed = trio.Event()

    async def pump_stdout() -> None:
        buffer = b""
        delivering = True
        async with read_send:
            async for chunk in stdout:
                *lines, buffer = (buffer + chunk).split(b"\n")
                for line in lines:
                    if not delivering or not line.strip():
                        continue
                    try:
                        item: SessionMessage | Exception = SessionMessage(
                            types.jsonrpc_message_adapter.validate_json(line, by_name=False)
                        )
                    except ValueError as exc:
                        item = exc
                    try:
                        await read_send.send(item)
                    except (anyio.BrokenResourceError, anyio.ClosedResourceError):
                        delivering = False

    async def pump_stdin() -> None:
        try:
            async with stdin, write_recv:
                async for message in write_recv:
                    line = message.message.model_dump_json(by_alias=True, exclude_unset=True) + "\n"
                    await stdin.send_all(line.encode())
        finally:
            stdin_closed.set()

    async def drain_stderr() -> None:
        record.stderr = b"".join([chunk async for chunk in stderr])

    async with trio.open_nursery() as nursery:
        nursery.start_soon(pump_stdout)
        nursery.start_soon(pump_stdin)
        nursery.start_soon(drain_stderr)
        try:
            yield read_recv, write_send
        finally:
            write_send.close()
            await stdin_closed.wait()
            started = trio.current_time()
            with trio.move_on_after(20):
                await process.wait()
            if process.returncode is None:
                process.kill()
                await process.wait()
            else:
                record.exit_seconds = trio.current_time() - started
            record.returncode = process.returncode


async def session_actor(runtime: Any, session_id: str = "default") -> Any:
    """The session's actor object, for white-box tests: asked of the actor itself,
    through its mailbox (the runtime holds refs only)."""

    async def itself(session: Any, args: dict[str, Any]) -> Any:
        return session

    return await runtime.call_session(session_id, "session_actor", itself, {}, timeout=60)


# -- raw JSON-RPC lines over a server's stdio ------------------------------------------


@attrs.define(eq=False)
class RawStdio:
    """A server process spoken to in raw lines: what a fuzzer or a broken client sends.

    :meth:`request` writes one line and waits (``within`` seconds) for the answer with
    the same id; any number of tasks may wait at once (a reader task sorts the answers
    by id). :attr:`received` keeps every line the server wrote, in order.
    """

    process: trio.Process
    answers: dict[Any, dict[str, Any]] = attrs.Factory(dict)
    arrived: dict[Any, trio.Event] = attrs.Factory(dict)
    next_id: int = 1000
    received: list[bytes] = attrs.Factory(list)
    _write_lock: trio.Lock = attrs.Factory(trio.Lock)

    def _event(self, request_id: Any) -> trio.Event:
        return self.arrived.setdefault(request_id, trio.Event())

    def deliver(self, line: bytes) -> None:
        self.received.append(line)
        message = json.loads(line)
        if "id" in message and ("result" in message or "error" in message):
            self.answers[message["id"]] = message
            self._event(message["id"]).set()

    async def send_line(self, line: bytes) -> None:
        assert self.process.stdin is not None
        async with self._write_lock:
            await self.process.stdin.send_all(line.rstrip(b"\n") + b"\n")

    async def answer(self, request_id: Any, within: float) -> dict[str, Any] | None:
        """The answer to ``request_id`` if it comes within ``within`` seconds, else None."""
        with trio.move_on_after(within):
            await self._event(request_id).wait()
        self.arrived.pop(request_id, None)
        return self.answers.pop(request_id, None)

    async def request(self, method: str, params: dict[str, Any] | None = None, *, within: float = 10,
                      raw_params: bytes | None = None) -> dict[str, Any] | None:
        self.next_id += 1
        request_id = self.next_id
        self._event(request_id)
        body = raw_params if raw_params is not None else json.dumps(params or {}).encode()
        await self.send_line(b'{"jsonrpc":"2.0","id":%d,"method":"%s","params":%s}' % (
            request_id, method.encode(), body))
        return await self.answer(request_id, within)

    async def initialize(self) -> None:
        answer = await self.request("initialize", {
            "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}},
            within=60)
        assert answer is not None and "result" in answer, answer
        await self.send_line(b'{"jsonrpc":"2.0","method":"notifications/initialized"}')

    async def call_tool(self, name: str, arguments: dict[str, Any] | None = None, *, raw_arguments: bytes | None = None,
                        within: float = 10) -> dict[str, Any] | None:
        """The tool's envelope (``structuredContent``), or the JSON-RPC answer when it is
        an error, or None when nothing came within ``within`` seconds."""
        args = raw_arguments if raw_arguments is not None else json.dumps(arguments or {}).encode()
        answer = await self.request("tools/call", raw_params=b'{"name":%s,"arguments":%s}' % (
            json.dumps(name).encode(), args), within=within)
        if answer is None or "error" in answer:
            return answer
        return dict(answer["result"]["structuredContent"])


@asynccontextmanager
async def raw_stdio(command: list[str], *, env: dict[str, str] | None = None,
                    cwd: str | None = None, stderr: Path | None = None) -> AsyncIterator[RawStdio]:
    """Run ``command`` and talk to it in raw JSON-RPC lines; closes stdin at the end and
    waits (up to 10 s) for it to leave, then kills it. ``stderr``: a file that keeps what
    the process wrote there (a chaos test that fails leaves the server's log behind)."""
    if env is None:
        env = {**os.environ, "PYTHONPATH": worktree_pythonpath()}
    sink = subprocess.DEVNULL if stderr is None else open(stderr, "wb")  # noqa: ASYNC230, SIM115  # closed below
    try:
        process = await trio.lowlevel.open_process(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                                   stderr=sink, env=env, cwd=cwd)
    finally:
        if stderr is not None:
            sink.close()  # type: ignore[union-attr]  # the child holds its own descriptor now
    raw = RawStdio(process)

    async def pump() -> None:
        assert process.stdout is not None
        buffer = b""
        async for chunk in process.stdout:
            *complete, buffer = (buffer + chunk).split(b"\n")
            for line in complete:
                if line.strip():
                    raw.deliver(line)

    async with trio.open_nursery() as nursery:
        nursery.start_soon(pump)
        try:
            yield raw
        finally:
            assert process.stdin is not None
            with trio.CancelScope(shield=True):
                with contextlib.suppress(trio.BrokenResourceError, trio.ClosedResourceError):
                    await process.stdin.aclose()
                with trio.move_on_after(10):
                    await process.wait()
                if process.returncode is None:
                    process.kill()
                    await process.wait()
            nursery.cancel_scope.cancel()


@asynccontextmanager
async def raw_server(workspace: Path, capabilities: str = "", *, tmpdir: Path | None = None,
                     extra_env: dict[str, str] | None = None) -> AsyncIterator[RawStdio]:
    """The real server (``python -m browx_actors serve``) in raw lines, initialized.
    ``tmpdir`` becomes its TMPDIR, where its browser profiles go."""
    workspace.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, **server_env(workspace, capabilities), **(extra_env or {})}
    if tmpdir is not None:
        tmpdir.mkdir(parents=True, exist_ok=True)
        env["TMPDIR"] = str(tmpdir)
    # The server's stderr beside its workspace, in the test's tmp_path: kept when a test fails.
    stderr = workspace.parent / f"{workspace.name}-server-stderr.log"
    async with raw_stdio([sys.executable, "-m", "browx_actors", "serve"], env=env, cwd=str(workspace),
                         stderr=stderr) as raw:
        await raw.initialize()
        yield raw


def snapshot_line(snapshot: str, needle: str) -> str:
    """The one snapshot line that contains ``needle``."""
    lines = [line for line in snapshot.splitlines() if needle in line]
    assert len(lines) == 1, (needle, snapshot)
    return lines[0].strip()


def ref_of(line: str) -> str:
    """The ref a snapshot line gives."""
    match = re.search(r"\[ref=(e\d+)\]", line)
    assert match, line
    return match.group(1)
