"""open_session's ``permissions`` on firefox: granted to each origin the session's pages go to.

WebDriver BiDi grants a permission for one origin (``permissions.setPermission``), and a
session opens on none, so the grant follows the pages: once for every new http(s)
origin, in the session's user context. ``navigate`` (and ``new_tab`` with a URL, which
goes through it) grants before it loads the URL (:meth:`OriginGrants.before`), so the
page's first script sees the permission; a navigation the page starts itself (a link,
a redirect, a frame) is granted when Firefox reports it starting
(``browsingContext.navigationStarted``, :meth:`OriginGrants.seen`), which is before
its response in practice but not ordered with it. ``emulate`` changes permissions for
the current page's origin only, as before, and does not change these.
"""

from __future__ import annotations

import contextlib

import trio

from ...bidi import BidiConnection, BidiFailure
from ...origins import origin_of

__all__ = ["OriginGrants", "origin_of"]


class OriginGrants:
    """The permissions a session opened with, and the origins that have them."""

    def __init__(self, bidi: BidiConnection, user_context: str, names: tuple[str, ...], nursery: trio.Nursery) -> None:
        self.bidi = bidi
        self.user_context = user_context
        self.names = names
        self.nursery = nursery
        #: Origins granted, or being granted.
        self.origins: set[str] = set()

    async def before(self, url: str) -> None:
        """Grant them to ``url``'s origin before it loads (a refusal is Firefox's to say, on the page)."""
        origin = origin_of(url)
        if origin is not None and origin not in self.origins:
            self.origins.add(origin)
            await self._grant(origin)

    def seen(self, url: str) -> None:
        """A navigation to ``url`` started (the socket's reader: no waiting)."""
        origin = origin_of(url)
        if origin is not None and origin not in self.origins:
            self.origins.add(origin)
            self.nursery.start_soon(self._grant, origin)

    async def _grant(self, origin: str) -> None:
        for name in self.names:
            with contextlib.suppress(BidiFailure):  # a name Firefox does not know, or the browser going
                await self.bidi.send("permissions.setPermission", {
                    "descriptor": {"name": name}, "state": "granted", "origin": origin,
                    "userContext": self.user_context})
