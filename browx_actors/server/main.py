"""``browx-actors serve``: the runtime behind the stdio MCP transport.

The MCP layer gets the catalog's tool specs and the one dispatch function; when the
client goes away (stdin closes) the transport returns and leaving ``open_runtime``
tears the tree down, Chromium included.
"""

from __future__ import annotations

import os
import signal
import sys
from collections.abc import Collection

import trio

from ..config import RuntimeConfig
from ..runtime.tree import Runtime
from .catalog import Catalog
from .embed import open_dispatching_runtime
from .http_gate import HttpOptions
from .mcp_http import serve_http
from .mcp_stdio import ToolSpec, serve_stdio

#: What every tool shares, said once here instead of in each tool's schema (the
#: parameters declared ``shared``, and ``after``).
INSTRUCTIONS = (
    "Browser and app automation. Call snapshot to read the page as text with [ref=eN] refs, then act "
    "with click/fill/press/select by ref. Every result is a JSON envelope with ok, and code + error "
    "when ok is false; a field left out of a result is empty, false or unchanged.\n"
    "Arguments many tools share: session, the session id (default \"default\", which opens itself); "
    "ref, an element ref from snapshot or find (e12, f2e5 inside a frame) or a name given with name_ref; "
    "selector, a Playwright selector (CSS, text=, role=...) when no ref is at hand; coords, a viewport "
    "point {x, y} in CSS pixels. Any tool also takes after: {\"visualTree\": {ui.get_visual_tree "
    "arguments}, \"screenshot\": {screenshot arguments}}, either or both ({} for defaults), captured once "
    "the call has run and returned in the same result's after."
)


def listing(catalog: Catalog, capabilities: Collection[str]) -> list[ToolSpec]:
    """What ``tools/list`` shows: the tools the server's capabilities allow, each with its
    title, its one-line summary, its wire schema and its four hints."""
    return [ToolSpec(t.name, t.summary, t.wire_schema(), title=t.title, hints=t.hints.annotations())
            for t in catalog.listed(capabilities)]


async def serve(config: RuntimeConfig, http: HttpOptions | None = None) -> None:
    """Serve MCP over stdio until the client closes stdin, or over HTTP (``http``) until
    a signal."""
    # The server's own gate is the only gate for MCP clients: the client side allows
    # whatever the server grants.
    async with open_dispatching_runtime(config, config.capabilities) as (runtime, dispatcher):
        specs = listing(dispatcher.catalog, config.capabilities)
        async with trio.open_nursery() as nursery:
            nursery.start_soon(_shutdown_on_signal, runtime)
            if http is None:
                await serve_stdio(specs, dispatcher.dispatch, instructions=INSTRUCTIONS)
            else:
                await serve_http(specs, dispatcher.dispatch, http, runtime.close_client, instructions=INSTRUCTIONS)
            nursery.cancel_scope.cancel()


async def _shutdown_on_signal(runtime: Runtime) -> None:
    """SIGTERM, SIGINT or SIGHUP: stop the tree (Chromium included), then exit.

    The MCP SDK reads stdin in a worker thread that cancellation cannot interrupt, so
    cancelling the transport would wait for the next input line; the runtime is torn
    down directly instead, and the process exits once nothing is left running.
    """
    with trio.open_signal_receiver(signal.SIGTERM, signal.SIGINT, signal.SIGHUP) as signals:
        async for signum in signals:
            await runtime.shutdown(grace=10)
            await runtime.driver.aclose()
            sys.stderr.flush()
            os._exit(128 + signum)
