"""MCP over Streamable HTTP: many clients, one runtime, one browser pool.

The SDK's session manager speaks the transport (one MCP session per client, by its
``Mcp-Session-Id``); Hypercorn serves it on Trio. Around it, :class:`Gateway` does what
the SDK leaves to the server:

- every request passes :func:`~.http_gate.refusal` first (token, Origin, Host);
- each MCP session is a client with its own namespace of browx sessions
  (``clients.py``): its calls run as that client, so it lists, drives and closes only
  its own sessions;
- a client's sessions close when it ends its MCP session (``DELETE``) or has had no
  request in flight for the idle timeout, the same rule the SDK ends its MCP session by.

The tools, the dispatch and the results are the stdio server's (``mcp_stdio.build_server``).
"""

from __future__ import annotations

import json
import logging
import sys
from collections.abc import Awaitable, Callable, Iterator, Sequence
from contextlib import contextmanager

import attrs
import trio
from hypercorn.config import Config as HypercornConfig
from hypercorn.trio import serve as hypercorn_serve
from mcp.server import ServerRequestContext
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from mcp_types import UNSUPPORTED_PROTOCOL_VERSION
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS
from starlette.types import Message, Receive, Scope, Send

from .. import clients
from ..jsonsafe import JsonObject
from .http_gate import HttpOptions, refusal
from .mcp_stdio import Call, Lifespan, ToolSpec, build_server

__all__ = ["ClientBook", "Gateway", "serve_http"]

log = logging.getLogger(__name__)

#: Where the MCP endpoint is.
PATH = "/mcp"
_SESSION_HEADER = "mcp-session-id"
_VERSION_HEADER = "mcp-protocol-version"


@attrs.define
class _Client:
    id: str
    in_flight: int = 0
    #: When its last request ended (``trio.current_time()``); None while none has.
    last_seen: float | None = None
    #: Whether the SDK ever served a request of this session (an id it does not know
    #: is answered 404, and is then no client at all).
    accepted: bool = False


@attrs.define
class ClientBook:
    """The HTTP clients by MCP session id: each one's short id, and how long it has
    been idle. Given the time, never reads a clock."""

    _clients: dict[str, _Client] = attrs.field(factory=dict)
    _next: int = 1

    def client(self, session_id: str | None) -> str | None:
        """The short id of the client holding MCP session ``session_id``."""
        if session_id is None:
            return None
        known = self._clients.get(session_id)
        if known is None:
            known = self._clients[session_id] = _Client(f"c{self._next}")
            self._next += 1
        return known.id

    def begin(self, session_id: str) -> None:
        self.client(session_id)
        self._clients[session_id].in_flight += 1

    def end(self, session_id: str, now: float, *, accepted: bool = True) -> None:
        """A request of the session ended; ``accepted`` when the SDK served it. An id
        the SDK never served is forgotten once nothing of it is in flight, so ids made
        up by a client cannot fill the book."""
        known = self._clients.get(session_id)
        if known is None:
            return
        known.in_flight = max(0, known.in_flight - 1)
        known.last_seen = now
        known.accepted = known.accepted or accepted
        if not known.accepted and known.in_flight == 0:
            del self._clients[session_id]

    def idle(self, now: float, timeout: float) -> list[str]:
        """The MCP sessions with nothing in flight for ``timeout`` seconds."""
        return [sid for sid, c in self._clients.items()
                if c.in_flight == 0 and c.last_seen is not None and now - c.last_seen >= timeout]

    def forget(self, session_id: str) -> str | None:
        """Drop the MCP session; its client's id, for closing what it left open."""
        known = self._clients.pop(session_id, None)
        return None if known is None else known.id


