"""End to end: what third-party single-page apps do, through the real server over stdio
MCP, real headless Chromium and pages on loopback (issue 18). One test per defect seen
there, each on its own page in ``tests/pages/real_*.html``.
"""

from __future__ import annotations

import json
import re
import time
from pathlib import Path
from typing import Any

import pytest

from e2e_support import browx_server, call, fails, ok
from e2e_support import ref_of as _ref
from e2e_support import snapshot_line as _line

pytestmark = pytest.mark.chromium


async def _text(client: Any, selector: str) -> str:
    value = (await ok(client, "eval_js", {"expr": f"document.querySelector({json.dumps(selector)}).textContent"}))
    return value["value"]


# -- 1. dialogs -------------------------------------------------------------------------


async def test_dialogs_are_reported_left_open_and_answered(tmp_path: Path, pages_url: str) -> None:
    async with browx_server(tmp_path / "ws", "eval") as client:
        await ok(client, "navigate", {"url": f"{pages_url}/real_dialogs.html"})
        snap = (await ok(client, "snapshot"))["snapshot"]
        delete = _ref(_line(snap, 'button "Delete"'))

        # The confirm is reported in the click's own result and left open: the page is
        # blocked inside it, so the click answers at once instead of hanging.
        started = time.monotonic()
        clicked = await ok(client, "click", {"ref": delete})
        assert time.monotonic() - started < 5
        assert clicked["dialog"] == {"type": "confirm", "message": "Delete item?", "defaultValue": ""}
        assert clicked["settled"]["by"] == "dialog" and clicked["target"]["ref"] == delete
        assert any("handle_dialog" in w for w in clicked["warnings"])

        # Every other tool on the tab names the way out until the dialog is answered.
        blocked = await fails(client, "snapshot", {}, "dialog-open")
        assert "handle_dialog" in blocked["error"] and blocked["dialog"]["message"] == "Delete item?"
        await fails(client, "eval_js", {"expr": "1"}, "dialog-open")
        started = time.monotonic()
        (listed,) = (await ok(client, "list_tabs"))["tabs"]
        assert time.monotonic() - started < 1.5, "the blocked page's title is not waited for"
        assert listed["dialog"] == clicked["dialog"] and listed["current"] is True

        # Accepting lets the page go on; the answer reports what it did next.
        answered = await ok(client, "handle_dialog", {"accept": True})
        assert answered["answered"]["answer"] == "accepted" and answered["answered"]["type"] == "confirm"
        (listed,) = (await ok(client, "list_tabs"))["tabs"]
        assert "dialog" not in listed and listed["title"] == "Dialogs"
        assert delete in {n["ref"] for n in answered["structure"]["removed"]}
        assert await _text(client, "#status") == "deleted"
        await fails(client, "handle_dialog", {"accept": True}, "no-dialog")

        # Dismissing is Cancel; a prompt takes its text.
        again = await ok(client, "click", {"selector": "#items button"})
        assert again["dialog"]["type"] == "confirm"
        await ok(client, "handle_dialog", {"accept": False})
        assert await _text(client, "#status") == "kept"
        renamed = await ok(client, "click", {"selector": "#rename"})
        assert renamed["dialog"] == {"type": "prompt", "message": "New name", "defaultValue": "old"}
        await ok(client, "handle_dialog", {"accept": True, "promptText": "new name"})
        assert await _text(client, "#name") == "new name"

        # Through Playwright's path too (press): interrupted, reported, answered.
        pressed = await ok(client, "press", {"selector": "#search", "key": "Enter"})
        assert pressed["dialog"]["message"] == "Search everything?"
        await ok(client, "handle_dialog", {"accept": True})
        assert await _text(client, "#status") == "searching"

        # A dialog that opens after the call (a timer) interrupts whatever waits on the
        # page next: here an evaluation that would otherwise wait a second.
        await ok(client, "click", {"selector": "#later"})
        waiting = await ok(client, "eval_js", {"expr": "new Promise(r => setTimeout(() => r(1), 2000))"})
        assert waiting["dialog"] == {"type": "alert", "message": "Later", "defaultValue": ""}
        await ok(client, "handle_dialog", {"accept": True})
        # A wait that runs beside the session's mailbox is cut short the same way.
        await ok(client, "click", {"selector": "#later"})
        started = time.monotonic()
        waited = await ok(client, "wait_for", {"text": "never on this page", "timeoutMs": 20_000})
        assert waited["dialog"]["message"] == "Later" and time.monotonic() - started < 10
        await ok(client, "handle_dialog", {"accept": True})

        # The policy answers at once, and every answered dialog is still listed.
        policy = await ok(client, "set_dialog_policy", {"policy": "accept"})
        assert (policy["policy"], policy["previous"]) == ("accept", "ask")
        saved = await ok(client, "click", {"selector": "#save"})
        assert "dialog" not in saved
        assert saved["dialogs"] == [{"type": "alert", "message": "Saved", "defaultValue": "", "answer": "accepted"}]
        accepted = await ok(client, "click", {"selector": "#items button"})
        assert accepted["dialogs"][0]["answer"] == "accepted" and accepted["structure"]["removed"]
        assert await _text(client, "#status") == "deleted"
        await ok(client, "set_dialog_policy", {"policy": "dismiss"})
        dismissed = await ok(client, "click", {"selector": "#items button"})
        assert dismissed["dialogs"][0]["answer"] == "dismissed"
        assert await _text(client, "#status") == "kept"
        await fails(client, "set_dialog_policy", {"policy": "maybe"}, "bad-arg")

        # beforeunload: leaving a guarded page asks, and accepting leaves.
        await ok(client, "set_dialog_policy", {"policy": "ask"})
        await ok(client, "click", {"selector": "#guard"})
        leaving = await ok(client, "navigate", {"url": f"{pages_url}/real_refs.html"})
        assert leaving["dialog"]["type"] == "beforeunload"
        left = await ok(client, "handle_dialog", {"accept": True})
        assert left["navigation"] == {"to": f"{pages_url}/real_refs.html"}, left
        assert (await ok(client, "snapshot"))["url"] == f"{pages_url}/real_refs.html"


