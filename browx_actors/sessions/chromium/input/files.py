"""Files in and out of the page: ``upload_file`` and ``downloads_list``.

``upload_file`` gives a file input (by ref or selector) files from the workspace, and
only from there: each path goes through the workspace chokepoint, so ``..``, absolute
paths and symlinks that leave it are refused with one message that does not say
whether anything exists outside, and a path that is no regular file (a folder, a named
pipe the browser would wait on forever, a socket) is refused naming what it is. A
target that is no file input but opens a file chooser when clicked (a styled "Choose
file" button in front of a hidden input) gets the files through the chooser. Like every
action it reports what changed.

Downloads a page starts are saved into the workspace by the session (see
:mod:`.page.downloads`); the call that started one lists it (``downloads``), and
``downloads_list`` shows them all.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from playwright.async_api import Error as PlaywrightError

from ....errors import ToolError
from ....tools import Reply
from ....tools.actions import UploadFileArgs
from ....tools.page import DownloadsListArgs
from ....workspace import file_to_read
from .actions import ACTION_TIMEOUT_MS, run_action

if TYPE_CHECKING:
    from ..session import ChromiumSession

__all__ = ["downloads_list", "upload_file", "workspace_files"]

#: Playwright's words for a target that is not a file input.
_NOT_FILE_INPUT = ("not an HTMLInputElement", "not an input element", "Node is not an")


def workspace_files(workspace: Path, paths: list[str]) -> list[Path]:
    """Each path as a file inside the workspace; ``bad-arg`` naming the one that is not."""
    return [file_to_read(workspace, relative, field="paths", label=f"paths[{i}]") for i, relative in enumerate(paths)]


async def upload_file(session: ChromiumSession, args: UploadFileArgs) -> Reply:
    files = [str(p) for p in workspace_files(session.workspace, args.paths)]

    # Any: an Act's page and locator (see actions.Act).
    async def act(page: Any, locator: Any) -> None:
        try:
            await locator.set_input_files(files, timeout=ACTION_TIMEOUT_MS)
            return
        except PlaywrightError as err:
            message = str(err)
            if "Non-multiple file input" in message:
                raise ToolError("bad-arg", f"the input takes one file, not {len(files)}", field="paths") from err
            if not any(words in message for words in _NOT_FILE_INPUT):
                raise
        async with page.expect_file_chooser(timeout=ACTION_TIMEOUT_MS) as chooser:
            await locator.click(timeout=ACTION_TIMEOUT_MS)
        await (await chooser.value).set_files(files, timeout=ACTION_TIMEOUT_MS)

    reply = await run_action(session, "upload_file", args, act)
    reply["files"] = [Path(f).name for f in files]
    return reply


async def downloads_list(session: ChromiumSession, args: DownloadsListArgs) -> Reply:
    records = list(session.downloads.records)
    if args.details:
        return Reply.of(downloads=[r.describe() for r in records], count=len(records))
    return Reply.of(downloads=[r.line() for r in records], count=len(records))