@attrs.define
class Gateway:
    """The ASGI application: the gate, the client book, then the SDK's transport."""

    manager: StreamableHTTPSessionManager
    options: HttpOptions
    book: ClientBook
    #: Closes what a client left open (``Runtime.close_client``), started in ``nursery``.
    close_client: Callable[[str], Awaitable[object]]
    nursery: trio.Nursery

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await _lifespan(receive, send)
            return
        if scope["type"] != "http":
            return
        headers = {key.decode("latin-1").lower(): value.decode("latin-1") for key, value in scope["headers"]}
        refused = refusal(headers, self.options)
        if refused is None and scope["path"].rstrip("/") != PATH:
            refused = 404, f"the MCP endpoint is {PATH}"
        if refused is not None:
            await _answer(send, *refused)
            return
        version = headers.get(_VERSION_HEADER)
        if version is not None and version not in HANDSHAKE_PROTOCOL_VERSIONS:
            await _answer_json(send, 400, unsupported_era(await _body(receive), version))
            return
        session_id = headers.get(_SESSION_HEADER)
        if session_id is None:
            await self.manager.handle_request(scope, receive, send)
            return
        self.book.begin(session_id)
        status = 0

        async def sending(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            await send(message)

        try:
            await self.manager.handle_request(scope, receive, sending)
        finally:
            self.book.end(session_id, trio.current_time(), accepted=0 < status < 400)
            if scope["method"] == "DELETE":
                self.release(session_id)

    def release(self, session_id: str) -> None:
        """The client of MCP session ``session_id`` is gone: close its sessions."""
        client = self.book.forget(session_id)
        if client is not None:
            self.nursery.start_soon(self._close, client)

    async def _close(self, client: str) -> None:
        try:
            closed = await self.close_client(client)
            log.info("client %s gone; closed its sessions %s", client, closed)
        except Exception:
            log.exception("closing the sessions of client %s failed", client)

    async def reap(self) -> None:
        """Release the clients idle for the timeout, checking a few times per timeout."""
        timeout = self.options.idle_timeout
        while True:
            await trio.sleep(min(timeout / 4, 30.0))
            for session_id in self.book.idle(trio.current_time(), timeout):
                self.release(session_id)


async def _lifespan(receive: Receive, send: Send) -> None:
    while True:
        message = await receive()
        if message["type"] == "lifespan.startup":
            await send({"type": "lifespan.startup.complete"})
        elif message["type"] == "lifespan.shutdown":
            await send({"type": "lifespan.shutdown.complete"})
            return


def unsupported_era(body: bytes, requested: str) -> JsonObject:
    """The answer to a request of the sessionless protocol era (``2026-07-28``): its
    versions are refused, naming the handshake ones, so a client falls back to
    ``initialize`` and an ``Mcp-Session-Id``, which is what tells one client's
    sessions from another's."""
    try:
        request = json.loads(body)
        request_id = request.get("id") if isinstance(request, dict) else None
    except ValueError:
        request_id = None
    return {"jsonrpc": "2.0", "id": request_id, "error": {
        "code": UNSUPPORTED_PROTOCOL_VERSION,
        "message": f"protocol version {requested} is not served here: each client needs a session of its own",
        "data": {"supported": list(HANDSHAKE_PROTOCOL_VERSIONS), "requested": requested}}}


async def _body(receive: Receive, limit: int = 1 << 20) -> bytes:
    chunks: list[bytes] = []
    size = 0
    while True:
        message = await receive()
        chunk = message.get("body", b"")
        size += len(chunk)
        if size <= limit:
            chunks.append(chunk)
        if not message.get("more_body"):
            return b"".join(chunks)


async def _answer(send: Send, status: int, reason: str) -> None:
    await _answer_json(send, status, {"jsonrpc": "2.0", "id": None, "error": {"code": -32600, "message": reason}})


async def _answer_json(send: Send, status: int, answer: JsonObject) -> None:
    body = json.dumps(answer).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    if status == 401:
        headers.append((b"www-authenticate", b"Bearer"))
    start: Message = {"type": "http.response.start", "status": status, "headers": headers}
    await send(start)
    await send({"type": "http.response.body", "body": body})


@contextmanager
def _acting(book: ClientBook, ctx: ServerRequestContext[Lifespan]) -> Iterator[None]:
    """Run the call as the client whose MCP session its HTTP request names."""
    request = ctx.request
    headers = getattr(request, "headers", None)
    with clients.acting_for(book.client(None if headers is None else headers.get(_SESSION_HEADER))):
        yield


async def serve_http(
    tools: Sequence[ToolSpec],
    call: Call,
    options: HttpOptions,
    close_client: Callable[[str], Awaitable[object]],
    *,
    instructions: str | None = None,
    task_status: trio.TaskStatus[str] = trio.TASK_STATUS_IGNORED,
) -> None:
    """Serve MCP at ``http://host:port/mcp`` until cancelled; ``task_status`` gets the
    URL it listens on (the port the system chose, for port 0)."""
    book = ClientBook()
    server = build_server(tools, call, instructions=instructions, around=lambda ctx: _acting(book, ctx))
    # JSON responses, not an SSE stream per POST: no tool streams notifications while it
    # runs, and the stream cost about 2 ms a call (benchmarks/http_transport.py).
    manager = StreamableHTTPSessionManager(app=server, session_idle_timeout=options.idle_timeout,
                                           json_response=True)
    config = HypercornConfig()
    config.bind = [f"[{options.host}]:{options.port}" if ":" in options.host else f"{options.host}:{options.port}"]
    config.accesslog = None  # a request line can carry a token in its query; none is logged
    config.errorlog = log
    async with manager.run(), trio.open_nursery() as nursery:
        gateway = Gateway(manager, options, book, close_client, nursery)
        nursery.start_soon(gateway.reap)
        binds = await nursery.start(hypercorn_serve, gateway, config)
        url = f"{binds[0]}{PATH}" if binds else f"http://{options.host}:{options.port}{PATH}"
        print(f"browx-actors: MCP over HTTP at {url}", file=sys.stderr, flush=True)
        task_status.started(url)