async def _events(client: Any) -> list[str]:
    return (await ok(client, "eval_js", {"expr": "window.events.splice(0)"}))["value"]


async def _reported_at_once(client: Any, tool: str, args: dict[str, Any], kind: str, message: str) -> dict[str, Any]:
    """``tool`` whose input opens a dialog: answered at once, reporting it and the target."""
    started = time.monotonic()
    result = await ok(client, tool, args)
    assert time.monotonic() - started < 1.5, (tool, result["settled"])  # no release or ack waited out
    assert result["dialog"] == {"type": kind, "message": message, "defaultValue": ""}, result
    assert result["settled"]["by"] == "dialog" and result["target"] is not None, result
    await fails(client, "snapshot", {}, "dialog-open")
    return result


async def test_dialogs_under_raw_input_leave_the_devices_as_sent(tmp_path: Path, pages_url: str) -> None:
    """mouse_*, touch_*, gestures, drag and fill_form: a dialog their input opens is
    reported in their own result, with the pointer and fingers as the input left them,
    so the call after handle_dialog goes on from there."""
    async with browx_server(tmp_path / "ws", "eval") as client:
        await ok(client, "navigate", {"url": f"{pages_url}/real_dialog_input.html"})

        # The press opens a confirm: the button is down, and mouse_up after the answer releases it.
        down = await _reported_at_once(client, "mouse_down", {"selector": "#press"}, "confirm", "Press here?")
        assert down["pointer"] == {"x": 100, "y": 50, "buttons": ["left"]} and down["target"]["name"] == "press pad"
        await ok(client, "handle_dialog", {"accept": True})
        up = await ok(client, "mouse_up", {})
        assert up["pointer"]["buttons"] == [] and "warnings" not in up
        assert await _events(client) == ["press true", "press up b=0"]

        # The release opens an alert: nothing is held after it.
        await ok(client, "mouse_down", {"selector": "#release"})
        released = await _reported_at_once(client, "mouse_up", {}, "alert", "Released")
        assert released["pointer"]["buttons"] == []
        await ok(client, "handle_dialog", {"accept": True})

        # A passive wheel listener runs in the frame after the browser acked the wheel:
        # the result still reports the alert it opened.
        wheeled = await _reported_at_once(client, "mouse_wheel", {"selector": "#wheel", "deltaY": 100},
                                          "alert", "Wheel turned")
        assert wheeled["pointer"]["buttons"] == []
        await ok(client, "handle_dialog", {"accept": True})
        assert await _events(client) == ["released", "wheeled"]

        # A finger down opens a confirm: it is still down, and touch_end lifts it.
        touched = await _reported_at_once(client, "touch_start", {"points": [{"x": 100, "y": 170}]},
                                          "confirm", "Touch here?")
        assert touched["touches"] == [{"id": 0, "x": 100, "y": 170}]
        await ok(client, "handle_dialog", {"accept": False})
        assert (await ok(client, "touch_end", {}))["touches"] == []
        assert await _events(client) == ["touch false", "touch end 1"]

        # A swipe whose first move opens an alert: its touch is cancelled, no finger stays down.
        swiped = await _reported_at_once(client, "gesture_swipe", {"from": {"x": 230, "y": 170},
                                                                   "to": {"x": 400, "y": 170}}, "alert", "Swiping")
        assert swiped["touches"] == [] and swiped["target"]["name"] == "swipe pad"
        await ok(client, "handle_dialog", {"accept": True})
        assert await _events(client) == ["swiped", "swipe cancel"]

        # An HTML5 drop whose handler asks: the drop happened, the button is let go.
        dropped = await _reported_at_once(client, "drag", {"from": {"selector": "#source"},
                                                           "to": {"selector": "#drop"}},
                                          "confirm", "Move card-7 here?")
        assert dropped["pointer"]["buttons"] == [] and dropped["target"]["text"] == "Drag me"
        assert not any("button was down" in w for w in dropped["warnings"])
        await ok(client, "handle_dialog", {"accept": True})
        assert await _events(client) == ["drop card-7 true"]

        # fill_form: the dialog opens on the second field; the result says which were set.
        formed = await _reported_at_once(client, "fill_form", {"fields": [
            {"selector": "#first", "value": "a"}, {"selector": "#second", "value": "b"},
            {"selector": "#third", "value": "c"}]}, "alert", "Second typed")
        assert [f.get("name") for f in formed["fields"]] == ["First", "Second"]
        assert formed["fields"][1]["input"] == "interrupted" and formed["target"]["name"] == "Second"
        assert any("fields[2] was not set" in w for w in formed["warnings"]), formed["warnings"]
        await ok(client, "handle_dialog", {"accept": True})
        values = await ok(client, "eval_js", {"expr": "[...document.querySelectorAll('input')].map(i => i.value)"})
        assert values["value"] == ["a", "b", ""]


