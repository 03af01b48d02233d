"""End to end on real headless Firefox over stdio MCP: the composite and pointer tools.

The firefox engine runs chromium's contracts for fill_form, choose_option, named refs,
find_feedback, inspect, the mouse primitives, drag (HTML5 drag and drop played as the
page's events), upload_file, emulate, pdf_save and the visual tree; each is checked
here against what the page itself saw, on the same pages the chromium tests use.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from e2e_support import browx_server, fails, ok, ref_of, snapshot_line


async def _value(client: Any, expr: str) -> Any:
    return (await ok(client, "eval_js", {"expr": expr}))["value"]


async def _firefox(client: Any) -> None:
    opened = await ok(client, "open_session", {"session": "default", "engine": "firefox"})
    assert opened["engine"] == "firefox"


async def test_forms_named_refs_feedback_and_inspect(tmp_path: Path, pages_url: str) -> None:
    async with browx_server(tmp_path / "ws", "eval") as client:
        await _firefox(client)
        await ok(client, "navigate", {"url": f"{pages_url}/input_forms.html"})
        snap = (await ok(client, "snapshot"))["snapshot"]
        filled = await ok(client, "fill_form", {"fields": [
            {"ref": ref_of(snapshot_line(snap, 'textbox "Full name"')), "value": "Ada Lovelace"},
            {"selector": "#bio", "value": "line 1\nline 2"},
            {"selector": "#news", "value": True},
            {"selector": "#terms", "value": "on"},  # a styled checkbox: its input is hidden
            {"selector": "#plan-pro", "value": True},
            {"selector": "#country", "value": "Japan"},
        ]})
        assert [f["kind"] for f in filled["fields"]] == ["text", "text", "check", "check", "check", "select"]
        assert await _value(client, "[document.getElementById('name').value, bio.value, news.checked, "
                                    "terms.checked, document.getElementById('plan-pro').checked, country.value]") \
            == ["Ada Lovelace", "line 1\nline 2", True, True, True, "jp"]
        same = await ok(client, "fill_form", {"fields": [{"selector": "#news", "value": "yes"}]})
        assert same["fields"][0]["input"] == "unchanged"
        radio = await fails(client, "fill_form", {"fields": [{"selector": "#plan-pro", "value": False}]}, "bad-arg")
        assert radio["field"] == "fields[0].value"

        native = await ok(client, "choose_option", {"selector": "#country", "option": "Germany"})
        assert native["chosen"]["verifiedBy"] == "select" and await _value(client, "country.value") == "de"
        color = await ok(client, "choose_option", {"ref": ref_of(snapshot_line(snap, 'button "Color: none"')),
                                                   "option": "blue"})
        assert color["chosen"]["name"] == "Blue" and color["element"]["name"] == "Color: Blue"
        missing = await fails(client, "choose_option", {"selector": "#color", "option": "Purple", "timeoutMs": 500},
                              "target-not-found")
        assert missing["candidates"] == ["Red", "Green", "Blue", "Light blue"]
        await ok(client, "press", {"key": "Escape"})
        broken = await fails(client, "choose_option", {"selector": "#size", "option": "Large"},
                             "verification-failed")
        assert (broken["expected"], broken["actual"]) == ("Large", "Size: none")
        city = await ok(client, "choose_option", {"selector": "#city", "option": "Tokyo"})
        assert city["typed"] == "Tokyo" and await _value(client, "city.value") == "Tokyo"

        await ok(client, "click", {"selector": "#signup-go"})
        feedback = await ok(client, "find_feedback")
        assert [(i["kind"], i["new"]) for i in feedback["items"]][:1] == [("status", True)]

        named = await ok(client, "name_ref", {"ref": ref_of(snapshot_line(snap, 'textbox "Full name"')),
                                              "name": "full_name"})
        assert named["by"] != "path"
        await ok(client, "fill", {"ref": "full_name", "value": "Grace"})
        assert await _value(client, "document.getElementById('name').value") == "Grace"
        listed = await ok(client, "list_named_refs")
        assert [entry["name"] for entry in listed["named"]] == ["full_name"]

        email = await ok(client, "inspect", {"selector": "#email", "styles": ["display", "--missing"]})
        assert email["styles"] == {"display": "inline-block", "--missing": ""}
        assert email["attributes"]["type"] == "email" and email["accessibility"] is None
        assert any("accessibility" in w for w in email["warnings"])


async def test_mouse_drag_upload_emulate_and_print(tmp_path: Path, pages_url: str) -> None:
    workspace = tmp_path / "ws"
    (workspace / "up").mkdir(parents=True)
    (workspace / "up" / "a.txt").write_text("a")
    (workspace / "up" / "b.txt").write_text("b")
    async with browx_server(workspace, "eval") as client:
        await _firefox(client)
        await ok(client, "navigate", {"url": f"{pages_url}/pointer_drag.html"})
        box = await _value(client, "(() => { const r = pad.getBoundingClientRect(); return [r.x, r.y]; })()")
        x, y = round(box[0]) + 20, round(box[1]) + 30
        down = await ok(client, "mouse_down", {"coords": {"x": x, "y": y}})
        assert down["pointer"] == {"x": x, "y": y, "buttons": 1}
        again = await fails(client, "mouse_down", {}, "bad-arg")
        assert again["field"] == "button"
        await ok(client, "mouse_move", {"coords": {"x": x + 100, "y": y}, "durationMs": 100})
        up = await ok(client, "mouse_up", {})
        assert up["pointer"]["buttons"] == 0
        await ok(client, "mouse_wheel", {"deltaY": 120})
        assert await _value(client, "log.textContent") == f"down@{x},{y} up@{x + 100},{y} wheel120"

        dragged = await ok(client, "drag", {"from": {"selector": "#card"}, "to": {"selector": "#bin"}})
        assert dragged["drag"]["mode"] == "html5"
        assert (await _value(client, "log.textContent")).endswith("dropped card-1")

        uploaded = await ok(client, "upload_file", {"selector": "#file", "paths": ["up/a.txt", "up/b.txt"]})
        assert uploaded["files"] == ["a.txt", "b.txt"]
        assert (await _value(client, "log.textContent")).endswith("files a.txt,b.txt")
        styled = await fails(client, "upload_file", {"selector": "#styled", "paths": ["up/a.txt"]}, "bad-arg")
        assert "<button>" in styled["error"]
        escaped = await fails(client, "upload_file", {"selector": "#file", "paths": ["../outside.txt"]}, "bad-arg")
        assert escaped["field"] == "paths"

        emulated = await ok(client, "emulate", {"locale": "de-DE", "timezone": "Asia/Tokyo", "userAgent": "Agent/7"})
        assert emulated["changed"] == ["locale", "timezone", "userAgent"]
        assert await _value(client, "[navigator.language, Intl.DateTimeFormat().resolvedOptions().timeZone, "
                                    "navigator.userAgent]") == ["de-DE", "Asia/Tokyo", "Agent/7"]
        dark = await fails(client, "emulate", {"colorScheme": "dark"}, "not-supported")
        assert dark["field"] == "colorScheme"
        assert (await ok(client, "emulate", {}))["emulation"]["locale"] == "de-DE"  # the refusal changed nothing

        printed = await ok(client, "pdf_save", {"path": "out/page.pdf"})
        assert printed["pages"] == 1 and (workspace / "out" / "page.pdf").read_bytes().startswith(b"%PDF")


async def test_the_visual_tree_reads_and_acts(tmp_path: Path, pages_url: str) -> None:
    async with browx_server(tmp_path / "ws", "eval") as client:
        await _firefox(client)
        await ok(client, "navigate", {"url": f"{pages_url}/pointer_drag.html"})
        tree = await ok(client, "ui.get_visual_tree")
        assert tree["platform"] == "web" and tree["source"] == "dom"
        ping = await ok(client, "ui.query_nodes", {"automationId": "ping"})
        assert ping["count"] == 1
        tapped = await ok(client, "ui.perform_action", {"reference": ping["matches"][0]["reference"], "action": "tap"})
        assert tapped["performedWith"] == "click" and await _value(client, "log.textContent") == "ping"


async def test_frames_are_read_listed_and_acted_in(tmp_path: Path, pages_url: str) -> None:
    async with browx_server(tmp_path / "ws", "eval") as client:
        await _firefox(client)
        await ok(client, "navigate", {"url": f"{pages_url}/page_frames.html"})
        snap = (await ok(client, "snapshot"))["snapshot"]
        assert snapshot_line(snap, 'textbox "Code"').strip() == 'textbox "Code" [ref=f1e2]'
        listed = await ok(client, "frames_list")
        assert listed["frames"][0].startswith("f1 ") and listed["frames"][0].endswith("(same-origin) in e3")
        await ok(client, "fill", {"ref": "f1e2", "value": "1234"})
        clicked = await ok(client, "click", {"ref": "f1e3"})
        assert clicked["target"]["ref"] == "f1e3"
        assert (await ok(client, "verify_text", {"ref": "f1e4", "text": "sent 1234"}))["ok"] is True
        scoped = await ok(client, "snapshot", {"scope": "f1e1"})
        assert scoped["snapshot"] == 'heading "Frame same" [ref=f1e1] [level=2]'
        gone = await fails(client, "click", {"ref": "f9e1"}, "stale-element")
        assert "f9" in gone["error"]


async def test_downloads_are_saved_into_the_workspace_and_listed(tmp_path: Path, pages_url: str) -> None:
    report = Path(__file__).parents[1] / "pages" / "page_report.csv"
    workspace = tmp_path / "ws"
    async with browx_server(workspace, "") as client:
        await _firefox(client)
        await ok(client, "navigate", {"url": f"{pages_url}/page_form.html"})
        clicked = await ok(client, "click", {"selector": "#report"})
        assert "navigation" not in clicked  # the page stayed where it was
        [saved] = clicked["downloads"]
        assert saved["state"] == "completed" and saved["suggestedFilename"] == "quarterly report.csv"
        assert saved["path"] == "downloads/default/quarterly report.csv" and saved["tab"] == 1
        assert (workspace / saved["path"]).read_bytes() == report.read_bytes()
        again = await ok(client, "click", {"selector": "#again"})
        assert again["downloads"][0]["path"] == "downloads/default/quarterly report (2).csv"
        listed = await ok(client, "downloads_list")
        assert listed["count"] == 2
        assert listed["downloads"][0].startswith("d1 completed quarterly report.csv 30 B downloads/default/")
        quiet = await ok(client, "click", {"selector": "#pick"})  # a click that downloads nothing says nothing
        assert "downloads" not in quiet


async def test_canvas_captures_are_read_kept_and_diffed(tmp_path: Path, pages_url: str) -> None:
    async with browx_server(tmp_path / "ws", "canvas") as client:
        await _firefox(client)
        await ok(client, "navigate", {"url": f"{pages_url}/canvas_draw.html"})
        raw = await ok(client, "canvas_capture", {"format": "2d-imagedata"})
        assert (raw["width"], raw["height"], raw["channelCount"]) == (640, 400, 4)
        assert raw["byteLength"] == 640 * 400 * 4 and raw["captureId"]
        png = await ok(client, "canvas_capture", {"format": "png", "includeContent": True})
        assert png["contentBase64"].startswith("iVBORw0KGgo")  # a PNG's signature, in base64
        same = await ok(client, "canvas_diff", {"beforeId": raw["captureId"], "afterId": raw["captureId"]})
        assert same["changedPixelCount"] == 0
        # The transform probe reads the page's own scene object through the sandbox.
        await ok(client, "navigate", {"url": f"{pages_url}/canvas_app.html?shape=tldraw"})
        there = await ok(client, "canvas_world_to_screen", {"worldX": 10, "worldY": 20})
        assert there["adapterHint"] == "tldraw"
        back = await ok(client, "canvas_screen_to_world", {"screenX": there["screenX"], "screenY": there["screenY"]})
        assert (round(back["worldX"], 6), round(back["worldY"], 6)) == (10, 20)


async def test_a_gesture_chain_plays_as_trusted_input_and_leaves_the_pointer_where_it_ended(
        tmp_path: Path, pages_url: str) -> None:
    async with browx_server(tmp_path / "ws", "eval,canvas") as client:
        await _firefox(client)
        await ok(client, "navigate", {"url": f"{pages_url}/pointer_drag.html"})
        box = await _value(client, "(() => { const r = pad.getBoundingClientRect(); return [r.x, r.y]; })()")
        x, y = round(box[0]) + 20, round(box[1]) + 30
        played = await ok(client, "gesture_chain", {"steps": [
            {"kind": "down", "x": x, "y": y}, {"kind": "move", "x": x + 50, "y": y, "ms": 60},
            {"kind": "up", "x": x + 50, "y": y}, {"kind": "wait", "ms": 10},
            {"kind": "wheel", "deltaY": 90}]})
        assert played["stepsExecuted"] == 5
        assert await _value(client, "log.textContent") == f"down@{x},{y} up@{x + 50},{y} wheel90"
        held = await ok(client, "gesture_chain", {"steps": [{"kind": "down", "x": x, "y": y}]})
        assert any("button down" in w for w in held["warnings"])
        released = await ok(client, "mouse_up", {})  # where the chain left the pointer, with its button held
        assert released["pointer"] == {"x": x, "y": y, "buttons": 0}
