"""The workspace chokepoint refuses what is not a regular file, before opening it.

Pure: no browser. A named pipe opened for reading or writing waits for its other end,
so a tool given one blocked its session for good (and the server's shutdown with it);
a socket, a device or a folder is no file either. Each kind of path is checked against
each entry of the chokepoint: what it refuses says what the path is and names the field,
and a pipe swapped in after the check (the open itself) is refused without blocking.
"""

from __future__ import annotations

import os
import socket
import stat
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
import trio

from browx_actors.errors import ToolError
from browx_actors.workspace import (
    copy_file,
    file_to_read,
    file_to_write,
    kind_of,
    load_file,
    read_file,
    save_file,
    write_file,
)

#: A hang guard, not a timing: before the fix, these opens never returned.
HANG = 30


@pytest.fixture
def workspace(tmp_path: Path) -> Iterator[Path]:
    """A workspace holding one path of each kind."""
    root = tmp_path / "ws"
    root.mkdir()
    (root / "regular.txt").write_bytes(b"plain")
    (root / "folder").mkdir()
    os.mkfifo(root / "pipe")
    os.symlink("pipe", root / "link-to-pipe")
    held = socket.socket(socket.AF_UNIX)
    held.bind(str(root / "sock"))
    try:
        yield root
    finally:
        held.close()


def _refusal(call: Callable[[], object]) -> ToolError:
    with pytest.raises(ToolError) as caught:
        call()
    return caught.value


@pytest.mark.parametrize(("kind", "words"), [
    (stat.S_IFREG, None), (stat.S_IFDIR, "a folder"), (stat.S_IFIFO, "a named pipe"), (stat.S_IFSOCK, "a socket"),
    (stat.S_IFCHR, "a character device"), (stat.S_IFBLK, "a block device"), (stat.S_IFLNK, "a symbolic link"),
])
def test_kind_of_names_what_is_not_a_regular_file(kind: int, words: str | None) -> None:
    assert kind_of(kind | 0o644) == words


@pytest.mark.parametrize(("name", "words"), [
    ("pipe", "path is a named pipe, not a regular file"),
    ("link-to-pipe", "path is a named pipe, not a regular file"),
    ("sock", "path is a socket, not a regular file"),
    ("folder", "path is a folder, not a regular file"),
    ("missing.txt", "path is not a file in the workspace"),
])
def test_a_file_to_read_is_a_regular_file(workspace: Path, name: str, words: str) -> None:
    refused = _refusal(lambda: file_to_read(workspace, name))
    assert (refused.code, refused.details["field"], refused.message) == ("bad-arg", "path", words)
    assert file_to_read(workspace, "regular.txt") == workspace.resolve() / "regular.txt"
    labelled = _refusal(lambda: file_to_read(workspace, name, field="paths", label="paths[1]"))
    assert labelled.details["field"] == "paths" and labelled.message.startswith("paths[1] ")


def test_an_app_bundle_may_be_a_folder_but_never_a_pipe(workspace: Path) -> None:
    assert file_to_read(workspace, "folder", field="apkPath", folders=True) == workspace.resolve() / "folder"
    assert file_to_read(workspace, "regular.txt", field="apkPath", folders=True).name == "regular.txt"
    refused = _refusal(lambda: file_to_read(workspace, "pipe", field="apkPath", folders=True))
    assert (refused.details["field"], refused.message) == ("apkPath", "apkPath is a named pipe, not a regular file")
    missing = _refusal(lambda: file_to_read(workspace, "none.app", field="apkPath", folders=True))
    assert missing.message == "apkPath is not a file or folder in the workspace"


@pytest.mark.parametrize(("name", "words"), [
    ("pipe", "path is a named pipe, not a regular file"),
    ("link-to-pipe", "path is a named pipe, not a regular file"),
    ("sock", "path is a socket, not a regular file"),
    ("folder", "path must name a file, not a folder"),
])
def test_a_file_to_write_is_new_or_a_regular_file(workspace: Path, name: str, words: str) -> None:
    refused = _refusal(lambda: file_to_write(workspace, name))
    assert (refused.code, refused.details["field"], refused.message) == ("bad-arg", "path", words)
    assert file_to_write(workspace, "regular.txt") == workspace.resolve() / "regular.txt"
    assert file_to_write(workspace, "new/missing.txt") == workspace.resolve() / "new" / "missing.txt"