# -- 2. what appeared is what became visible --------------------------------------------


def _named(nodes: list[dict[str, Any]]) -> dict[tuple[str, str], str]:
    return {(n["role"], n["name"]): n["ref"] for n in nodes}


async def test_appeared_and_removed_follow_visibility(tmp_path: Path, pages_url: str) -> None:
    async with browx_server(tmp_path / "ws", "eval") as client:
        await ok(client, "navigate", {"url": f"{pages_url}/real_visibility.html"})
        snap = (await ok(client, "snapshot"))["snapshot"]
        assert "Edit" not in snap and "Add card" not in snap
        assert 'link "Read the terms" [hidden]' in snap  # clipped away: listed, no ref
        display = _ref(_line(snap, 'textbox "Display name"'))

        # A dropdown opened by a class: its items appeared, with refs that act.
        opened = await ok(client, "click", {"ref": _ref(_line(snap, 'button "Options"'))})
        appeared = _named(opened["structure"]["appeared"])
        assert set(appeared) == {("menu", ""), ("menuitem", "Edit"), ("menuitem", "Archive")}, opened["structure"]
        assert "removed" not in opened["structure"]
        await ok(client, "click", {"ref": appeared[("menuitem", "Archive")]})
        assert await _text(client, "#picked") == "archive"
        closed = await ok(client, "click", {"selector": "#options"})
        assert _named(closed["structure"]["removed"]) == appeared and "appeared" not in closed["structure"]

        # A tab switched by class: one panel's controls appear, the other's go.
        billing = await ok(client, "click", {"selector": "#tab-billing"})
        assert set(_named(billing["structure"]["appeared"])) >= {("button", "Add card")}
        assert ("textbox", "Display name") in _named(billing["structure"]["removed"])
        assert display in {n["ref"] for n in billing["structure"]["removed"]}
        back = await ok(client, "click", {"selector": "#tab-profile"})
        assert _named(back["structure"]["appeared"]).get(("textbox", "Display name")) == display

        # A collapse at max-height 0 (clipped, not display:none) expands.
        more = await ok(client, "click", {"selector": "#more"})
        assert set(_named(more["structure"]["appeared"])) == {("link", "Read the terms")}
        folded = await ok(client, "click", {"selector": "#more"})
        assert set(_named(folded["structure"]["removed"])) == {("link", "Read the terms")}

        # Opacity 0 to 1: a toast's button appears.
        toast = await ok(client, "click", {"selector": "#notify"})
        assert set(_named(toast["structure"]["appeared"])) == {("button", "Undo")}

        # The hidden attribute, visibility, aria-hidden, a zero width: each way in and out.
        for selector, node in (("#reveal", ("button", "Only open")), ("#unveil", ("link", "Read the FAQ")),
                               ("#expose", ("button", "Copy link")), ("#grow", ("button", "Empty tray"))):
            shown = await ok(client, "click", {"selector": selector})
            assert node in _named(shown["structure"]["appeared"]), (selector, shown["structure"])
            hidden = await ok(client, "click", {"selector": selector})
            assert node in _named(hidden["structure"]["removed"]), (selector, hidden["structure"])
            assert "appeared" not in hidden["structure"]

        # A drawer parked off the page's start has no ref; sliding it in lists its link.
        assert 'link "Home page" [hidden]' in snap
        parked = await fails(client, "click", {"selector": "#drawer a"}, "not-visible")
        assert "off-screen" in parked["reason"]
        slid = await ok(client, "click", {"selector": "#slide"})
        home = _named(slid["structure"]["appeared"])[("link", "Home page")]
        assert (await ok(client, "click", {"ref": home}))["navigation"]["to"].endswith("#home")
        away = await ok(client, "click", {"selector": "#slide"})
        assert home in {n["ref"] for n in away["structure"]["removed"]}


