"""Files in and out of the page: ``upload_file`` and ``downloads_list``.

``upload_file`` gives a file input (by ref or selector) files from the workspace, and
only from there: each path goes through the workspace chokepoint, so ``..``, absolute
paths and symlinks that leave it are refused with one message that does not say
whether anything exists outside. A target that is no file input but opens a file
chooser when clicked (a styled "Choose file" button in front of a hidden input) gets the
files through the chooser. Like every action it reports what changed.

Downloads a page starts are saved into the workspace by the session (see
:mod:`.downloads`); the call that started one lists it (``downloads``), and
``downloads_list`` shows them all.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from playwright.async_api import Error as PlaywrightError

from ...errors import ToolError
from ...tools import Args, Param, Reply, session_tool
from ...workspace import resolve_in_workspace
from ..params import ELEMENT, ONE_ELEMENT
from .actions import ACTION_TIMEOUT_MS, run_action
from .session import ChromiumSession

__all__ = ["TOOLS", "downloads_list", "upload_file", "workspace_files"]

#: Playwright's words for a target that is not a file input.
_NOT_FILE_INPUT = ("not an HTMLInputElement", "not an input element", "Node is not an")


def workspace_files(workspace: Path, paths: list[str]) -> list[Path]:
    """Each path as a file inside the workspace; ``bad-arg`` naming the one that is not."""
    files = []
    for i, relative in enumerate(paths):
        path = resolve_in_workspace(workspace, relative, field="paths")
        if not path.is_file():
            raise ToolError("bad-arg", f"paths[{i}] is not a file in the workspace", field="paths")
        files.append(path)
    return files


@session_tool(
    "upload_file", "action",
    "Give a file input (ref or selector) files from the workspace; a button that opens a file chooser works too. "
    "Reports what changed, like every action.",
    params=(*ELEMENT,
            Param("paths", "array", "Files under the workspace, e.g. uploads/cv.pdf.", required=True, items="string",
                  min_items=1, max_items=20)),
    rules=(ONE_ELEMENT,),
)
async def upload_file(session: ChromiumSession, args: Args) -> Reply:
    files = [str(p) for p in workspace_files(session.workspace, args["paths"])]

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


@session_tool(
    "downloads_list", "read",
    "The session's downloads, saved into the workspace under downloads/<session>/: one line each "
    "(`dN state name size path from url`), or whole with `details`.",
    params=(Param("details", "boolean", "Each download as an object.", default=False),),
)
async def downloads_list(session: ChromiumSession, args: Args) -> Reply:
    records = list(session.downloads.records)
    if args["details"]:
        return Reply.of(downloads=[r.describe() for r in records], count=len(records))
    return Reply.of(downloads=[r.line() for r in records], count=len(records))


TOOLS = [upload_file, downloads_list]
