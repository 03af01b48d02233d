"""End to end, through the real server over stdio MCP: upload_file from the workspace
only, downloads saved into the workspace (listed by the action and by downloads_list),
and pdf_save."""

from __future__ import annotations

from pathlib import Path

import pytest

from e2e_support import browx_server, fails, ok

pytestmark = pytest.mark.chromium

REPORT = Path(__file__).parents[1] / "pages" / "page_report.csv"


async def test_uploads_downloads_and_pdf(tmp_path: Path, pages_url: str) -> None:
    workspace = tmp_path / "ws"
    (workspace / "uploads").mkdir(parents=True)
    (workspace / "uploads" / "cv.txt").write_text("curriculum vitae")
    (workspace / "uploads" / "a.png").write_bytes(b"\x89PNG" + b"0" * 96)
    (tmp_path / "secret.txt").write_text("outside the workspace")
    (workspace / "uploads" / "link.txt").symlink_to(tmp_path / "secret.txt")
    async with browx_server(workspace, "eval") as client:
        await ok(client, "navigate", {"url": f"{pages_url}/page_form.html"})

        # -- upload_file --------------------------------------------------------------
        uploaded = await ok(client, "upload_file", {"selector": "#cv", "paths": ["uploads/cv.txt"]})
        assert "action" not in uploaded and uploaded["files"] == ["cv.txt"]
        await ok(client, "verify_text", {"selector": "#chosen", "text": "cv cv.txt:16", "exact": True})
        several = await ok(client, "upload_file", {"selector": "#photos", "paths": ["uploads/a.png",
                                                                                   "uploads/cv.txt"]})
        assert several["files"] == ["a.png", "cv.txt"]
        await ok(client, "verify_text", {"selector": "#chosen", "text": "photos a.png:100,cv.txt:16",
                                         "exact": True})
        # A button that opens a file chooser.
        await ok(client, "upload_file", {"selector": "#pick", "paths": ["uploads/cv.txt"]})
        await ok(client, "verify_text", {"selector": "#chosen", "text": "hidden cv.txt:16", "exact": True})
        one_only = await fails(client, "upload_file", {"selector": "#cv", "paths": ["uploads/cv.txt",
                                                                                  "uploads/a.png"]}, "bad-arg")
        assert one_only["field"] == "paths"
        for escape in ("../secret.txt", str(tmp_path / "secret.txt"), "uploads/link.txt"):
            refused = await fails(client, "upload_file", {"selector": "#cv", "paths": [escape]}, "bad-arg")
            assert refused == {"ok": False, "code": "bad-arg", "error": "paths must stay inside the workspace",
                               "field": "paths"}
        missing = await fails(client, "upload_file", {"selector": "#cv", "paths": ["uploads/none.txt"]}, "bad-arg")
        assert missing["error"] == "paths[0] is not a file in the workspace"
        assert (await fails(client, "upload_file", {"paths": ["uploads/cv.txt"]}, "bad-arg"))["field"] == "ref"

        # -- downloads ----------------------------------------------------------------
        clicked = await ok(client, "click", {"selector": "#report"})
        assert "navigation" not in clicked  # the page stayed where it was
        [saved] = clicked["downloads"]
        assert saved["state"] == "completed" and saved["suggestedFilename"] == "quarterly report.csv"
        assert saved["path"] == "downloads/default/quarterly report.csv" and saved["tab"] == 1
        assert (workspace / saved["path"]).read_bytes() == REPORT.read_bytes()
        again = await ok(client, "click", {"selector": "#again"})
        assert again["downloads"][0]["path"] == "downloads/default/quarterly report (2).csv"
        listed = await ok(client, "downloads_list")
        assert listed["count"] == 2
        assert listed["downloads"][0].startswith("d1 completed quarterly report.csv 30 B downloads/default/")
        details = await ok(client, "downloads_list", {"details": True})
        assert [d["size"] for d in details["downloads"]] == [REPORT.stat().st_size] * 2
        quiet = await ok(client, "click", {"selector": "#pick"})  # a click that downloads nothing says nothing
        assert "downloads" not in quiet

        # -- pdf_save -----------------------------------------------------------------
        printed = await ok(client, "pdf_save", {})
        assert printed["path"].startswith(str(workspace / "pdf" / "default-")) and printed["pages"] == 1
        data = Path(printed["path"]).read_bytes()
        assert data.startswith(b"%PDF-") and len(data) == printed["byteLength"]
        named = await ok(client, "pdf_save", {"path": "out/form.pdf", "format": "A4", "landscape": True})
        assert named["path"] == str(workspace / "out" / "form.pdf") and named["landscape"] is True
        assert (workspace / "out" / "form.pdf").read_bytes().startswith(b"%PDF-")
        refused = await fails(client, "pdf_save", {"path": "../out.pdf"}, "bad-arg")
        assert refused["field"] == "path" and not (tmp_path / "out.pdf").exists()
        # Through the chokepoint for written files: a folder, or the server's own records, is no file to write.
        for folder in (".", "out/", "out"):
            refused = await fails(client, "pdf_save", {"path": folder}, "bad-arg")
            assert refused == {"ok": False, "code": "bad-arg", "error": "path must name a file, not a folder",
                               "field": "path"}
        kept = await fails(client, "pdf_save", {"path": "diagnostics/x.pdf"}, "bad-arg")
        assert "keeps for its own records" in kept["error"] and not (workspace / "diagnostics" / "x.pdf").exists()
        assert (await fails(client, "pdf_save", {"pageRanges": "first"}, "bad-arg"))["field"] == "pageRanges"
        assert (await fails(client, "pdf_save", {"format": "B5"}, "bad-arg"))["field"] == "format"