# -- 3. settle waits for the page's own update ------------------------------------------


async def test_settle_waits_for_transitions_frames_and_timers(tmp_path: Path, pages_url: str) -> None:
    async with browx_server(tmp_path / "ws", "eval") as client:
        await ok(client, "navigate", {"url": f"{pages_url}/real_settle.html"})
        await ok(client, "snapshot")

        # A modal's 300 ms fade: the click answers after it, and says so.
        # The input's own time is at most the whole call's less the page's wait.
        opened = await ok(client, "click", {"selector": "#open"})
        acted = opened["settled"]["ms"] - opened["settled"].get("pageMs", 0)
        if acted < 250:  # else the fade ran out while the input was acked
            assert "animation" in opened["settled"]["by"].split("+"), opened["settled"]
            assert opened["settled"]["ms"] >= 250, opened["settled"]
        assert ("button", "Confirm") in _named(opened["structure"]["appeared"])
        assert await _text(client, "#modal-state") == "open"
        snap = (await ok(client, "snapshot"))["snapshot"]
        confirm = _ref(_line(snap, 'button "Confirm"'))
        # The modal is still: the button is clicked at once, with direct input.
        closed = await ok(client, "click", {"ref": confirm})
        assert "input" not in closed["settled"]
        assert confirm in {n["ref"] for n in closed["structure"]["removed"]}
        assert await _text(client, "#modal-state") == "closed"

        # A requestAnimationFrame chain that grows a box, then says so.
        grown = await ok(client, "click", {"selector": "#expand"})
        acted = grown["settled"]["ms"] - grown["settled"].get("pageMs", 0)
        if acted < 150:  # ten frames; else they ran while the input was acked
            assert "frame" in grown["settled"]["by"].split("+"), grown["settled"]
        assert await _text(client, "#grow-state") == "expanded"
        assert ("link", "More reading") in _named(grown["structure"]["appeared"])

        # A page with nothing under way pays nothing: no wait is reported.
        plain = await ok(client, "click", {"selector": "h1"})
        assert plain["settled"]["by"] == "task-turn" and "pageMs" not in plain["settled"]

        # The form whose output is rewritten on change in a microtask, then by a timer:
        # select, then read, must be right every time.
        prices = {"free": "$0", "pro": "$12", "team": "$30"}
        stale = []
        for i in range(50):
            plan = ("pro", "team", "free")[i % 3]
            selected = await ok(client, "select", {"selector": "#plan", "values": [plan]})
            read = await call(client, "verify_text", {"selector": "#price", "text": prices[plan], "exact": True})
            if not read["ok"]:
                stale.append((i, plan, read.get("actual"), selected["settled"]))
        assert stale == []