async def test_a_pipe_swapped_in_after_the_check_blocks_no_write(workspace: Path) -> None:
    """write_file is handed a path file_to_write passed; a pipe put there since, with a
    reader or without, is refused at the open and keeps what it had."""
    target = file_to_write(workspace, "shot.png")
    os.mkfifo(target)
    with trio.fail_after(HANG):
        refused = await trio.to_thread.run_sync(lambda: _refusal(lambda: write_file(target, b"png")),
                                                abandon_on_cancel=True)
    assert (refused.details["field"], refused.message) == ("path", "path is a named pipe, not a regular file")
    reader = os.open(target, os.O_RDONLY | os.O_NONBLOCK)  # a reader waiting on the pipe
    try:
        with trio.fail_after(HANG):
            again = await trio.to_thread.run_sync(lambda: _refusal(lambda: write_file(target, b"png")),
                                                  abandon_on_cancel=True)
        assert again.message == "path is a named pipe, not a regular file"
        assert os.read(reader, 16) == b"", "nothing was written into the pipe"
    finally:
        os.close(reader)
    for name, words in (("sock", "path is a socket, not a regular file"),
                        ("folder", "path must name a file, not a folder")):
        refused = _refusal(lambda name=name: write_file(workspace.resolve() / name, b"x"))  # type: ignore[misc]
        assert (refused.code, refused.message) == ("bad-arg", words)


async def test_a_pipe_swapped_in_after_the_check_blocks_no_read(workspace: Path) -> None:
    source = file_to_read(workspace, "regular.txt")
    source.unlink()
    os.mkfifo(source)
    with trio.fail_after(HANG):
        refused = await trio.to_thread.run_sync(lambda: _refusal(lambda: read_file(source)),
                                                abandon_on_cancel=True)
    assert (refused.details["field"], refused.message) == ("path", "path is a named pipe, not a regular file")
    with trio.fail_after(HANG):
        with pytest.raises(ToolError) as caught:
            await load_file(workspace / "sock", field="paths", label="paths[0]")
    assert caught.value.message == "paths[0] is a socket, not a regular file"


async def test_regular_files_are_written_read_and_replaced_whole(workspace: Path) -> None:
    target = file_to_write(workspace, "out/shot.png")
    await save_file(target, b"a longer first version")
    await save_file(target, b"short")
    assert target.read_bytes() == b"short", "a regular file is emptied before it is written"
    assert await load_file(target) == b"short"
    too_big = _refusal(lambda: read_file(target, max_bytes=3))
    assert (too_big.code, too_big.message) == ("bad-arg", "path is 5 bytes; at most 3 are read")
    missing = _refusal(lambda: read_file(workspace / "gone.txt", field="path"))
    assert missing.message == "path is not a file in the workspace"


def test_a_copy_stops_at_its_cap_and_leaves_nothing(workspace: Path, tmp_path: Path) -> None:
    source = tmp_path / "artifact"
    source.write_bytes(b"x" * 1000)
    target = file_to_write(workspace, "downloads/s/a.bin")
    assert copy_file(source, target, field="download", max_bytes=1000) == 1000
    assert target.read_bytes() == b"x" * 1000
    over = file_to_write(workspace, "downloads/s/b.bin")
    refused = _refusal(lambda: copy_file(source, over, field="download", max_bytes=999))
    assert (refused.code, refused.details["field"], refused.details["sizeBytes"]) == ("too-large", "download", 1000)
    assert not over.exists()
    os.mkfifo(over)
    with pytest.raises(ToolError) as caught:
        copy_file(source, over, field="download", max_bytes=None)
    assert caught.value.message == "download is a named pipe, not a regular file"
