"""End to end: the composite tools through the real server over stdio MCP, on real headless
Chromium (``tests/pages/input_forms.html``): fill_form, choose_option on a native select,
a class-toggled dropdown and an ARIA combobox, find_feedback, named refs that survive a
re-render, inspect, screenshot_region, and poll_eval as the diagnostics recorder files it."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from e2e_support import browx_server, call_result, envelope_of, fails, images_of, ok, png_size

pytestmark = pytest.mark.chromium


async def _value(client: Any, expr: str) -> Any:
    return (await ok(client, "eval_js", {"expr": expr}))["value"]


def _ref(snapshot: str, line: str) -> str:
    found = re.search(re.escape(line) + r" \[ref=(e\d+)\]", snapshot)
    assert found is not None, f"no {line!r} in\n{snapshot}"
    return found.group(1)


async def test_forms_dropdowns_and_feedback(tmp_path: Path, pages_url: str) -> None:
    async with browx_server(tmp_path / "ws", "eval") as client:
        await ok(client, "navigate", {"url": f"{pages_url}/input_forms.html"})
        snap = (await ok(client, "snapshot"))["snapshot"]

        # fill_form: text, a text area, a checkbox, a styled checkbox whose input is hidden
        # (clicked through its label), a radio and a native select, settled once.
        filled = await ok(client, "fill_form", {"fields": [
            {"ref": _ref(snap, 'textbox "Full name"'), "value": "Ada Lovelace"},
            {"selector": "#bio", "value": "line 1\nline 2"},
            {"selector": "#news", "value": True},
            {"selector": "#terms", "value": "on"},
            {"selector": "#plan-pro", "value": True},
            {"selector": "#country", "value": "Japan"},
        ]})
        assert [f["kind"] for f in filled["fields"]] == ["text", "text", "check", "check", "check", "select"]
        assert filled["fields"][3]["name"] == "I accept the terms"
        assert "action" not in filled and filled["element"]["value"] == "Japan"
        assert await _value(client, "[document.getElementById('name').value, bio.value, news.checked, "
                                    "terms.checked, document.getElementById('plan-pro').checked, country.value]") \
            == ["Ada Lovelace", "line 1\nline 2", True, True, True, "jp"]
        # Already in the state asked for: nothing is clicked.
        same = await ok(client, "fill_form", {"fields": [{"selector": "#news", "value": "yes"}]})
        assert same["fields"][0]["input"] == "unchanged" and same["settled"]["input"] == "none"
        unchecked = await ok(client, "fill_form", {"fields": [{"selector": "#news", "value": False}]})
        assert unchecked["fields"][0]["input"] == "cdp" and await _value(client, "news.checked") is False
        radio = await fails(client, "fill_form", {"fields": [{"selector": "#plan-pro", "value": False}]}, "bad-arg")
        assert radio["field"] == "fields[0].value"
        wrong = await fails(client, "fill_form", {"fields": [{"selector": "#country", "value": "Mars"}]}, "bad-arg")
        assert wrong["field"] == "fields[0].value" and "'France'" in wrong["error"]

        # choose_option on the native select, then on a dropdown whose menu opens 150 ms
        # after its click: by name, ignoring case, and "Blue" over "Light blue".
        native = await ok(client, "choose_option", {"selector": "#country", "option": "Germany"})
        assert native["chosen"]["verifiedBy"] == "select" and await _value(client, "country.value") == "de"
        color = await ok(client, "choose_option", {"ref": _ref(snap, 'button "Color: none"'), "option": "blue"})
        assert color["chosen"]["name"] == "Blue" and color["chosen"]["verifiedBy"] == "value"
        assert color["element"]["name"] == "Color: Blue"
        assert await _value(client, "document.getElementById('opt-blue').getAttribute('aria-selected')") == "true"
        missing = await fails(client, "choose_option", {"selector": "#color", "option": "Purple", "timeoutMs": 500},
                              "target-not-found")
        assert missing["candidates"] == ["Red", "Green", "Blue", "Light blue"]
        await ok(client, "press", {"key": "Escape"})
        # A dropdown whose choice does not take is a failure, never a quiet success.
        broken = await fails(client, "choose_option", {"selector": "#size", "option": "Large"},
                             "verification-failed")
        assert (broken["expected"], broken["actual"]) == ("Large", "Size: none")

        # An ARIA combobox that lists nothing until it is typed into.
        city = await ok(client, "choose_option", {"selector": "#city", "option": "Tokyo"})
        assert city["typed"] == "Tokyo" and city["chosen"]["name"] == "Tokyo"
        assert await _value(client, "city.value") == "Tokyo"
        assert "actual" not in await ok(client, "verify_value", {"selector": "#city", "value": "Tokyo"})

        # find_feedback after a failed sign-up: the status line, the field the browser
        # holds invalid with its own message, and the one the page marked with ARIA.
        await ok(client, "click", {"selector": "#signup-go"})
        feedback = await ok(client, "find_feedback")
        assert feedback["sinceAction"] is True
        assert [(i["kind"], i.get("text") or i.get("message"), i["new"]) for i in feedback["items"]] == [
            ("status", "Please fix the errors", True),
            ("invalid", "Please fill out this field.", True),
            ("invalid", "Letters only. Username must be letters only", True),
        ]
        assert [i["name"] for i in feedback["items"][1:]] == ["Email", "Username"]
        assert feedback["items"][1]["source"] == "native" and feedback["items"][2]["source"] == "aria"

        # After Save: a toast and a polite announcement, the only new items.
        await ok(client, "click", {"selector": "#save"})
        await ok(client, "wait_for", {"text": "Profile saved"})
        fresh = await ok(client, "find_feedback", {"newOnly": True})
        assert [(i["kind"], i["text"]) for i in fresh["items"]] == [("status", "All changes saved"),
                                                                   ("toast", "Profile saved")]
        everything = await ok(client, "find_feedback", {"limit": 2})
        assert everything["count"] == 5 and everything["truncated"] is True and len(everything["items"]) == 2

        # inspect: box, computed styles, attributes and the browser's accessibility node.
        email = await ok(client, "inspect", {"selector": "#email", "styles": ["display", "borderTopStyle",
                                                                           "--missing"]})
        assert email["styles"] == {"display": "inline-block", "borderTopStyle": "inset", "--missing": ""}
        assert email["attributes"] == {"id": "email", "type": "email", "name": "email", "required": ""}
        assert email["box"]["width"] > 0 and email["inViewport"] is True
        assert email["accessibility"]["role"] == "textbox" and email["accessibility"]["name"] == "Email"
        assert email["accessibility"]["properties"]["required"] is True
        user = await ok(client, "inspect", {"selector": "#user"})
        assert user["accessibility"]["properties"]["invalid"] == "true"
        assert user["accessibility"]["description"] == "Letters only. Username must be letters only"
        toast = await ok(client, "inspect", {"selector": ".toast", "styles": ["position", "color"]})
        assert toast["styles"] == {"position": "fixed", "color": "rgb(255, 255, 255)"}


async def test_named_refs_survive_a_rerender(tmp_path: Path, pages_url: str) -> None:
    async with browx_server(tmp_path / "ws", "eval") as client:
        await ok(client, "navigate", {"url": f"{pages_url}/input_forms.html"})
        snap = (await ok(client, "snapshot", {"scope": "#cards"}))["snapshot"]
        open_c = _ref(snap, 'button "Open C"')
        card_a = (await ok(client, "find", {"testId": "card-a"}))["matches"][0]["ref"]
        cards = (await ok(client, "find", {"text": "plain D"}))["matches"][0]["ref"]
        by_testid = await ok(client, "name_ref", {"ref": card_a, "name": "card-a"})
        assert by_testid["by"] == "testid" and "warnings" not in by_testid
        card_b = (await ok(client, "find", {"text": "Card B"}))["matches"][0]["ref"]
        assert (await ok(client, "name_ref", {"ref": card_b, "name": "card-b"}))["by"] == "id"
        assert (await ok(client, "name_ref", {"ref": open_c, "name": "open_c"}))["by"] == "role"
        by_path = await ok(client, "name_ref", {"ref": cards, "name": "plain.d"})
        assert by_path["by"] == "path" and "structure" in by_path["warnings"][0]
        assert by_path["anchor"] == {"by": "path", "base": {"by": "id", "value": "cards"}, "steps": [["div", 4]]}

        # The page re-renders every card: the refs go stale, the names follow.
        await ok(client, "click", {"selector": "#rerender"})
        stale = await fails(client, "verify_text", {"ref": card_a, "text": "Card A 2"}, "stale-element")
        assert card_a in stale["error"]
        for name, text in (("card-a", "Card A 2"), ("card-b", "Card B 2"), ("plain.d", "plain D 2")):
            await ok(client, "verify_text", {"ref": name, "text": text})
        listed = await ok(client, "list_named_refs")
        assert [n["name"] for n in listed["named"]] == ["card-a", "card-b", "open_c", "plain.d"]
        assert all(n["ref"] is not None and n["count"] == 1 for n in listed["named"])
        assert listed["named"][0]["ref"] != card_a

        # A name works wherever a ref does: a click, a target object, a form field.
        clicked = await ok(client, "click", {"ref": "open_c"})
        assert clicked["target"]["name"] == "Open C"
        await ok(client, "name_ref", {"ref": _ref((await ok(client, "snapshot"))["snapshot"], 'textbox "Full name"'),
                                      "name": "full-name"})
        await ok(client, "fill_form", {"fields": [{"ref": "full-name", "value": "Grace"}]})
        assert await _value(client, "document.getElementById('name').value") == "Grace"
        hovered = await ok(client, "mouse_move", {"ref": "card-b"})
        assert hovered["target"]["text"] == "Card B 2"
        inspected = await ok(client, "inspect", {"ref": "card-a", "styles": ["borderTopWidth"]})
        assert inspected["styles"] == {"borderTopWidth": "1px"} and inspected["attributes"] == {"data-testid": "card-a"}

        unknown = await fails(client, "click", {"ref": "nobody"}, "target-not-found")
        assert "card-a" in unknown["error"]
        await ok(client, "eval_js", {"expr": "document.getElementById('cards').innerHTML = ''"})
        gone = await fails(client, "click", {"ref": "card-b"}, "target-not-found")
        assert 'id="card-b"' in gone["error"] and gone["name"] == "card-b"
        assert [n["ref"] for n in (await ok(client, "list_named_refs"))["named"]][:2] == [None, None]


async def test_poll_eval_and_screenshot_region(tmp_path: Path, pages_url: str) -> None:
    async with browx_server(tmp_path / "ws", "eval,diagnostics") as client:
        await ok(client, "navigate", {"url": f"{pages_url}/input_forms.html"})
        # The expression counts its own runs: falsy twice, then the third run's value. Probes
        # start on a fixed schedule from the first, the nth at (n - 1) intervals.
        polled = await ok(client, "poll_eval", {"expr": "(window.runs = (window.runs || 0) + 1) >= 3 && "
                                                "{count: window.runs}", "intervalMs": 50})
        assert polled["value"] == {"count": 3} and polled["attempts"] == 3 and polled["elapsedMs"] >= 100
        # A function source is called; until is a predicate on the value, run in the page.
        counted = await ok(client, "poll_eval", {"expr": "() => document.querySelectorAll('option').length",
                                                 "until": "n => n === 4"})
        assert counted == {"ok": True, "value": 4, "attempts": 1, "elapsedMs": counted["elapsedMs"]}
        late = await fails(client, "poll_eval", {"expr": "window.never.x", "timeoutMs": 500}, "timeout")
        assert "TypeError" in late["lastError"] and late["attempts"] >= 2
        # The session keeps serving while a poll waits.
        await ok(client, "eval_js", {"expr": "setTimeout(() => { window.later = 'done' }, 500), 0"})
        waiting = await ok(client, "poll_eval", {"expr": "window.later"})
        assert waiting["value"] == "done"

        # screenshot_region is screenshot with a region.
        region = {"x": 10, "y": 20, "width": 200, "height": 50}
        own = await call_result(client, "screenshot_region", region)
        shared = await call_result(client, "screenshot", {"region": region})
        assert envelope_of(own)["width"] == 200 and envelope_of(own)["height"] == 50
        (mime, data), = images_of(own)
        assert mime == "image/png" and png_size(data) == (200, 50)
        assert images_of(shared)[0][1] == data
        empty = await fails(client, "screenshot_region", {"x": 0, "y": 0, "width": 0, "height": 5}, "bad-arg")
        assert empty["field"] == "width"

        # The recorder files poll_eval with the evalJs block eval_js gets.
        records = (await ok(client, "diagnostics_search", {"tool": "poll_eval"}))["records"]
        assert [r["evalJs"]["returnType"] for r in records] == ["object", "number", "error", "string"]
        assert records[0]["evalJs"]["exprHead"].startswith("(window.runs") and records[0]["evalJs"]["taxonomy"]
        assert json.dumps(records[2]["resultMeta"]).count("timeout") == 1