# -- 4. same-document navigations are not loads -----------------------------------------


async def test_same_document_navigations(tmp_path: Path, pages_url: str) -> None:
    page = f"{pages_url}/real_router.html"
    async with browx_server(tmp_path / "ws", "eval") as client:
        assert (await ok(client, "navigate", {"url": page}))["url"] == page
        snap = (await ok(client, "snapshot"))["snapshot"]
        start = _ref(_line(snap, 'button "Start"'))

        # pushState: a navigation, same document, with the structure diff kept.
        about = await ok(client, "click", {"ref": _ref(_line(snap, 'link "About"'))})
        assert about["navigation"] == {"to": f"{page}?view=about", "sameDocument": True}
        assert about["settled"]["by"] == "task-turn"
        assert ("heading", "About us") in _named(about["structure"]["appeared"])
        assert start in {n["ref"] for n in about["structure"]["removed"]}

        # The same route again: pushState to the URL it is at is no change.
        again = await ok(client, "click", {"selector": "a[data-route=about]"})
        assert "navigation" not in again
        assert (await ok(client, "eval_js", {"expr": "location.href"}))["value"] == f"{page}?view=about"

        # replaceState and a hash link: same document too.
        replaced = await ok(client, "click", {"selector": "#replace"})
        assert replaced["navigation"] == {"to": f"{page}?view=replaced", "sameDocument": True}
        assert ("heading", "Home page") in _named(replaced["structure"]["appeared"])
        hashed = await ok(client, "click", {"selector": "a[href='#contact']"})
        assert hashed["navigation"] == {"to": f"{page}?view=replaced#contact", "sameDocument": True}
        # The hash change fires popstate, which renders the view again: the diff is kept.
        assert ("heading", "Home page") in _named(hashed["structure"]["appeared"])
        assert "domcontentloaded" not in hashed["settled"]["by"]

        # History and navigate say the same: no load happened.
        back = await ok(client, "go_back")
        assert back["sameDocument"] is True and back["settled"]["by"] == "same-document"
        assert back["url"] == f"{page}?view=replaced"
        jumped = await ok(client, "navigate", {"url": f"{page}?view=replaced#contact"})
        assert jumped["sameDocument"] is True and "status" not in jumped
        assert jumped["url"] == f"{page}?view=replaced#contact"

        # A real load is still one.
        loaded = await ok(client, "navigate", {"url": page})
        assert "sameDocument" not in loaded and loaded["settled"]["by"] == "load-state"
        assert loaded["url"] == page and loaded["status"] == 200
        home = await ok(client, "click", {"selector": "a[data-route=home]"})
        assert home["navigation"] == {"to": f"{page}?view=home", "sameDocument": True}


# -- 5. text is not cut where the agent needs it ----------------------------------------


