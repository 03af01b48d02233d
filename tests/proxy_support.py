"""A forward HTTP proxy for tests that answers every request itself: a page naming the
absolute URL it was asked for, so a page the browser loads through it says so. With
credentials it answers 407 until the request carries them (Basic)."""

from __future__ import annotations

import base64
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from e2e_support import serving

__all__ = ["serve_proxy"]


@contextmanager
def serve_proxy(username: str | None = None, password: str | None = None) -> Iterator[str]:
    """``http://127.0.0.1:port`` of a proxy running until the block ends."""
    wanted = None if username is None else "Basic " + base64.b64encode(f"{username}:{password}".encode()).decode()

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            if wanted is not None and self.headers.get("Proxy-Authorization") != wanted:
                self.send_response(407)
                self.send_header("Proxy-Authenticate", 'Basic realm="browx"')
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            body = f"<!doctype html><title>proxied</title><p id=asked>{self.path}</p>".encode()
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    with serving(ThreadingHTTPServer(("127.0.0.1", 0), Handler)) as url:
        yield url
