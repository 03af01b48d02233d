"""End to end on firefox: text into a real Monaco (peers/node_modules, served at
``/node_modules/``). Firefox has no EditContext: Monaco listens on a hidden textarea and
rewrites what is typed into it (a line typed after ``{`` indented again, a ``}`` typed
where it closed one already doubled), so fill pastes into an editor, as on chromium, and
answers ok only for text the editor then shows."""

from __future__ import annotations

from pathlib import Path

import pytest

from e2e_support import browx_server, eval_value, fails, ok, page_ready
from e2e_support import ref_of as _ref
from e2e_support import snapshot_line as _line
from firefox_support import open_firefox

pytestmark = pytest.mark.firefox

CODE = "function add(a, b) {\n  return a + b;\n}"
FF = "ff"


async def test_monaco_takes_the_text_verbatim_and_a_locked_one_is_not_ok(tmp_path: Path, pages_url: str) -> None:
    async with browx_server(tmp_path / "ws", "eval") as client:
        await open_firefox(client, FF)
        await ok(client, "navigate", {"session": FF, "url": f"{pages_url}/real_monaco.html"})
        await page_ready(client, FF)
        snap = (await ok(client, "snapshot", {"session": FF}))["snapshot"]
        code = _ref(_line(snap, 'textbox "Editor content"'))
        locked = _ref(_line(snap, 'textbox "Locked script"'))

        filled = await ok(client, "fill", {"session": FF, "ref": code, "value": CODE})
        assert filled["settled"]["input"] == "paste", filled
        assert await eval_value(client, "editor.getValue()", FF) == CODE
        assert filled["element"] == {"value": CODE} and "structure" not in filled, filled
        await ok(client, "fill", {"session": FF, "ref": code, "value": "const x = [1, 2];\nif (x) {\n\treturn x;\n}"})
        assert await eval_value(client, "editor.getValue()", FF) == "const x = [1, 2];\nif (x) {\n\treturn x;\n}"

        # fill_form pastes into an editor as fill does.
        formed = await ok(client, "fill_form", {"session": FF,
                                                "fields": [{"ref": code, "value": "let y = {\n  z: 1,\n};"}]})
        assert formed["fields"][0]["input"] == "paste", formed
        assert await eval_value(client, "editor.getValue()", FF) == "let y = {\n  z: 1,\n};"

        refused = await fails(client, "fill", {"session": FF, "ref": locked, "value": "let x = 2;"},
                              "verification-failed")
        assert refused["expected"] == "let x = 2;" and "const locked = true;" in refused["actual"], refused
        assert await eval_value(client, "locked.getValue()", FF) == "const locked = true;"


async def test_ace_and_codemirror_6_take_the_text_verbatim_and_trix_its_lines(tmp_path: Path,
                                                                             pages_url: str) -> None:
    async with browx_server(tmp_path / "ws", "eval") as client:
        await open_firefox(client, FF)
        await ok(client, "navigate", {"session": FF, "url": f"{pages_url}/real_editors.html"})
        await page_ready(client, FF)
        await ok(client, "fill", {"session": FF, "selector": "#code textarea", "value": CODE})
        assert await eval_value(client, "aceEditor.getValue()", FF) == CODE
        notes = _line((await ok(client, "snapshot", {"session": FF}))["snapshot"], 'textbox "Notes"')
        filled = await ok(client, "fill", {"session": FF, "ref": _ref(notes), "value": "Hello\nWorld"})
        assert filled["settled"]["input"] == "paste", filled
        assert await eval_value(client, "document.getElementById('body').value", FF) == "<div>Hello<br>World</div>"

        await ok(client, "navigate", {"session": FF, "url": f"{pages_url}/real_codemirror.html"})
        await page_ready(client, FF)
        code = _line((await ok(client, "snapshot", {"session": FF}))["snapshot"], 'textbox "Code"')
        filled = await ok(client, "fill", {"session": FF, "ref": _ref(code), "value": CODE})
        assert filled["settled"]["input"] == "paste", filled
        assert await eval_value(client, "view.state.doc.toString()", FF) == CODE
