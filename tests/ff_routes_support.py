"""A loopback server for the firefox route tests: a page that fetches ``/api/items``
and shows what came back (or the error), and an API that answers with the ``X-Routed``
header it received, so a test sees both what the page got and what the server saw."""

from __future__ import annotations

import http.server
import json
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from typing import Any

import trio

from e2e_support import serving

PAGE = b"""<!doctype html>
<html><head><link rel="icon" href="data:,"><title>Routes</title></head>
<body>
<h1>A page that fetches items</h1>
<button id="get" onclick="get()">Get</button>
<p id="out" role="status"></p>
<script>
  let calls = 0;
  async function get() {
    const n = ++calls;
    const out = document.getElementById('out');
    try {
      const response = await fetch('/api/items?n=' + n);
      out.textContent = 'call ' + n + ' got ' + response.status + ' ' + await response.text();
    } catch (error) {
      out.textContent = 'call ' + n + ' error ' + error.name + ': ' + error.message;
    }
  }
</script>
</body></html>
"""


class _Handler(http.server.BaseHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass

    def do_GET(self) -> None:
        if self.path.startswith("/api/items"):
            body = json.dumps({"from": "server", "routed": self.headers.get("X-Routed", "none")}).encode()
            kind = "application/json"
        else:
            body, kind = PAGE, "text/html; charset=utf-8"
        self.send_response(200)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        self.wfile.write(body)


@contextmanager
def serve_routes_page() -> Iterator[str]:
    """The server on 127.0.0.1; yields the page's URL."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    server.daemon_threads = True
    with serving(server) as url:
        yield f"{url}/page"


async def queued(ask: Callable[[], Awaitable[dict[str, Any]]], count: int, within: float = 5.0) -> dict[str, Any]:
    """``route_queue``'s answer (``ask()``) once it holds ``count`` requests. A click
    answers when its page has settled; the browser reports the request it paused on its
    own schedule (Firefox's network events come from its parent process, not the page),
    so the queue is read until the request is there, within ``within`` seconds."""
    answer = await ask()
    with trio.move_on_after(within):
        while answer["count"] != count:
            await trio.sleep(0.05)
            answer = await ask()
    assert answer["count"] == count, f"route_queue never held {count} request(s) within {within:g} s: {answer}"
    return answer