async def test_long_text_is_shown_whole_up_to_a_generous_bound(tmp_path: Path, pages_url: str) -> None:
    async with browx_server(tmp_path / "ws", "eval") as client:
        await ok(client, "navigate", {"url": f"{pages_url}/real_text.html"})
        body = await _text(client, "#body")
        assert len(body) == 5003
        snap = (await ok(client, "snapshot"))["snapshot"]
        # The response body is read whole from one snapshot, end included.
        assert f"text: {body}" in snap and body.endswith('"END-OF-BODY"')
        # Past the bound: cut, with an explicit marker that says what is left and how.
        log = _line(snap, "LLLL")
        assert log == "paragraph: " + "L" * 6000 + "\u2026 (14001 more chars; use text_search or scope)"
        found = await ok(client, "text_search", {"query": "TAIL-OF-LOG"})
        assert found["count"] == 1


# -- 6. refs only for what can be acted on ----------------------------------------------


async def test_unreachable_controls_have_no_ref_and_refuse_at_once(tmp_path: Path, pages_url: str) -> None:
    async with browx_server(tmp_path / "ws", "eval") as client:
        await ok(client, "navigate", {"url": f"{pages_url}/real_reach.html"})
        snap = (await ok(client, "snapshot"))["snapshot"]
        assert _line(snap, '"Zero"') == 'button "Zero" [hidden]'
        assert _line(snap, '"Inside drawer"') == 'button "Inside drawer" [hidden]'
        # A fixed element escapes the drawer's clipping; an ordinary one is fine.
        floating = _ref(_line(snap, 'button "Floating"'))
        _ref(_line(snap, 'button "Normal"'))

        for selector, reason, said in (("#zero", "zero-size", "no area"), ("#inside", "clipped", "clipped away")):
            started = time.monotonic()
            refused = await fails(client, "click", {"selector": selector}, "not-visible")
            assert time.monotonic() - started < 3, "answered at once, not after the action timeout"
            assert refused["reason"] == reason and said in refused["error"]
        assert await _text(client, "#log") == "none"
        await ok(client, "click", {"ref": floating})
        assert await _text(client, "#log") == "escape clicked"
        await ok(client, "click", {"selector": "#normal"})
        assert await _text(client, "#log") == "normal clicked"


# -- 7. names as a person reads them ----------------------------------------------------


async def test_invisible_characters_are_not_in_names_or_text(tmp_path: Path, pages_url: str) -> None:
    async with browx_server(tmp_path / "ws") as client:
        await ok(client, "navigate", {"url": f"{pages_url}/real_names.html"})
        snap = (await ok(client, "snapshot"))["snapshot"]
        assert not re.search("[\u00ad\u200b-\u200d\u2060\ufeff]", snap), ascii(snap)
        assert 'heading "Welcome"' in snap and 'button "Submit"' in snap and 'link "Documentation"' in snap
        assert "text: Price: free for ever" in snap or "paragraph: Price: free for ever" in snap
        assert 'textbox "Email"' in snap
        # find matches what the snapshot shows, whether or not the query has them.
        exact = await ok(client, "find", {"name": "Submit", "exact": True})
        assert exact["count"] == 1 and exact["matches"][0]["name"] == "Submit"
        with_zwsp = await ok(client, "find", {"role": "link", "name": "Docu\u00admentation", "exact": True})
        assert with_zwsp["count"] == 1
        assert (await ok(client, "find", {"role": "textbox", "name": "Email", "exact": True}))["count"] == 1
        assert (await ok(client, "text_search", {"query": "free for ever"}))["count"] == 1
        await ok(client, "verify_text", {"text": "Welcome"})


# -- 8. state the page exposes ----------------------------------------------------------


