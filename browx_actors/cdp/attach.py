"""Attaching to a browser someone else runs: a remote Chrome, a fleet (browserless, a
grid's CDP endpoint), Chrome on a phone through adb's forward.

A fleet's URL carries credentials (a ``?token=``): they go with every lookup and every
socket, and out of every message. An endpoint that starts a new browser for every
websocket, as browserless' root does, is opened once per attach: Playwright reaches the
browser through :mod:`.relay`, over that one socket.
"""

from __future__ import annotations

import urllib.parse

import httpx

from ..credentials import redact_url
from .protocol import CdpEndpointError
from .transport import rejected_message

__all__ = ["Headers", "resolve_attach_endpoint"]

#: HTTP headers every lookup and socket to an attached browser carries (``--cdp-header``).
Headers = tuple[tuple[str, str], ...]

_UNROUTABLE_HOSTS = frozenset({"0.0.0.0", "::", "[::]"})


async def resolve_attach_endpoint(endpoint: str, *, headers: Headers = (), timeout: float = 10.0) -> str:
    """The browser websocket URL for ``endpoint``.

    A ``ws://``/``wss://`` URL is returned as is. An ``http(s)://host:port`` base (a
    remote Chrome, browserless, a grid's CDP endpoint) is asked for ``/json/version``,
    with the endpoint's query (a fleet's ``?token=``), and its ``webSocketDebuggerUrl``
    is returned, carrying that query when it has none of its own; if it names a bind-all
    address (``0.0.0.0``), the host we reached it on is substituted. Messages name the
    endpoint with its credentials redacted.
    """
    parts = urllib.parse.urlsplit(endpoint)
    if parts.scheme in ("ws", "wss") and parts.netloc:
        return endpoint
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise CdpEndpointError(
            f"CDP endpoint {endpoint!r} is neither a ws:// (wss://) browser URL nor an "
            "http:// (https://) DevTools base such as http://127.0.0.1:9222"
        )
    version_url = urllib.parse.urlunsplit(
        (parts.scheme, parts.netloc, parts.path.rstrip("/") + "/json/version", parts.query, "")
    )
    shown = redact_url(version_url)
    try:
        async with httpx.AsyncClient(timeout=timeout, headers=list(headers)) as client:
            response = await client.get(version_url)
    except httpx.TimeoutException as exc:  # said with its bound: --cdp-timeout raises it for a slow fleet
        raise CdpEndpointError(f"no DevTools endpoint answers at {shown} within {timeout:g} s "
                               f"({type(exc).__name__}; --cdp-timeout sets the bound)") from exc
    except httpx.HTTPError as exc:
        raise CdpEndpointError(f"no DevTools endpoint answers at {shown}: {type(exc).__name__}") from exc
    if response.status_code >= 400:
        raise CdpEndpointError(rejected_message(version_url, response.status_code))
    try:
        ws_url = response.json()["webSocketDebuggerUrl"]
    except (ValueError, KeyError, TypeError) as exc:
        raise CdpEndpointError(f"could not read webSocketDebuggerUrl from {shown}: {exc!r}") from exc
    if not isinstance(ws_url, str) or not ws_url.startswith(("ws://", "wss://")):
        raise CdpEndpointError(
            f"{shown} gave webSocketDebuggerUrl {redact_url(str(ws_url))!r}, not a websocket URL"
        )
    reported = urllib.parse.urlsplit(ws_url)
    if parts.query and not reported.query:  # the fleet's token, for the socket too
        reported = reported._replace(query=parts.query)
        ws_url = urllib.parse.urlunsplit(reported)
    if reported.hostname in _UNROUTABLE_HOSTS and parts.hostname:
        host = parts.hostname if ":" not in parts.hostname else f"[{parts.hostname}]"
        netloc = f"{host}:{reported.port}" if reported.port else host
        ws_url = urllib.parse.urlunsplit(reported._replace(netloc=netloc))
    return ws_url

