"""The session's side of downloads: each one Playwright reports saved into the workspace
(on the Playwright thread), and the new ones listed in the result of the call that
started them. The records and the filename rules are :mod:`.downloads`.

Playwright holds a finished download in a folder of its own; the session copies it into
the workspace through the chokepoint (:func:`~browx_actors.workspace.copy_file`, in a
worker thread so the Playwright thread is not held by the disk): the file it writes is
a regular file or nothing, and never larger than the session's download cap. One the
cap cancelled while it arrived (:mod:`.download_cap`) or that is over it when it ends is
``canceled``, with no file, and its ``failure`` says why.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
from typing import TYPE_CHECKING

from playwright.async_api import Download as PlaywrightDownload

from ....errors import ToolError
from ....tools import Reply
from ....workspace import copy_file
from ..network.redact import redact_url
from . import download_confirm
from .downloads import DOWNLOAD_WAIT_S, Download

if TYPE_CHECKING:
    from ..host import SessionHost

__all__ = ["list_new_downloads", "on_download"]


def on_download(session: SessionHost, download: PlaywrightDownload) -> None:
    """Playwright's ``download`` event: record it and save it into the workspace."""
    tab = session.tabs.of_page(download.page)
    record = session.downloads.begin(redact_url(download.url), download.suggested_filename,
                                     None if tab is None else tab.id)
    session.driver.bridge.spawn(_save, session, download, record)
    session.page_moved.fire()


async def _save(session: SessionHost, download: PlaywrightDownload, record: Download) -> None:
    downloads = session.downloads
    try:
        finished = await download.path()  # when the browser has all of it; raises if it failed or was cancelled
        if download_confirm.wanted(session.options) and session.portal is not None:
            refused = await session.portal.run(download_confirm.refusal, session, record.url, record.suggested)
            if refused is not None:  # a confirm rule, and no person's yes: it never reaches the workspace
                _canceled(record, refused)
                with contextlib.suppress(Exception):
                    await download.delete()
                return
        path = downloads.place(record, session.workspace)
        copy = functools.partial(copy_file, finished, path, field="download", max_bytes=downloads.max_bytes)
        record.size = await asyncio.get_running_loop().run_in_executor(None, copy)
        record.state = "completed"
    except ToolError as refused:  # over the cap when it ended, or the workspace refused the file
        size = refused.details.get("sizeBytes")
        if refused.code == "too-large" and isinstance(size, int):
            downloads.cancelled_for_size(download.url)  # the cap caught it too, too late to cancel
            _canceled(record, downloads.over_cap_failure(size))
        else:
            record.state, record.failure = "failed", refused.message
        with contextlib.suppress(Exception):  # nor is it kept in Playwright's folder
            await download.cancel()
            await download.delete()
    except Exception as exc:  # canceled, failed in the browser, or the tab went away
        over = downloads.cancelled_for_size(download.url)
        if over is not None:
            _canceled(record, downloads.over_cap_failure(over))
            return
        failure = None
        with contextlib.suppress(Exception):
            failure = await download.failure()
        record.state = "canceled" if failure == "canceled" else "failed"
        record.failure = failure or (str(exc).strip().splitlines() or [type(exc).__name__])[0]
    finally:
        session.page_moved.fire()


def _canceled(record: Download, why: str) -> None:
    """The record of a download the session would not save: no file is there."""
    record.state = "canceled"
    record.failure = why
    record.path = record.relative = None


async def list_new_downloads(session: SessionHost, reply: Reply, tool: str, last_id: int, begun: int) -> None:
    """A call that started downloads lists them (``downloads``), once Playwright has
    reported each and small ones have finished, or :data:`DOWNLOAD_WAIT_S` passed."""
    expected = session.events.downloads_begun - begun

    def settled() -> bool:
        new = session.downloads.since(last_id)
        return len(new) >= expected and all(d.state != "in-progress" for d in new)

    await session.pw(session.page_moved.wait_until, settled, DOWNLOAD_WAIT_S)
    new = session.downloads.since(last_id)
    reply["downloads"] = [d.describe() for d in new]
    for record in new:
        if record.state == "in-progress":
            reply.warn(f"the {tool} started download d{record.id} ({record.suggested}); downloads_list shows "
                       "when it has finished")
