"""End to end: text into editors and what their snapshot shows (issue 28 item 4).

The pages load the real libraries (``peers/node_modules``, served at ``/node_modules/``):
Monaco (its AMD build; in Chromium it types through an EditContext element of no width,
and rewrites each line of text an input method commits: ``}`` doubled, lines indented
twice), Ace (a hidden textarea), CodeMirror 6 (a contenteditable, its modules found
through an import map) and Trix (a contenteditable rich-text editor). fill
pastes into an editor and answers ok only for text the editor then shows.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from e2e_support import browx_server, eval_value, fails, ok, page_ready
from e2e_support import ref_of as _ref
from e2e_support import snapshot_line as _line
from polling import poll_until

pytestmark = pytest.mark.chromium

CODE = "function add(a, b) {\n  return a + b;\n}"


async def test_monaco_takes_the_text_verbatim_and_a_locked_one_is_not_ok(tmp_path: Path, pages_url: str) -> None:
    async with browx_server(tmp_path / "ws", "eval") as client:
        await ok(client, "navigate", {"url": f"{pages_url}/real_monaco.html"})
        await page_ready(client)
        snap = (await ok(client, "snapshot"))["snapshot"]
        # Its input has no width, and is typed into all the same: listed with a ref.
        code = _ref(_line(snap, 'textbox "Editor content"'))
        locked = _ref(_line(snap, 'textbox "Locked script"'))

        filled = await ok(client, "fill", {"ref": code, "value": CODE})
        assert filled["settled"]["input"] == "paste", filled
        assert await eval_value(client, "editor.getValue()") == CODE
        # What the editor shows is the field's value; the other editor, whose classes
        # Monaco toggles as the focus moves, is not listed as gone.
        assert filled["element"] == {"value": CODE} and "structure" not in filled, filled
        snap = (await ok(client, "snapshot"))["snapshot"]
        assert _line(snap, 'textbox "Editor content"').endswith(" value=" + json.dumps(CODE)), snap
        assert _line(snap, 'textbox "Locked script"').endswith(' value="const locked = true;"'), snap
        # A second fill replaces the whole document, not the line the caret is on.
        await ok(client, "fill", {"ref": code, "value": "const x = [1, 2];\nif (x) {\n\treturn x;\n}"})
        assert await eval_value(client, "editor.getValue()") == "const x = [1, 2];\nif (x) {\n\treturn x;\n}"

        # fill_form pastes into an editor as fill does.
        formed = await ok(client, "fill_form", {"fields": [{"ref": code, "value": "let y = {\n  z: 1,\n};"}]})
        assert formed["fields"][0]["input"] == "paste", formed
        assert await eval_value(client, "editor.getValue()") == "let y = {\n  z: 1,\n};"

        # A read-only editor takes the paste and keeps its text: not ok, and says what it shows.
        refused = await fails(client, "fill", {"ref": locked, "value": "let x = 2;"}, "verification-failed")
        assert refused["expected"] == "let x = 2;" and "const locked = true;" in refused["actual"], refused
        assert await eval_value(client, "locked.getValue()") == "const locked = true;"


async def test_ace_takes_the_text_verbatim_and_trix_shows_its_lines(tmp_path: Path, pages_url: str) -> None:
    async with browx_server(tmp_path / "ws", "eval") as client:
        await ok(client, "navigate", {"url": f"{pages_url}/real_editors.html"})
        await page_ready(client)
        snap = (await ok(client, "snapshot"))["snapshot"]
        notes = _line(snap, 'textbox "Notes"')
        assert "value=" not in notes, notes
        # The rich text's heading and paragraphs are lines under its textbox.
        assert [line.strip() for line in snap.splitlines()[-3:]] == [
            _line(snap, 'heading "Release notes"'), "text: First line of the notes.", "text: Second line."], snap

        await ok(client, "fill", {"selector": "#code textarea", "value": CODE})
        assert await eval_value(client, "aceEditor.getValue()") == CODE
        await ok(client, "fill", {"selector": "#code textarea", "value": "x = 1"})
        assert await eval_value(client, "aceEditor.getValue()") == "x = 1"

        filled = await ok(client, "fill", {"ref": _ref(notes), "value": "Hello\nWorld"})
        assert filled["settled"]["input"] == "paste", filled
        snap = (await ok(client, "snapshot"))["snapshot"]
        assert [line.strip() for line in snap.splitlines()[-2:]] == ["text: Hello", "text: World"], snap
        assert await eval_value(client, "document.getElementById('body').value") == "<div>Hello<br>World</div>"


async def test_codemirror_6_keeps_taking_the_text_verbatim(tmp_path: Path, pages_url: str) -> None:
    async with browx_server(tmp_path / "ws", "eval") as client:
        await ok(client, "navigate", {"url": f"{pages_url}/real_codemirror.html"})
        await page_ready(client)
        code = _line((await ok(client, "snapshot"))["snapshot"], 'textbox "Code"')
        assert code.endswith(": let old = 0;"), code
        filled = await ok(client, "fill", {"ref": _ref(code), "value": CODE})
        assert filled["settled"]["input"] == "paste", filled
        assert await eval_value(client, "view.state.doc.toString()") == CODE


async def test_monaco_in_a_frame_takes_the_paste_too(tmp_path: Path, pages_url: str) -> None:
    async with browx_server(tmp_path / "ws", "eval") as client:
        await ok(client, "navigate", {"url": f"{pages_url}/real_monaco_frame.html"})

        async def loaded() -> bool:
            return await eval_value(client, "document.getElementById('frame').contentDocument.body.dataset.ready "
                                        "|| ''") == "yes"

        await poll_until(loaded, interval=0.05)
        line = _line((await ok(client, "snapshot"))["snapshot"], 'textbox "Editor content"')
        found = re.search(r"\[ref=(f\d+e\d+)\]", line)
        assert found, line
        code = found.group(1)
        filled = await ok(client, "fill", {"ref": code, "value": CODE})
        assert filled["settled"]["input"] == "paste", filled
        assert await eval_value(client, "document.getElementById('frame').contentWindow.editor.getValue()") == CODE
