"""Downloads on firefox: saved into the workspace as chromium saves them, from BiDi's events.

At start the session tells Firefox to save its user context's downloads into a private
staging folder (``browser.setDownloadBehavior``); ``browsingContext.downloadWillBegin``
opens a record (chromium's :class:`~...chromium.page.downloads.Downloads`: ids, safe
names, the newest records kept) and ``downloadEnd`` closes it: a complete file is moved
into ``<workspace>/downloads/<session>/`` under a free, safe name through the workspace
chokepoint; a canceled one is recorded so. BiDi cannot stop a download under way, so
the cap (``BROWX_DOWNLOAD_MAX_BYTES``) is kept at the end: a file over it is deleted
from the staging folder, never copied, and its record says why. An action that started
downloads lists them (``downloads``), as on chromium, once they ended or
:data:`~...chromium.page.downloads.DOWNLOAD_WAIT_S` passed; ``downloads_list`` (in
:mod:`.handlers`) lists them all.
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path

import trio

from ....jsonsafe import JsonObject
from ....policy.confirm import DOWNLOAD, ConfirmPolicy
from ....tools import Reply
from ...chromium.page.downloads import DOWNLOAD_WAIT_S, Download, Downloads
from ..host import FirefoxHost

__all__ = ["FirefoxDownloads"]


class FirefoxDownloads:
    """One session's downloads: the records, the staging folder, the ones under way."""

    def __init__(self, folder: Path, max_bytes: int,
                 confirm: Callable[[], ConfirmPolicy] = ConfirmPolicy) -> None:
        self.book = Downloads(folder, max_bytes)
        #: The confirm rules in force: a download rule needs a person, and firefox has
        #: no human channel, so such a download never reaches the workspace.
        self._confirm = confirm
        self.staging = Path(tempfile.mkdtemp(prefix="browx-firefox-downloads-"))
        #: Records begun and not ended yet, oldest first, by URL and context.
        self._running: list[tuple[str, str, Download]] = []
        self.changed = trio.Event()

    async def enable(self, session: FirefoxHost) -> None:
        await session.bidi.send("browser.setDownloadBehavior", {
            "downloadBehavior": {"type": "allowed", "destinationFolder": str(self.staging)},
            "userContexts": [session.user_context]})

    def began(self, context: str, tab: int | None, params: JsonObject) -> None:
        url = str(params.get("url") or "")
        record = self.book.begin(url, str(params.get("suggestedFilename") or "download"), tab)
        self._running.append((context, url, record))
        self._poke()

    def ended(self, session: FirefoxHost, context: str, params: JsonObject) -> None:
        url = str(params.get("url") or "")
        found = next((entry for entry in self._running if entry[0] == context and entry[1] == url), None)
        if found is None:
            return
        self._running.remove(found)
        record = found[2]
        if params.get("status") != "complete" or not isinstance(params.get("filepath"), str):
            record.state, record.failure = "canceled", "canceled"
            self._poke()
            return
        session.nursery.start_soon(self._keep, session.workspace, record, Path(str(params["filepath"])))

    async def _keep(self, workspace: Path, record: Download, staged: Path) -> None:
        """Move a finished download into the workspace (or drop it, over the cap)."""
        try:
            size = (await trio.to_thread.run_sync(staged.stat)).st_size
            if size > self.book.max_bytes:
                await trio.to_thread.run_sync(lambda: staged.unlink(missing_ok=True))
                record.state, record.failure = "canceled", self.book.over_cap_failure(size)
                return
            rules = self._confirm().covering(DOWNLOAD)
            if rules:  # fails closed: nobody can be asked
                await trio.to_thread.run_sync(lambda: staged.unlink(missing_ok=True))
                record.state = "canceled"
                record.failure = (f"confirm rule {rules[0].text!r} needs a person, and firefox has no human "
                                  "channel")
                return
            target = self.book.place(record, workspace)
            await trio.to_thread.run_sync(shutil.move, str(staged), str(target))
            record.size, record.state = size, "completed"
        except (OSError, ValueError) as err:  # the workspace refused the place, or the file went
            record.state, record.failure = "failed", str(err)
            record.path = record.relative = None
        finally:
            self._poke()

    def _poke(self) -> None:
        self.changed.set()
        self.changed = trio.Event()

    async def listed_since(self, last_id: int, reply: Reply, tool: str) -> None:
        """The downloads a call started, once each ended or the wait is over (``downloads``)."""
        with trio.move_on_after(DOWNLOAD_WAIT_S):
            while any(d.state == "in-progress" for d in self.book.since(last_id)):
                await self.changed.wait()
        new = self.book.since(last_id)
        if not new:
            return
        reply["downloads"] = [d.describe() for d in new]
        for record in new:
            if record.state == "in-progress":
                reply.warn(f"the {tool} started download d{record.id} ({record.suggested}); downloads_list shows "
                           "when it has finished")

    def close(self) -> None:
        shutil.rmtree(self.staging, ignore_errors=True)