async def test_aria_states_and_grid_row_order(tmp_path: Path, pages_url: str) -> None:
    async with browx_server(tmp_path / "ws") as client:
        await ok(client, "navigate", {"url": f"{pages_url}/real_grid.html"})
        snap = (await ok(client, "snapshot"))["snapshot"]
        assert _line(snap, 'link "Orders"').endswith("[current=page] url=#a")
        assert "[current" not in _line(snap, 'link "Returns"')
        assert _line(snap, 'button "Bold"').endswith("[pressed]")
        assert _line(snap, 'button "Italic"').endswith("[pressed=false]")
        assert _line(snap, 'textbox "Quantity"').endswith('[invalid] value="-1"')
        assert _line(snap, 'region "Results"').endswith("[busy]")
        assert _line(snap, 'columnheader "Number"').endswith("[sort=ascending]")
        assert "[sort" not in _line(snap, 'columnheader "Customer"')  # "none" is no sort
        # Rows in their displayed order (aria-rowindex), not the DOM's.
        cells = re.findall(r'gridcell "(\d+)"', snap)
        assert cells == ["1001", "1002", "1003"], snap
        row = [line for line in snap.splitlines() if line.strip().startswith("row") and "[selected]" in line]
        assert len(row) == 1
        described = await ok(client, "find", {"role": "columnheader", "name": "Number"})
        state = await ok(client, "verify_visible", {"ref": described["matches"][0]["ref"]})
        assert state["element"]["sort"] == "ascending"


# -- 9. errors that say what happened ---------------------------------------------------


async def test_a_ref_never_issued_is_unknown_not_stale(tmp_path: Path, pages_url: str) -> None:
    async with browx_server(tmp_path / "ws") as client:
        await ok(client, "navigate", {"url": f"{pages_url}/real_refs.html"})
        for tool, args in (("click", {"ref": "e999"}), ("snapshot", {"scope": "e999"}),
                           ("verify_visible", {"ref": "e999"}), ("verify_attribute",
                                                                 {"ref": "e999", "name": "id", "value": "go"})):
            unknown = await fails(client, tool, args, "unknown-ref")
            assert "take a snapshot first" in unknown["error"], unknown
        snap = (await ok(client, "snapshot"))["snapshot"]
        go = _ref(_line(snap, 'button "Go"'))
        await ok(client, "click", {"selector": "#drop"})
        stale = await fails(client, "click", {"ref": go}, "stale-element")
        assert "no longer points at a live element" in stale["error"]
        await fails(client, "verify_attribute", {"ref": go, "name": "id", "value": "go"}, "stale-element")
        # A ref from an earlier page was issued: stale there, though this page never saw it.
        await ok(client, "navigate", {"url": f"{pages_url}/real_names.html"})
        await fails(client, "click", {"ref": go}, "stale-element")
        await fails(client, "snapshot", {"scope": go}, "stale-element")
        await fails(client, "click", {"ref": "e999"}, "unknown-ref")


# -- 10. credentials never leak through URLs --------------------------------------------


async def test_credentials_in_urls_are_redacted_everywhere(tmp_path: Path, pages_url: str) -> None:
    workspace = tmp_path / "ws"
    secrets = ("hunter22", "tk-998877", "AK-5566", "sig-4433", "s3ss10n")
    async with browx_server(workspace, "diagnostics") as client:
        url = f"{pages_url}/real_credentials.html?session=s3ss10n&lang=en"
        navigated = await ok(client, "navigate", {"url": url})
        assert navigated["url"] == f"{pages_url}/real_credentials.html?session=<redacted>&lang=en"
        snap = (await ok(client, "snapshot", {}))["snapshot"]
        assert "url=/api?token=<redacted>&page=2" in snap
        assert "url=?keyword=shoes" in snap  # not a credential: kept
        assert "X-Amz-Signature=<redacted>&w=1" in snap
        logged = await ok(client, "click", {"selector": "#log"})
        assert any("apikey=<redacted>&q=1" in line["text"] for line in logged["console"]), logged["console"]
        repo = await ok(client, "find", {"role": "link", "name": "Repository"})
        assert repo["count"] == 1
        assert (await ok(client, "text_search", {"query": "Signed"}))["count"] == 1
        everything = client.transcript.everything()  # type: ignore[attr-defined]
        for secret in secrets:
            assert secret not in everything, secret
        assert "<redacted>" in everything
    records = "".join(p.read_text() for p in (workspace / "diagnostics").rglob("*.jsonl"))
    assert '"navigate"' in records and "<redacted>" in records
    for secret in secrets:
        assert secret not in records, secret
