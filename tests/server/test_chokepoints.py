"""The workspace chokepoint for files tools write, and the encodings masking knows.

Pure: no browser. A file a tool writes must be one the OS can hold and not one the
server keeps for itself; a registered secret is masked in every form a page, a URL or
a request gives it.
"""

from __future__ import annotations

import base64
import json
import os
import urllib.parse
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from browx_actors.errors import ToolError
from browx_actors.secret_book import SecretBook, encodings, mask_deep
from browx_actors.sessions.chromium.page.downloads import Downloads
from browx_actors.workspace import file_to_write, write_file


@pytest.mark.parametrize(("path", "words"), [
    ("a\u0000b.png", "NUL"),
    ("x" * 256 + ".png", "each part is at most 255"),
    ("d/" * 2100 + "x.png", "a path is at most 4,096"),
    (".", "not a folder"), ("", "not a folder"), ("ok/", "not a folder"), ("ok/.", "not a folder"),
    ("a/..", "not a folder"), ("existing", "not a folder"),
    ("diagnostics/s1/x.png", "diagnostics/"), ("diagnostics", "diagnostics/"),
    ("./diagnostics/../diagnostics/x", "diagnostics/"),
    ("../out.png", "inside the workspace"), ("/etc/x.png", "inside the workspace"),
])
def test_a_file_a_tool_writes_must_be_one_the_os_can_hold_and_not_the_servers(tmp_path: Path, path: str,
                                                                                words: str) -> None:
    (tmp_path / "existing").mkdir()
    with pytest.raises(ToolError) as caught:
        file_to_write(tmp_path, path)
    assert (caught.value.code, caught.value.details["field"]) == ("bad-arg", "path")
    assert words in caught.value.message


def test_good_paths_resolve_inside_and_os_refusals_are_bad_arg_without_the_path(tmp_path: Path) -> None:
    target = file_to_write(tmp_path, "shots/one.png")
    write_file(target, b"png")
    assert (tmp_path / "shots" / "one.png").read_bytes() == b"png"
    assert file_to_write(tmp_path, "diagnostics-copy/x.png").parent.name == "diagnostics-copy"
    inner = file_to_write(tmp_path, "shots/one.png/inner.png")
    with pytest.raises(ToolError) as caught:
        write_file(inner, b"x")
    assert caught.value.code == "bad-arg" and "a part of the path is a file" in caught.value.message
    assert str(tmp_path) not in caught.value.message


def test_a_link_out_of_the_workspace_is_refused(tmp_path: Path) -> None:
    os.symlink("/tmp", tmp_path / "out")
    with pytest.raises(ToolError):
        file_to_write(tmp_path, "out/x.png")


def test_downloads_go_through_the_chokepoint(tmp_path: Path) -> None:
    """A download's file is one a tool writes: a ``downloads`` link planted in the
    workspace does not carry the page's file out of it."""
    workspace = tmp_path / "ws"
    outside = tmp_path / "outside"
    workspace.mkdir()
    outside.mkdir()
    downloads = Downloads(workspace.resolve() / "downloads" / "s1")
    placed = downloads.place(downloads.begin("http://x/a.txt", "a.txt", 1), workspace)
    assert placed == workspace.resolve() / "downloads" / "s1" / "a.txt" and placed.parent.is_dir()
    os.rmdir(placed.parent)
    os.rmdir(placed.parent.parent)
    os.symlink(outside, workspace / "downloads")
    with pytest.raises(ToolError) as caught:
        downloads.place(downloads.begin("http://x/b.txt", "b.txt", 1), workspace)
    assert caught.value.code == "bad-arg" and "inside the workspace" in caught.value.message
    assert list(outside.iterdir()) == []


SECRET = 'Pa"ss w0rd/~+&é'


@pytest.mark.parametrize("form", [
    SECRET,
    json.dumps(SECRET)[1:-1],
    json.dumps(SECRET, ensure_ascii=False)[1:-1],
    urllib.parse.quote(SECRET, safe="!'()*-._~"),  # encodeURIComponent
    urllib.parse.quote_plus(SECRET, safe="*").replace("~", "%7E"),  # a form's GET query
    base64.b64encode(SECRET.encode()).decode(),
    base64.urlsafe_b64encode(SECRET.encode()).decode().rstrip("="),
])
def test_every_encoding_of_the_value_is_masked(form: str) -> None:
    assert form in encodings(SECRET)
    assert mask_deep({"text": f"before {form} after"}, [("PW", SECRET)]) == {"text": "before <PW> after"}


def test_two_sessions_with_one_name_have_both_values_masked() -> None:
    book = SecretBook()
    book.register("s1", "PW", "first-value")
    book.register("s2", "PW", "second-value")
    assert book.of("s1") == {"PW": "first-value"} and book.of("s2") == {"PW": "second-value"}
    assert mask_deep(["first-value", "second-value"], book.masks()) == ["<PW>", "<PW>"]
    book.forget("s2")
    assert mask_deep(["first-value", "second-value"], book.masks()) == ["<PW>", "second-value"]


@given(st.text(min_size=3, max_size=20))
def test_masking_any_value_leaves_none_of_its_encodings(value: str) -> None:
    masked = mask_deep(list(encodings(value)), [("X", value)])
    assert all(value not in text for text in masked)
