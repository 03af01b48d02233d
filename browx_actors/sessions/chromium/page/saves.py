"""The session's side of downloads: each one Playwright reports saved into the workspace
(on the Playwright thread), and the new ones listed in the result of the call that
started them. The records and the filename rules are :mod:`.downloads`.
"""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING

from playwright.async_api import Download as PlaywrightDownload

from ....tools import Reply
from ..network.redact import redact_url
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
    try:
        path = session.downloads.place(record, session.workspace)
        await download.save_as(path)
        record.size = path.stat().st_size
        record.state = "completed"
    except Exception as exc:  # canceled, failed in the browser, or the tab went away
        failure = None
        with contextlib.suppress(Exception):
            failure = await download.failure()
        record.state = "canceled" if failure == "canceled" else "failed"
        record.failure = failure or (str(exc).strip().splitlines() or [type(exc).__name__])[0]
    finally:
        session.page_moved.fire()


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
