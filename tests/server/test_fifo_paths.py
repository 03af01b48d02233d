"""Paths that never complete: a named pipe (or a socket, or a link to a pipe) given to
a tool that reads or writes a workspace file.

Before the fix, ``screenshot``, ``pdf_save``, ``storage_state_save`` and
``storage_state_load`` given a pipe opened it and waited for its other end: the call
never answered, every later call on that session timed out behind it at 120 s (even
one with a plain file), and the server did not exit when its stdin closed until
something opened the pipe. Each path argument of each such tool is now refused at once
with ``bad-arg`` naming the field and saying what the path is, nothing waits on the
pipe, and the session answers its next call. The real server over stdio, real Chromium.
"""

from __future__ import annotations

import os
import socket
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
import trio
from mcp.client import Client

from e2e_support import Recording, browx_server, call, fails, ok, recording_server

pytestmark = pytest.mark.chromium

#: A hang guard, not a timing: before the fix these calls never answered.
HANG = 60

#: Each tool and path argument that names a workspace file, with the rest of its arguments.
WRITERS = [("screenshot", "path", {}), ("screenshot_region", "path", {"x": 0, "y": 0, "width": 20, "height": 20}),
           ("pdf_save", "path", {}), ("storage_state_save", "path", {})]
READERS = [("storage_state_load", "path", {}), ("upload_file", "paths", {"selector": "#cv"})]
#: What each special path is, in the refusal's words.
KINDS = {"pipe": "a named pipe", "link-to-pipe": "a named pipe", "sock": "a socket"}


@contextmanager
def _special_paths(workspace: Path) -> Iterator[None]:
    """A pipe, a link to it and a socket in the workspace (and in a sub-folder)."""
    (workspace / "sub").mkdir(parents=True, exist_ok=True)
    held = []
    for folder in (workspace, workspace / "sub"):
        os.mkfifo(folder / "pipe")
        os.symlink("pipe", folder / "link-to-pipe")
        sock = socket.socket(socket.AF_UNIX)
        sock.bind(str(folder / "sock"))
        held.append(sock)
    try:
        yield
    finally:
        for sock in held:
            sock.close()


def _argument(field: str, path: str) -> Any:
    return [path] if field == "paths" else path


async def _refused(client: Client, tool: str, field: str, path: str, extra: dict[str, Any]) -> dict[str, Any]:
    with trio.fail_after(HANG):
        refused = await fails(client, tool, {**extra, field: _argument(field, path)}, "bad-arg")
    assert refused["field"] == field, (tool, path, refused)
    return refused


async def test_a_pipe_or_socket_is_refused_at_once_and_the_session_serves_on(tmp_path: Path, pages_url: str) -> None:
    workspace = tmp_path / "ws"
    with _special_paths(workspace):
        async with browx_server(workspace, "storage") as client:
            await ok(client, "navigate", {"url": f"{pages_url}/page_form.html"})
            for tool, field, extra in WRITERS + READERS:
                for path, kind in KINDS.items():
                    for where in (path, f"sub/{path}"):
                        refused = await _refused(client, tool, field, where, extra)
                        label = "paths[0]" if field == "paths" else field
                        assert refused["error"] == f"{label} is {kind}, not a regular file", (tool, where, refused)
                # The session answers a plain call at once, with a plain file.
                with trio.fail_after(HANG):
                    shot = await ok(client, "screenshot", {"path": f"after-{tool}.png"})
                assert Path(shot["path"]).read_bytes().startswith(b"\x89PNG")
            # A folder is no file to read either; the writers already said so.
            for tool, field, extra in READERS:
                refused = await _refused(client, tool, field, "sub", extra)
                assert "is a folder, not a regular file" in refused["error"], refused
            # Plain files still go both ways.
            await ok(client, "storage_state_save", {"path": "state.json"})
            await ok(client, "storage_state_load", {"path": "state.json"})
            (workspace / "cv.txt").write_text("curriculum vitae")
            uploaded = await ok(client, "upload_file", {"selector": "#cv", "paths": ["cv.txt"]})
            assert uploaded["files"] == ["cv.txt"]
            await ok(client, "verify_text", {"selector": "#chosen", "text": "cv cv.txt:16", "exact": True})
    # Nothing ever opened the pipes: they are pipes still, and nothing was written through them.
    for folder in (workspace, workspace / "sub"):
        assert (folder / "pipe").is_fifo() and not (folder / "pipe.png").exists()


async def test_the_server_exits_when_stdin_closes_with_a_pipe_in_the_workspace(tmp_path: Path) -> None:
    """Before the fix the screenshot's thread waited on the pipe: the session could not
    stop, and the server outlived its stdin until the transport killed it."""
    workspace = tmp_path / "ws"
    record = Recording()
    refused: dict[str, Any] | None = None
    with _special_paths(workspace):
        async with Client(recording_server(workspace, "", record)) as client:
            with trio.move_on_after(HANG):
                refused = await call(client, "screenshot", {"path": "pipe"})
    assert record.returncode == 0, record.stderr.decode(errors="replace")[-3000:]
    assert refused is not None and (refused["code"], refused["field"]) == ("bad-arg", "path"), refused
    assert b"Traceback" not in record.stderr, record.stderr.decode(errors="replace")[-3000:]
