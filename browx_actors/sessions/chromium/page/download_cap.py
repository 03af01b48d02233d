"""The download cap, enforced while the bytes arrive.

Playwright takes each download into a folder of its own and reports it only when it has
begun; what it has received so far it does not say. The browser does: every event
session with ``Page`` on gets ``Page.downloadWillBegin`` and then
``Page.downloadProgress`` (about twice a second, and at the end) for the downloads of
its page. :class:`DownloadCapTap` is a tap on each of the session's event sessions,
joined to every tab through the wiring's setups (:meth:`DownloadCap.setup`). When a
download's announced size, or the bytes that arrived, go over the cap it notes that
in :class:`~.downloads.Downloads` and cancels it (``Browser.cancelDownload``, in the
background: a tap never waits), so a response of any size never lands whole on the disk.
The session's save of that download then fails as cancelled, and its record says why
(:mod:`.saves`). A download that finished between two progress events is caught there
too: it is never copied into the workspace.
"""

from __future__ import annotations

import contextlib
import logging
from typing import TYPE_CHECKING, Protocol

import trio

from ....cdp import CdpEvent, CdpFailure, TargetLink
from ....jsonsafe import JsonObject
from .downloads import Downloads

if TYPE_CHECKING:
    from ..pool import Browser

__all__ = ["CAP_METHODS", "CapHost", "DownloadCap", "DownloadCapTap"]

log = logging.getLogger("browx_actors.chromium.downloads")

CAP_METHODS = frozenset({"Page.downloadWillBegin", "Page.downloadProgress"})


class CapHost(Protocol):
    """What the cap needs of the session: its downloads, its browser and context (to
    cancel one), and its nursery (to cancel in the background)."""

    downloads: Downloads
    browser: Browser | None

    @property
    def nursery(self) -> trio.Nursery: ...

    @property
    def context_id(self) -> str | None: ...


class DownloadCapTap:
    """The tap on one event session: each download's start and progress into the
    session's :class:`~.downloads.Downloads`; one over the cap is cancelled."""

    methods = CAP_METHODS

    def __init__(self, cap: DownloadCap) -> None:
        self._cap = cap

    def skip(self, method: str, raw: str) -> bool:
        return False

    def on_event(self, event: CdpEvent) -> None:
        params = event.params
        guid = params.get("guid")
        if not isinstance(guid, str):
            return
        downloads = self._cap.host.downloads
        if event.method == "Page.downloadWillBegin":
            downloads.started(guid, str(params.get("url", "")))
            return
        received, total = (_count(params.get(key)) for key in ("receivedBytes", "totalBytes"))
        if downloads.progressed(guid, received, total, str(params.get("state"))):
            self._cap.cancel(guid)


def _count(value: object) -> int:
    """A byte count of the protocol's (a JSON number; anything else is none)."""
    return int(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else 0


class DownloadCap:
    """The session's cap: a :class:`DownloadCapTap` on each of its event sessions."""

    def __init__(self, host: CapHost) -> None:
        self.host = host
        #: Event sessions tapped already (a setup may reach a session twice as it is wired).
        self._tapped: set[str] = set()

    async def setup(self, cdp: TargetLink, kind: str) -> None:
        """A wiring setup (:meth:`~.tabs.wiring.TargetWiring.add_setup`): tap ``cdp``."""
        if cdp.session_id not in self._tapped:
            self._tapped.add(cdp.session_id)
            cdp.tap(DownloadCapTap(self))

    def cancel(self, guid: str) -> None:
        """From the CDP reader: cancel download ``guid`` in the background."""
        with contextlib.suppress(RuntimeError):  # the session is closing: its downloads go with it
            self.host.nursery.start_soon(self._cancel, guid)

    async def _cancel(self, guid: str) -> None:
        browser = self.host.browser
        if browser is None:
            return
        params: JsonObject = {"guid": guid}
        if self.host.context_id is not None:
            params["browserContextId"] = self.host.context_id
        try:
            await browser.cdp.send("Browser.cancelDownload", params)
        except CdpFailure as exc:  # it finished meanwhile: the save refuses to copy it
            log.debug("cancelling download %s: %s", guid, exc)
