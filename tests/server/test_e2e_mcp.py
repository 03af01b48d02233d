"""End to end: the real server in a subprocess, the MCP SDK's client over real stdio,
real headless Chromium, pages served on loopback.

Each test starts one server and runs many checks against it, so the suite stays fast.
Every tool is called through MCP at least once, and the checks look at what the tools
did to the page (text that appeared, values, scroll offsets, image headers, files),
not only at ``ok``.
"""

from __future__ import annotations

import json
import os
import re
import signal
import time
from pathlib import Path
from typing import Any

import pytest
import trio
from mcp.client import Client

from e2e_support import (
    JPEG_MAGIC,
    PNG_MAGIC,
    Recording,
    browx_server,
    call,
    call_result,
    envelope_of,
    fails,
    images_of,
    jpeg_size,
    ok,
    png_size,
    process_alive,
    processes_matching,
    recording_server,
    user_data_dir_of,
    wait_until_gone,
)

pytestmark = pytest.mark.chromium

ALL_TOOLS = {
    "open_session", "close_session", "list_sessions", "register_secret", "runtime_status",
    "navigate", "go_back", "go_forward", "snapshot", "find", "text_search", "click", "hover",
    "fill", "press", "select", "scroll", "wait_for", "screenshot", "set_viewport",
    "verify_visible", "verify_text", "verify_value", "verify_attribute", "verify_count", "eval_js",
    "list_tabs", "select_tab", "close_tab",
}

_LINE = re.compile(r'^\s*(\w+)(?: "((?:[^"\\]|\\.)*)")? \[ref=(e\d+)\]', re.M)


def refs_of(snapshot: str) -> dict[tuple[str, str], str]:
    """``(role, name) -> ref`` for every line of a snapshot that carries a ref."""
    return {(role, name): ref for role, name, ref in _LINE.findall(snapshot)}


def tree_child(status: dict[str, Any], child_id: str) -> dict[str, Any]:
    """A child of the runtime's tree in a runtime_status answer, by id."""
    children = {c["id"]: c for c in status["tree"]["children"]}
    assert child_id in children, (child_id, list(children))
    return children[child_id]


async def eval_value(client: Client, expr: str, session: str = "default") -> Any:
    return (await ok(client, "eval_js", {"expr": expr, "session": session}))["value"]


#: Every key an action result may carry; all but ``ok`` and ``settled`` are left out when
#: they have nothing to say (``target`` when nothing was aimed at).
ACTION_KEYS = {"ok", "target", "element", "navigation", "structure", "console", "opened", "dialog",
               "settled", "warnings"}


def assert_action_shape(envelope: dict[str, Any], *extra: str) -> None:
    """An action result says each thing once: no echo of the tool, no empty parts.
    ``extra`` names the keys of the tool's own (``scroll``)."""
    assert envelope["ok"] is True, envelope
    assert "action" not in envelope, envelope
    assert set(envelope) <= ACTION_KEYS | set(extra), envelope
    for key in ("target", "element", "navigation", "structure", "console", "opened", "warnings"):
        if key in envelope:
            assert envelope[key], (key, envelope)
    if "navigation" in envelope:
        assert "to" in envelope["navigation"], envelope
        assert set(envelope["navigation"]) <= {"to", "sameDocument", "reloaded"}, envelope
    if "structure" in envelope:
        assert set(envelope["structure"]) <= {"appeared", "removed", "truncated"}, envelope
        assert all(envelope["structure"].values()), envelope
    settled = envelope["settled"]
    assert set(settled) >= {"by", "ms"} and set(settled) <= {"by", "ms", "pageMs", "input"}, settled
    assert settled["by"] in ("task-turn", "network-idle+task-turn", "domcontentloaded")
    assert isinstance(settled["ms"], (int, float)) and settled["ms"] >= 0, settled
    assert settled.get("input", "playwright") == "playwright", settled


def assert_navigated(envelope: dict[str, Any], url: str, title: str, status: int | None = 200) -> None:
    """A navigate / go_back / go_forward result that loaded a document: where the tab is
    now, the response's status and the title, said once (no echo, no ``navigation``)."""
    assert envelope["ok"] is True, envelope
    assert envelope["url"] == url and envelope["title"] == title, envelope
    assert "action" not in envelope and "navigation" not in envelope, envelope
    assert "sameDocument" not in envelope, envelope  # a load happened
    if status is None:
        assert "status" not in envelope, envelope
    else:
        assert envelope["status"] == status, envelope
    assert set(envelope) <= {"ok", "url", "status", "title", "console", "settled", "warnings"}, envelope
    assert envelope.get("console", [None]) and envelope.get("warnings", [None]), envelope
    assert set(envelope["settled"]) == {"by", "ms"} and envelope["settled"]["by"] == "load-state", envelope


# -- 1. sessions, navigation and reading -----------------------------------------------


SMALL_SNAPSHOT = """\
heading "Hello E2E" [ref=e1] [level=1]
navigation "Main" [ref=e2]
  list [ref=e3]
    link "Second page" [ref=e4] url=e2e_second.html
    link "App page" [ref=e5] url=e2e_app.html
main [ref=e6]
  textbox "Your name" [ref=e7] value="Ada"
  button "Go" [ref=e8]
  checkbox "Keep me signed in" [ref=e9] [checked]
  paragraph: Plain words live here."""


async def test_sessions_navigation_and_reading(tmp_path: Path, pages_url: str, pages_url2: str) -> None:
    async with browx_server(tmp_path / "ws", "eval") as client:
        listing = await client.list_tools()
        # Only the tools this server's capabilities allow: eval, not secrets.
        listed_names = {t.name for t in listing.tools}
        assert listed_names >= ALL_TOOLS - {"register_secret"}
        assert "register_secret" not in listed_names

        # -- open_session / list_sessions / close_session ---------------------------
        opened = await ok(client, "open_session", {"session": "s1", "viewport": {"width": 1024, "height": 700}})
        assert opened == {"ok": True, "session": "s1", "engine": "chromium",
                          "viewport": {"width": 1024, "height": 700}}
        assert await eval_value(client, "window.innerWidth", "s1") == 1024
        assert await eval_value(client, "window.innerHeight", "s1") == 700
        again = await fails(client, "open_session", {"session": "s1"}, "session-exists")
        assert again["session"] == "s1"
        unknown_engine = await fails(client, "open_session", {"session": "x", "engine": "netscape"},
                                     "unknown-engine")
        assert unknown_engine["engine"] == "netscape"
        safari = await fails(client, "open_session", {"session": "x", "engine": "safari"}, "engine-unavailable")
        assert safari["engine"] == "safari" and "macOS" in safari["error"]
        listed = await ok(client, "list_sessions")
        assert listed["count"] == 1 and [s["id"] for s in listed["sessions"]] == ["s1"]
        assert listed["sessions"][0]["engine"] == "chromium"
        assert listed["sessions"][0]["url"] == "about:blank"

        # -- navigate: status, title, navigation ------------------------------------
        small = f"{pages_url}/e2e_small.html"
        # (The page before, about:blank, is the list_sessions url just above.)
        nav = await ok(client, "navigate", {"session": "s1", "url": small})
        assert_navigated(nav, small, "E2E small")
        listed = await ok(client, "list_sessions")
        assert listed["sessions"][0]["url"] == small
        nope = f"{pages_url}/e2e_nope.html"
        missing = await ok(client, "navigate", {"session": "s1", "url": nope})
        assert missing["status"] == 404
        assert missing["url"] == nope and "navigation" not in missing
        back_home = await ok(client, "navigate", {"session": "s1", "url": small})
        assert_navigated(back_home, small, "E2E small")

        second = f"{pages_url}/e2e_second.html"
        nav2 = await ok(client, "navigate", {"session": "s1", "url": second})
        assert_navigated(nav2, second, "E2E second")

        # -- navigation to another origin ----------------------------------------------
        other = f"{pages_url2}/e2e_small.html"
        nav3 = await ok(client, "navigate", {"session": "s1", "url": other})
        assert_navigated(nav3, other, "E2E small")
        assert (await ok(client, "list_sessions"))["sessions"][0]["url"] == other
        assert await eval_value(client, "location.origin", "s1") == pages_url2

        # -- snapshot: exact text, refs stable, scope, maxNodes, omit ---------------
        await ok(client, "navigate", {"session": "s1", "url": small})
        snap = await ok(client, "snapshot", {"session": "s1"})
        assert snap["snapshot"] == SMALL_SNAPSHOT
        assert snap["url"] == small and snap["title"] == "E2E small"
        assert snap["nodeCount"] == 10 and "truncated" not in snap
        snap_again = await ok(client, "snapshot", {"session": "s1"})
        assert snap_again["snapshot"] == SMALL_SNAPSHOT

        scoped = await ok(client, "snapshot", {"session": "s1", "scope": "main"})
        assert scoped["snapshot"] == "\n".join(SMALL_SNAPSHOT.splitlines()[5:])
        scoped_by_ref = await ok(client, "snapshot", {"session": "s1", "scope": "e2"})
        assert scoped_by_ref["snapshot"] == "\n".join(SMALL_SNAPSHOT.splitlines()[1:5])

        truncated = await ok(client, "snapshot", {"session": "s1", "maxNodes": 3})
        assert truncated["truncated"] is True
        assert truncated["snapshot"] == "\n".join(SMALL_SNAPSHOT.splitlines()[:3])

        omitted = await ok(client, "snapshot", {"session": "s1", "omit": ["list"]})
        assert "list [ref=e3]" not in omitted["snapshot"]
        assert '  link "Second page" [ref=e4] url=e2e_second.html' in omitted["snapshot"].splitlines()
        assert "truncated" not in omitted

        # -- find: role, name, text, testId; selectorHint is reusable ---------------
        buttons = await ok(client, "find", {"session": "s1", "role": "button"})
        assert [(m["ref"], m["role"], m["name"]) for m in buttons["matches"]] == [("e8", "button", "Go")]
        by_test_id = await ok(client, "find", {"session": "s1", "testId": "go-button"})
        assert [m["ref"] for m in by_test_id["matches"]] == ["e8"]
        hint = by_test_id["matches"][0]["selectorHint"]
        await ok(client, "verify_text", {"session": "s1", "selector": hint, "text": "Go", "exact": True})
        links = await ok(client, "find", {"session": "s1", "role": "link", "name": "page"})
        assert [(m["ref"], m["name"]) for m in links["matches"]] == [("e4", "Second page"), ("e5", "App page")]
        assert links["count"] == 2 and "truncated" not in links
        exact = await ok(client, "find", {"session": "s1", "role": "link", "name": "App page", "exact": True})
        assert [m["ref"] for m in exact["matches"]] == ["e5"]
        limited = await ok(client, "find", {"session": "s1", "role": "link", "limit": 1})
        assert len(limited["matches"]) == 1 and limited["count"] == 2 and limited["truncated"] is True
        by_text = await ok(client, "find", {"session": "s1", "text": "Plain words"})
        assert len(by_text["matches"]) == 1 and by_text["matches"][0]["role"] == "paragraph"
        await ok(client, "verify_visible", {"session": "s1", "selector": by_text["matches"][0]["selectorHint"]})
        scoped_find = await ok(client, "find", {"session": "s1", "role": "link", "scope": "main"})
        assert scoped_find["matches"] == []
        link_hint = links["matches"][0]["selectorHint"]
        await ok(client, "verify_attribute", {"session": "s1", "selector": link_hint, "name": "href",
                                              "value": "e2e_second.html"})

        # -- text_search ------------------------------------------------------------
        found = await ok(client, "text_search", {"session": "s1", "query": "WORDS live"})
        assert found["count"] == 1 and "truncated" not in found
        assert found["matches"][0]["snippet"] == "Plain words live here."
        assert found["matches"][0]["ref"] == by_text["matches"][0]["ref"]
        case = await ok(client, "text_search", {"session": "s1", "query": "WORDS", "caseSensitive": True})
        assert case["count"] == 0 and case["matches"] == [] and "truncated" not in case
        several = await ok(client, "text_search", {"session": "s1", "query": "page", "limit": 1})
        assert several["count"] == 2 and len(several["matches"]) == 1 and several["truncated"] is True

        # -- verify_* against the small page ----------------------------------------
        await ok(client, "verify_value", {"session": "s1", "ref": "e7", "value": "Ada"})
        wrong = await fails(client, "verify_value", {"session": "s1", "ref": "e7", "value": "Bob"},
                            "verification-failed")
        assert wrong["expected"] == "Bob" and wrong["actual"] == "Ada"
        found = await ok(client, "verify_text", {"session": "s1", "text": "Hello E2E"})
        assert "actual" not in found and "Hello E2E" in found["matches"][0]["snippet"], found
        absent = await fails(client, "verify_text", {"session": "s1", "text": "Goodbye"}, "verification-failed")
        assert absent["expected"] == "Goodbye" and "0 matches" in absent["actual"]
        in_element = await fails(client, "verify_text", {"session": "s1", "ref": "e1", "text": "Hello",
                                                         "exact": True}, "verification-failed")
        assert in_element["actual"] == "Hello E2E"
        contains = await ok(client, "verify_text", {"session": "s1", "ref": "e1", "text": "Hello"})
        assert contains == {"ok": True, "actual": "Hello E2E"}

        # -- close_session ----------------------------------------------------------
        closed = await ok(client, "close_session", {"session": "s1"})
        assert closed == {"ok": True, "session": "s1", "closed": True}
        await fails(client, "close_session", {"session": "s1"}, "unknown-session")
        gone = await fails(client, "snapshot", {"session": "s1"}, "unknown-session")
        assert gone["session"] == "s1"
        assert (await ok(client, "list_sessions"))["count"] == 0
        # The id is free again, with a fresh context.
        await ok(client, "open_session", {"session": "s1"})
        assert await eval_value(client, "location.href", "s1") == "about:blank"

        # -- runtime_status ---------------------------------------------------------
        status = await ok(client, "runtime_status")
        # Every child of the root, in start order (no operator-channel: it is off).
        assert [c["id"] for c in status["tree"]["children"]] == [
            "recorder", "browser-pool", "firefox-pool", "devices", "sessions"]
        recorder = tree_child(status, "recorder")
        assert recorder["alive"] is True and recorder["recording"] is False
        pool, sessions = tree_child(status, "browser-pool"), tree_child(status, "sessions")
        assert pool["id"] == "browser-pool" and pool["alive"] is True
        assert pool["browser"]["generation"] == 1 and pool["launches"] == 1
        assert process_alive(pool["browser"]["pid"])
        assert sessions["id"] == "sessions" and sessions["alive"] is True
        assert [c["id"] for c in sessions["children"]] == ["s1"]
        assert [s["id"] for s in status["sessions"]] == ["s1"]
        assert "eval" in status["capabilities"]["server"]


# -- 2. actions and what they do to the page -----------------------------------------


async def test_actions_report_their_effects(tmp_path: Path, pages_url: str) -> None:
    app = f"{pages_url}/e2e_app.html"
    async with browx_server(tmp_path / "ws", "eval") as client:
        # The default session opens by itself on first use.
        await ok(client, "navigate", {"url": app})
        snap = (await ok(client, "snapshot"))["snapshot"]
        refs = refs_of(snap)
        add = refs[("button", "Add item")]

        # -- click by ref: structure.appeared names the new nodes with live refs ----
        clicked = await ok(client, "click", {"ref": add})
        assert_action_shape(clicked)
        assert clicked["target"]["ref"] == add and clicked["target"]["role"] == "button"
        assert clicked["target"]["name"] == "Add item"
        assert "navigation" not in clicked  # the page stayed where it was
        assert "warnings" not in clicked
        appeared = {(n["role"], n["name"]): n["ref"] for n in clicked["structure"]["appeared"]}
        assert ("button", "Remove item 1") in appeared and ("listitem", "") in appeared
        assert "removed" not in clicked["structure"]
        # The focus the click gave the button is not a change: nothing else changed on it.
        assert "element" not in clicked
        after = (await ok(client, "snapshot"))["snapshot"]
        assert f'button "Add item" [ref={add}] [focused]' in after
        assert f'button "Remove item 1" [ref={appeared[("button", "Remove item 1")]}]' in after
        # Refs of elements that were there before did not move.
        for key, ref in refs.items():
            assert refs_of(after)[key] == ref
        await ok(client, "verify_count", {"selector": "#items li", "count": 1})
        await ok(client, "click", {"ref": add})
        await ok(client, "verify_count", {"selector": "#items li", "count": 2})
        await ok(client, "verify_text", {"selector": "#items", "text": "Item 2"})

        # -- click by selector matching several: first one, with a warning ----------
        dup = await ok(client, "click", {"selector": ".dup"})
        assert dup["target"]["name"] == "Dup A"
        assert len(dup["warnings"]) == 1 and "2 elements" in dup["warnings"][0]
        await ok(client, "verify_text", {"selector": "#dup-out", "text": "clicked Dup A", "exact": True})

        # -- click by coords: the page sees the click at that point -----------------
        at = await ok(client, "click", {"coords": {"x": 800, "y": 70}})
        assert at["target"]["role"] == "button" and at["target"]["name"] == "Pad"
        await ok(client, "verify_text", {"selector": "#pad-out", "text": "pad clicked at 800,70", "exact": True})

        # -- hover: mouseover handler ran and :hover applies -------------------------
        assert await eval_value(client, "document.querySelector('#hoverbox').matches(':hover')") is False
        hovered = await ok(client, "hover", {"selector": "#hoverbox"})
        assert_action_shape(hovered)
        assert hovered["target"]["text"] == "Hover me"
        await ok(client, "verify_text", {"selector": "#hover-out", "text": "hovered", "exact": True})
        assert await eval_value(client, "document.querySelector('#hoverbox').matches(':hover')") is True
        assert await eval_value(
            client, "getComputedStyle(document.querySelector('#hoverbox')).backgroundColor"
        ) == "rgb(0, 128, 0)"

        # -- fill, then press Enter on the field submits the form -------------------
        query = refs[("textbox", "Query")]
        filled = await ok(client, "fill", {"ref": query, "value": "kittens"})
        assert_action_shape(filled)
        assert filled["target"]["value"] == "" and filled["element"]["value"] == "kittens"
        await ok(client, "verify_value", {"ref": query, "value": "kittens"})
        await ok(client, "verify_text", {"selector": "#submitted", "text": "Nothing submitted", "exact": True})
        pressed = await ok(client, "press", {"ref": query, "key": "Enter"})
        assert_action_shape(pressed)
        assert pressed["target"]["ref"] == query
        await ok(client, "verify_text", {"selector": "#submitted", "text": "Submitted: kittens", "exact": True})
        # fill with submit does both in one call.
        await ok(client, "fill", {"selector": "#q", "value": "puppies", "submit": True})
        await ok(client, "verify_text", {"selector": "#submitted", "text": "Submitted: puppies", "exact": True})

        # -- press a key on the page (no target) ------------------------------------
        await ok(client, "click", {"coords": {"x": 5, "y": 5}})  # move focus off the field
        on_page = await ok(client, "press", {"key": "x"})
        assert_action_shape(on_page)
        assert "target" not in on_page  # nothing was aimed at
        await ok(client, "verify_text", {"selector": "#lastkey", "text": "Last key: x", "exact": True})
        await ok(client, "press", {"key": "Shift+KeyZ"})
        await ok(client, "verify_text", {"selector": "#lastkey", "text": "Last key: Z", "exact": True})
        bad_key = await fails(client, "press", {"key": "NoSuchKey"}, "bad-arg")
        assert bad_key["field"] == "key"

        # -- select by value and by label ------------------------------------------
        color = refs[("combobox", "Color")]
        by_value = await ok(client, "select", {"ref": color, "values": ["b"]})
        assert_action_shape(by_value)
        assert by_value["element"]["value"] == "Blue"
        await ok(client, "verify_text", {"selector": "#color-out", "text": "b", "exact": True})
        by_label = await ok(client, "select", {"selector": "#color", "values": ["Green"]})
        assert by_label["target"]["value"] == "Blue" and by_label["element"]["value"] == "Green"
        await ok(client, "verify_text", {"selector": "#color-out", "text": "g", "exact": True})
        assert await eval_value(client, "document.querySelector('#color').value") == "g"
        no_option = await fails(client, "select", {"ref": color, "values": ["Purple"]}, "bad-arg")
        assert no_option["field"] == "values"

        # -- scroll: the page by a delta, then an element into view ----------------
        assert await eval_value(client, "scrollY") == 0
        scrolled = await ok(client, "scroll", {"deltaY": 500})
        assert_action_shape(scrolled, "scroll")  # the tool's own key
        assert scrolled["scroll"] == {"x": 0, "y": 500}
        assert await eval_value(client, "scrollY") == 500
        back_up = await ok(client, "scroll", {"deltaY": -200})
        assert back_up["scroll"]["y"] == 300
        into_view = await ok(client, "scroll", {"selector": "#bottom"})
        assert into_view["scroll"]["y"] > 2500
        assert await eval_value(
            client, "(() => { const r = document.querySelector('#bottom').getBoundingClientRect();"
                    " return r.top >= 0 && r.bottom <= innerHeight; })()"
        ) is True
        await ok(client, "scroll", {"deltaY": -100000})

        # -- verify_* passing and failing ------------------------------------------
        await ok(client, "verify_visible", {"ref": add})
        hidden = await fails(client, "verify_visible", {"selector": "#hidden-note"}, "verification-failed")
        assert hidden["expected"] is True and hidden["actual"] is False
        nothing = await fails(client, "verify_visible", {"selector": "#does-not-exist"}, "verification-failed")
        assert nothing["actual"] is False
        attribute = await ok(client, "verify_attribute", {"selector": "#docs-link", "name": "data-state",
                                                          "value": "idle"})
        assert "actual" not in attribute  # as expected
        wrong_attr = await fails(client, "verify_attribute", {"selector": "#docs-link", "name": "data-state",
                                                              "value": "busy"}, "verification-failed")
        assert wrong_attr["expected"] == "busy" and wrong_attr["actual"] == "idle"
        counted = await ok(client, "verify_count", {"selector": ".dup", "count": 2})
        assert "actual" not in counted
        miscount = await fails(client, "verify_count", {"selector": ".dup", "count": 3}, "verification-failed")
        assert miscount["expected"] == 3 and miscount["actual"] == 2
        await ok(client, "verify_count", {"selector": ".nothing", "count": 0})
        not_found = await fails(client, "verify_value", {"selector": "#nope", "value": "x"}, "target-not-found")
        assert not_found["ok"] is False
        wrong_value = await fails(client, "verify_value", {"selector": "#q", "value": "kittens"},
                                  "verification-failed")
        assert wrong_value["expected"] == "kittens" and wrong_value["actual"] == "puppies"

        # -- click a link: a navigation, reported as one -----------------------------
        assert (await ok(client, "list_sessions"))["sessions"][0]["url"] == app  # where it leaves from
        link = await ok(client, "click", {"selector": "#docs-link"})
        assert_action_shape(link)
        assert link["navigation"] == {"to": f"{pages_url}/e2e_second.html"}
        assert "structure" not in link  # the new page is read with snapshot
        assert link["settled"]["by"] == "domcontentloaded"
        await ok(client, "verify_text", {"text": "You reached the second page."})

        # -- stale refs answer stale-element ---------------------------------------
        stale = await fails(client, "click", {"ref": add}, "stale-element")
        assert stale["ref"] == add
        await fails(client, "click", {"selector": "#add"}, "target-not-found")

        # -- eval_js ----------------------------------------------------------------
        assert await eval_value(client, "1 + 2") == 3
        # With its capability on, eval_js checks its arguments like any tool.
        wrong_type = await fails(client, "eval_js", {"expr": 1}, "bad-arg")
        assert wrong_type["field"] == "expr"
        assert await eval_value(client, "() => ({title: document.title, n: [1, 'a', null]})") == {
            "title": "E2E second", "n": [1, "a", None]}
        void = await ok(client, "eval_js", {"expr": "window.__browxTest = 42", "returnType": "void"})
        assert void["value"] is None
        assert await eval_value(client, "window.__browxTest") == 42
        thrown = await fails(client, "eval_js", {"expr": "() => { throw new Error('kaboom 7') }"}, "eval-error")
        assert "kaboom 7" in thrown["error"]
        syntax = await fails(client, "eval_js", {"expr": "this is not js"}, "eval-error")
        assert syntax["error"]
        too_big = await fails(client, "eval_js", {"expr": "'x'.repeat(100)", "maxBytes": 10}, "too-large")
        assert too_big["sizeBytes"] == 102


# -- 3. waits, screenshots, viewport --------------------------------------------------


async def test_waits_screenshots_and_viewport(tmp_path: Path, pages_url: str) -> None:
    workspace = tmp_path / "ws"
    app = f"{pages_url}/e2e_app.html"
    async with browx_server(workspace, "eval") as client:
        await ok(client, "navigate", {"url": app})

        # -- wait_for text that a setTimeout adds -----------------------------------
        await ok(client, "click", {"selector": "#delay"})
        await fails(client, "verify_text", {"text": "Delayed hello"}, "verification-failed")
        waited = await ok(client, "wait_for", {"text": "Delayed hello"})
        assert waited["condition"] == "text" and waited["state"] == "visible"
        assert waited["url"] == app
        await ok(client, "verify_text", {"selector": "#delayed", "text": "Delayed hello", "exact": True})
        await ok(client, "wait_for", {"selector": "#hidden-note", "state": "hidden", "timeoutMs": 1000})
        await ok(client, "wait_for", {"url": "**/e2e_app.html", "timeoutMs": 1000})
        await ok(client, "wait_for", {"textGone": "Nothing at all here", "timeoutMs": 1000})

        # -- a wait that is not met times out ---------------------------------------
        started = time.monotonic()
        timed_out = await fails(client, "wait_for", {"text": "Never there", "timeoutMs": 400}, "timeout")
        assert time.monotonic() - started < 5
        assert "400" in timed_out["error"]

        # -- a long wait does not block the session ---------------------------------
        await ok(client, "navigate", {"url": f"{pages_url}/e2e_delayed.html?ms=3000"})
        finished: dict[str, float] = {}
        results: dict[str, dict[str, Any]] = {}
        t0 = trio.current_time()

        async def wait_long() -> None:
            results["wait"] = await call(client, "wait_for", {"text": "Arrived late", "timeoutMs": 8000})
            finished["wait"] = trio.current_time() - t0

        async def read_meanwhile() -> None:
            await trio.sleep(0.3)  # the wait is in flight first
            results["snapshot"] = await call(client, "snapshot")
            finished["snapshot"] = trio.current_time() - t0

        async with trio.open_nursery() as nursery:
            nursery.start_soon(wait_long)
            nursery.start_soon(read_meanwhile)
        assert results["wait"]["ok"] is True, results["wait"]
        assert results["snapshot"]["ok"] is True, results["snapshot"]
        # The snapshot ran while the wait was pending: it answered first, and before
        # the text arrived (a snapshot queued behind the wait would show the text).
        assert "Arrived late" not in results["snapshot"]["snapshot"]
        assert finished["snapshot"] < finished["wait"], finished
        assert finished["wait"] >= 2.5, finished
        assert results["wait"]["waitedMs"] >= 2000

        # -- screenshots --------------------------------------------------------------
        await ok(client, "navigate", {"url": app})
        result = await call_result(client, "screenshot")
        shot = envelope_of(result)
        assert shot["ok"] is True and shot["format"] == "png"
        (mime, data), = images_of(result)
        assert mime == "image/png" and data[:8] == PNG_MAGIC
        assert png_size(data) == (1280, 720) == (shot["width"], shot["height"])
        assert shot["byteLength"] == len(data) and shot["scale"] == 1 and "warnings" not in shot

        result = await call_result(client, "screenshot", {"format": "jpeg", "quality": 50})
        shot = envelope_of(result)
        (mime, data), = images_of(result)
        assert mime == "image/jpeg" and data[:3] == JPEG_MAGIC
        assert jpeg_size(data) == (1280, 720) == (shot["width"], shot["height"])
        assert shot["format"] == "jpeg"

        content_height = await eval_value(client, "document.documentElement.scrollHeight")
        assert content_height > 3000
        result = await call_result(client, "screenshot", {"fullPage": True, "maxDimension": 8000})
        shot = envelope_of(result)
        (_, data), = images_of(result)
        assert png_size(data) == (1280, content_height) == (shot["width"], shot["height"])
        assert shot["scale"] == 1

        result = await call_result(client, "screenshot", {"fullPage": True})  # default cap 2000
        shot = envelope_of(result)
        (_, data), = images_of(result)
        assert shot["scale"] < 1 and shot["warnings"]
        assert png_size(data) == (shot["width"], shot["height"])
        assert shot["height"] == 2000

        result = await call_result(client, "screenshot", {"maxDimension": 320})
        shot = envelope_of(result)
        (_, data), = images_of(result)
        assert shot["scale"] == 0.25 and len(shot["warnings"]) == 1 and "320" in shot["warnings"][0]
        assert png_size(data) == (320, 180) == (shot["width"], shot["height"])

        pad_ref = (await ok(client, "find", {"role": "button", "name": "Pad"}))["matches"][0]["ref"]
        result = await call_result(client, "screenshot", {"ref": pad_ref})
        shot = envelope_of(result)
        (_, data), = images_of(result)
        assert png_size(data) == (200, 100) == (shot["width"], shot["height"])

        result = await call_result(client, "screenshot", {"region": {"x": 10, "y": 20, "width": 300,
                                                                     "height": 150}})
        (_, data), = images_of(result)
        assert png_size(data) == (300, 150)

        result = await call_result(client, "screenshot", {"selector": "#bottom", "format": "jpeg"})
        shot = envelope_of(result)
        (_, data), = images_of(result)
        assert jpeg_size(data) == (shot["width"], shot["height"]) and shot["height"] > 0

        result = await call_result(client, "screenshot", {"path": "shots/app.png", "maxDimension": 640})
        shot = envelope_of(result)
        (_, data), = images_of(result)
        saved = workspace / "shots" / "app.png"
        assert Path(shot["path"]) == saved.resolve()
        assert saved.read_bytes() == data and png_size(data) == (640, 360)

        escape = await fails(client, "screenshot", {"path": "../escape.png"}, "bad-arg")
        assert escape["field"] == "path"
        assert not (tmp_path / "escape.png").exists()
        absolute = await fails(client, "screenshot", {"path": str(tmp_path / "abs.png")}, "bad-arg")
        assert absolute["field"] == "path"
        assert not (tmp_path / "abs.png").exists()
        both = await fails(client, "screenshot", {"ref": pad_ref, "fullPage": True}, "bad-arg")
        assert both["field"] == "fullPage"

        # -- set_viewport -------------------------------------------------------------
        resized = await ok(client, "set_viewport", {"width": 800, "height": 600})
        assert resized["viewport"] == {"width": 800, "height": 600}
        assert await eval_value(client, "[window.innerWidth, window.innerHeight]") == [800, 600]
        result = await call_result(client, "screenshot")
        (_, data), = images_of(result)
        assert png_size(data) == (800, 600)
        # The element screenshot of #bottom scrolled it into view; back to the top.
        await ok(client, "scroll", {"deltaY": -100000})
        # The pad sits at x=700..900: at 800 px wide, x=750 still hits it.
        await ok(client, "click", {"coords": {"x": 750, "y": 50}})
        await ok(client, "verify_text", {"selector": "#pad-out", "text": "pad clicked at 750,50", "exact": True})


# -- 4. argument validation and capability gates -------------------------------------


async def test_bad_arguments_and_denied_capabilities(tmp_path: Path) -> None:
    async with browx_server(tmp_path / "ws", "") as client:
        cases: list[tuple[str, dict[str, Any], str]] = [
            ("navigate", {}, "url"),                                     # missing required
            ("snapshot", {"bogus": 1}, "bogus"),                         # unknown argument
            ("navigate", {"url": 5}, "url"),                             # wrong type
            ("snapshot", {"maxNodes": "ten"}, "maxNodes"),               # wrong type
            ("click", {"selector": "#a", "clickCount": True}, "clickCount"),  # bool is not an int
            ("snapshot", {"maxNodes": 0}, "maxNodes"),                   # out of range
            ("set_viewport", {"width": 50, "height": 600}, "width"),     # out of range
            ("wait_for", {"text": "x", "timeoutMs": 60001}, "timeoutMs"),  # out of range
            ("navigate", {"url": "http://x", "waitUntil": "soon"}, "waitUntil"),  # enum
            ("screenshot", {"format": "gif"}, "format"),                 # enum
            ("click", {"coords": {"x": 1}}, "coords.y"),                 # object key missing
            ("click", {"coords": {"x": 1, "y": 2, "z": 3}}, "coords.z"),  # object key unknown
            ("select", {"selector": "#a", "values": ["a", 1]}, "values[1]"),  # array item type
            ("open_session", {}, "session"),
            ("verify_count", {"selector": "li", "count": -1}, "count"),
        ]
        for tool, args, field in cases:
            envelope = await fails(client, tool, args, "bad-arg")
            assert envelope["field"] == field, (tool, args, envelope)
            assert envelope["error"], envelope

        # The rules between arguments are the tool's declarations, checked by the
        # dispatch before anything is acquired, like every other argument check.
        for tool, args, field in [
            ("click", {"ref": "e1", "selector": "#a"}, "selector"),
            ("click", {"selector": "#a", "coords": {"x": 1, "y": 1}}, "coords"),
            ("fill", {"value": "x"}, "ref"),
            ("verify_value", {"ref": "e1", "selector": "#a", "value": "x"}, "selector"),
            ("screenshot", {"ref": "e1", "region": {"x": 0, "y": 0, "width": 5, "height": 5}}, "region"),
            ("wait_for", {"text": "a", "selector": "#a"}, "selector"),
            ("find", {}, "role"),
            ("navigate", {"url": "ftp://example.com/"}, "url"),
            ("click", {}, "ref"),
            ("scroll", {}, "deltaY"),
            ("canvas_diff", {"beforeBase64": "", "beforeId": "c1", "afterId": "c2"}, "beforeId"),
        ]:
            envelope = await fails(client, tool, args, "bad-arg")
            assert envelope["field"] == field, (tool, args, envelope)

        # No Chromium was needed to refuse any of that: no browser, no session.
        status = await ok(client, "runtime_status")
        assert tree_child(status, "browser-pool")["launches"] == 0
        assert tree_child(status, "browser-pool")["browser"] is None
        assert status["sessions"] == []

        # An unknown tool answers with an envelope, not a protocol error.
        unknown = await fails(client, "no_such_tool", {"a": 1}, "unknown-tool")
        assert "no_such_tool" in unknown["error"]

        # Capabilities that are off answer capability-denied naming them, and tools/list
        # leaves their tools out.
        listed_names = {t.name for t in (await client.list_tools()).tools}
        assert "eval_js" not in listed_names and "register_secret" not in listed_names
        assert {"navigate", "snapshot", "open_session", "runtime_status"} <= listed_names
        denied_eval = await fails(client, "eval_js", {"expr": "1"}, "capability-denied")
        assert denied_eval["capability"] == "eval"
        denied_secret = await fails(client, "register_secret", {"name": "PW", "value": "abcdef"},
                                    "capability-denied")
        assert denied_secret["capability"] == "secrets"
        # The gate comes before the arguments: a bad call to a tool left out is refused as such
        # (the bad-arg checks of these two run where their capability is on, in 2 and 5).
        for tool, args, capability in (("register_secret", {"value": "abc"}, "secrets"),
                                       ("eval_js", {"expr": 1}, "eval")):
            envelope = await fails(client, tool, args, "capability-denied")
            assert envelope["capability"] == capability, (tool, envelope)
        native = await fails(client, "open_session", {"session": "phone", "engine": "android-app"},
                             "capability-denied")
        assert native["capability"] == "native-device"
        await fails(client, "open_session", {"session": "x", "engine": "netscape"}, "unknown-engine")
        await fails(client, "navigate", {"session": "nobody", "url": "about:blank"}, "unknown-session")
        status = await ok(client, "runtime_status")
        assert status["capabilityDenials"] == 5
        assert "eval" not in status["capabilities"]["server"]
        assert status["sessions"] == []  # not one refusal opened a session


# -- 5. secrets never leave the server raw --------------------------------------------


async def test_registered_secret_never_appears_raw(tmp_path: Path, pages_url: str) -> None:
    secret = "s3cr3t-Value-9f7Q"
    page = f"{pages_url}/e2e_secret.html"
    async with browx_server(tmp_path / "ws", "eval,secrets") as client:
        await ok(client, "navigate", {"url": page})
        registered = await ok(client, "register_secret", {"name": "TOKEN", "value": secret})
        assert registered["alias"] == "<TOKEN>"
        bad_name = await fails(client, "register_secret", {"name": "lower", "value": secret}, "bad-arg")
        assert bad_name["field"] == "name"
        no_name = await fails(client, "register_secret", {"value": "abc"}, "bad-arg")  # its capability is on
        assert no_name["field"] == "name"
        snap = (await ok(client, "snapshot"))["snapshot"]
        token = refs_of(snap)[("textbox", "Token")]

        filled = await ok(client, "fill", {"ref": token, "value": "<TOKEN>", "submit": True})
        assert_action_shape(filled)
        assert filled["element"]["value"] == "<TOKEN>"
        # The page logged the raw value with console.error on change.
        assert [c["type"] for c in filled["console"]] == ["error"], filled["console"]
        assert filled["console"][0]["text"] == "token changed to <TOKEN>"

        # The page really holds the raw value: the check with the alias passes...
        await ok(client, "verify_value", {"ref": token, "value": "<TOKEN>"})
        assert await eval_value(client, "document.querySelector('#token').value === '<TOKEN>'") is True
        # ... and a wrong expectation shows the alias as the actual value.
        wrong = await fails(client, "verify_value", {"ref": token, "value": "nope"}, "verification-failed")
        assert wrong["actual"] == "<TOKEN>"

        snap = (await ok(client, "snapshot"))["snapshot"]
        assert f'textbox "Token" [ref={token}]' in snap and 'value="<TOKEN>"' in snap
        assert 'button "Echo <TOKEN>"' in snap and "Shown: <TOKEN>" in snap
        found = await ok(client, "find", {"role": "button", "name": "Echo"})
        assert found["matches"][0]["name"] == "Echo <TOKEN>"
        by_name = await ok(client, "find", {"name": "<TOKEN>"})  # the alias substitutes in find too
        assert [m["ref"] for m in by_name["matches"]] == [found["matches"][0]["ref"]]
        searched = await ok(client, "text_search", {"query": "Shown"})
        assert searched["matches"][0]["snippet"] == "Shown: <TOKEN>"
        value = await eval_value(client, "document.querySelector('#token').value")
        assert value == "<TOKEN>"
        await ok(client, "verify_text", {"text": "Shown: <TOKEN>"})
        clicked = await ok(client, "click", {"selector": "#echo"})
        assert clicked["target"]["name"] == "Echo <TOKEN>"
        assert [c["text"] for c in clicked["console"]] == ["echo clicked with <TOKEN>"]
        # The alias substitutes inside longer strings and in other tools' arguments too.
        await ok(client, "verify_text", {"selector": "#shown", "text": "Shown: <TOKEN>", "exact": True})
        assert await eval_value(client, "'<TOKEN>'.length") == len(secret)
        status = await ok(client, "runtime_status")
        assert status["sessions"][0]["id"] == "default"

        transcript = client.transcript  # type: ignore[attr-defined]
        everything = transcript.everything()
        assert secret not in everything
        assert json.dumps(secret)[1:-1] not in everything
        assert "<TOKEN>" in everything
        for image in transcript.images:
            assert secret.encode() not in image


# -- 6. parallel sessions with separate cookie jars -----------------------------------


async def test_parallel_sessions_have_separate_cookie_jars(tmp_path: Path, pages_url: str) -> None:
    small = f"{pages_url}/e2e_small.html"
    async with browx_server(tmp_path / "ws", "eval") as client:
        # Opened one after the other: concurrent opens are probed on their own below.
        for sid in ("s1", "s2"):
            await ok(client, "open_session", {"session": sid})
        assert sorted(s["id"] for s in (await ok(client, "list_sessions"))["sessions"]) == ["s1", "s2"]

        async def setup(sid: str) -> None:
            await ok(client, "navigate", {"session": sid, "url": small})
            await ok(client, "eval_js", {"session": sid, "returnType": "void",
                                         "expr": f"document.cookie = 'who={sid}; path=/';"
                                                 f" localStorage.setItem('who', '{sid}')"})
            await ok(client, "fill", {"session": sid, "selector": "#name", "value": f"name of {sid}"})

        async with trio.open_nursery() as nursery:
            for sid in ("s1", "s2"):
                nursery.start_soon(setup, sid)

        # A fresh load of the same origin in each session sees only its own cookie.
        results: dict[tuple[str, str], Any] = {}

        async def read_back(sid: str) -> None:
            nav = await ok(client, "navigate", {"session": sid, "url": f"{small}?reload={sid}"})
            assert nav["status"] == 200
            results[sid, "cookie"] = await eval_value(client, "document.cookie", sid)
            results[sid, "storage"] = await eval_value(client, "localStorage.getItem('who')", sid)

        async def other_calls(sid: str) -> None:
            snap = await ok(client, "snapshot", {"session": sid})
            results[sid, "snapshot"] = snap["snapshot"]
            results[sid, "find"] = (await ok(client, "find", {"session": sid, "role": "button"}))["matches"]
            results[sid, "value"] = await ok(client, "verify_value", {"session": sid, "selector": "#name",
                                                                      "value": f"name of {sid}"})

        async with trio.open_nursery() as nursery:
            for sid in ("s1", "s2"):
                nursery.start_soon(other_calls, sid)
        async with trio.open_nursery() as nursery:
            for sid in ("s1", "s2"):
                nursery.start_soon(read_back, sid)

        for sid in ("s1", "s2"):
            assert results[sid, "cookie"] == f"who={sid}"
            assert results[sid, "storage"] == sid
            assert re.search(rf'^  textbox "Your name" \[ref=e\d+\] \[focused\] value="name of {sid}"$',
                             results[sid, "snapshot"], re.M), results[sid, "snapshot"]
            assert [m["name"] for m in results[sid, "find"]] == ["Go"]
        # The default session has a jar of its own, empty.
        await ok(client, "navigate", {"url": small})
        assert await eval_value(client, "document.cookie") == ""

        # Navigations and waits on both sessions at once.
        async def load_and_wait(sid: str) -> None:
            await ok(client, "navigate", {"session": sid, "url": f"{pages_url}/e2e_delayed.html?ms=1000"})
            results[sid, "waited"] = await ok(client, "wait_for", {"session": sid, "text": "Arrived late"})
            results[sid, "late"] = await ok(client, "verify_text", {"session": sid, "selector": "#late",
                                                                    "text": "Arrived late", "exact": True})

        async with trio.open_nursery() as nursery:
            for sid in ("s1", "s2"):
                nursery.start_soon(load_and_wait, sid)
        for sid in ("s1", "s2"):
            assert results[sid, "waited"]["url"].endswith("/e2e_delayed.html?ms=1000")
        await ok(client, "close_session", {"session": "s1"})
        # Closing one session leaves the other untouched.
        assert await eval_value(client, "document.cookie", "s2") == "who=s2"


# -- 6b. tabs -------------------------------------------------------------------------


async def test_tabs_a_page_opens_are_listed_selected_and_closed(tmp_path: Path, pages_url: str) -> None:
    opener = f"{pages_url}/tabs_opener.html"
    child = f"{pages_url}/tabs_child.html"
    async with browx_server(tmp_path / "ws", "eval") as client:
        await ok(client, "navigate", {"url": opener})
        clicked = await ok(client, "click", {"selector": "a[target=_blank]"})
        assert_action_shape(clicked)
        assert clicked["opened"] == [{"id": 2, "url": child}]
        assert "warnings" not in clicked  # opened says it, once
        assert "navigation" not in clicked  # the opener stays current
        scripted = await ok(client, "click", {"selector": "button"})
        assert scripted["opened"] == [{"id": 3, "url": f"{child}?from=script"}]

        tabs = await ok(client, "list_tabs")
        assert tabs["current"] == 1
        assert [(t["id"], t["title"], t["current"]) for t in tabs["tabs"]] == [
            (1, "opener", True), (2, "child", False), (3, "child", False)]

        # Tools follow the selected tab.
        selected = await ok(client, "select_tab", {"tab": 2})
        assert selected["tab"] == {"id": 2, "url": child, "title": "child", "current": True, "crashed": False}
        assert 'heading "Child page"' in (await ok(client, "snapshot"))["snapshot"]
        await ok(client, "click", {"selector": "text=Press me"})
        await ok(client, "verify_text", {"selector": "#said", "text": "clicked in the child"})

        # A page that closes itself: the action says so and the tab before it is current.
        closed = await ok(client, "click", {"selector": "text=Close me"})
        assert closed["warnings"] == ["the tab closed during the click"]
        assert closed["settled"]["by"] == "tab-closed" and "structure" not in closed
        assert "navigation" not in closed and "action" not in closed
        tabs = await ok(client, "list_tabs")
        assert [t["id"] for t in tabs["tabs"]] == [1, 3] and tabs["current"] == 1
        assert 'heading "Opener"' in (await ok(client, "snapshot"))["snapshot"]

        # Unknown ids name the field and what is open.
        missing = await call(client, "select_tab", {"tab": 2})
        assert missing == {"ok": False, "code": "target-not-found", "error": "no open tab 2 (open: [1, 3])",
                           "field": "tab", "tabs": [1, 3]}

        # A call whose tab closes under it answers tab-closed, and the session goes on.
        await ok(client, "select_tab", {"tab": 3})
        gone = await call(client, "eval_js", {"expr": "new Promise(() => setTimeout(() => window.close(), 50))"})
        assert gone["ok"] is False and gone["code"] == "tab-closed", gone
        tabs = await ok(client, "list_tabs")
        assert [t["id"] for t in tabs["tabs"]] == [1] and tabs["current"] == 1

        # close_tab: an explicit tab, then the current one; the last leaves a blank tab.
        last = await ok(client, "close_tab", {"tab": 1})
        assert last["closed"] == 1 and last["current"] == 4
        assert last["tabs"] == [{"id": 4, "url": "about:blank", "title": "", "current": True, "crashed": False}]
        await ok(client, "navigate", {"url": opener})
        assert 'heading "Opener"' in (await ok(client, "snapshot"))["snapshot"]
        again = await ok(client, "close_tab")
        assert again["closed"] == 4 and [t["id"] for t in again["tabs"]] == [5]


# -- 7. clean exit when the client goes away ------------------------------------------


async def test_server_exits_cleanly_and_takes_chromium_along(tmp_path: Path, pages_url: str) -> None:
    record = Recording()
    async with Client(recording_server(tmp_path / "ws", "", record)) as client:
        await ok(client, "navigate", {"url": f"{pages_url}/e2e_small.html"})
        await ok(client, "open_session", {"session": "other"})
        # A wait is still pending on "other" when the client leaves.
        status = await ok(client, "runtime_status")
        pid = tree_child(status, "browser-pool")["browser"]["pid"]
        user_data = user_data_dir_of(pid)
        assert processes_matching(user_data), "chromium processes should be running"
        with trio.move_on_after(0.5):
            await call(client, "wait_for", {"session": "other", "text": "never", "timeoutMs": 30000})
    assert record.returncode == 0, record.stderr.decode(errors="replace")[-3000:]
    assert record.exit_seconds is not None and record.exit_seconds < 10, record.exit_seconds
    assert b"Traceback" not in record.stderr, record.stderr.decode(errors="replace")[-3000:]
    assert not process_alive(pid)
    assert processes_matching(user_data) == []
    assert not Path(user_data.split("=", 1)[1]).exists()


# -- 8. Chromium killed mid-session ---------------------------------------------------


async def test_chromium_killed_mid_session(tmp_path: Path, pages_url: str) -> None:
    small = f"{pages_url}/e2e_small.html"
    async with browx_server(tmp_path / "ws", "eval") as client:
        for sid in ("s1", "s2"):
            await ok(client, "open_session", {"session": sid})
            await ok(client, "navigate", {"session": sid, "url": small})
        await ok(client, "navigate", {"url": small})  # the default session, opened by itself
        status = await ok(client, "runtime_status")
        browser = tree_child(status, "browser-pool")["browser"]
        assert browser["generation"] == 1 and browser["alive"] is True
        pid = browser["pid"]
        user_data = user_data_dir_of(pid)

        # Waits pending on s1 and s2 when Chromium is killed; the default session idles.
        pending: dict[str, dict[str, Any]] = {}
        conditions = {"s1": {"text": "Never there"}, "s2": {"selector": "#never-there"}}

        async def wait_forever(sid: str) -> None:
            pending[sid] = await call(client, "wait_for", {"session": sid, "timeoutMs": 60000, **conditions[sid]})

        async with trio.open_nursery() as nursery:
            for sid in conditions:
                nursery.start_soon(wait_forever, sid)
            await trio.sleep(0.5)  # the waits are in flight
            assert pending == {}
            killed_at = trio.current_time()
            os.killpg(os.getpgid(pid), signal.SIGKILL)
        answered_after = trio.current_time() - killed_at
        assert answered_after < 5, answered_after
        for sid, envelope in pending.items():
            assert envelope["ok"] is False and envelope["code"] == "browser-crashed", (sid, envelope)
            assert "SIGKILL" in envelope["error"] and str(pid) in envelope["error"], envelope
            assert envelope["session"] == sid
        assert await wait_until_gone([pid]) == []

        # A crashed session is reported once, then its id is free.
        await fails(client, "snapshot", {"session": "s1"}, "unknown-session")
        await fails(client, "snapshot", {"session": "s2"}, "unknown-session")
        listed = await ok(client, "list_sessions")
        assert listed["sessions"] == []

        # A new session gets a new browser.
        await ok(client, "open_session", {"session": "s3"})
        status = await ok(client, "runtime_status")
        pool = tree_child(status, "browser-pool")
        assert pool["launches"] == 2
        assert pool["browser"]["generation"] == 2 and pool["browser"]["alive"] is True
        assert pool["browser"]["pid"] != pid and process_alive(pool["browser"]["pid"])
        assert [e for e in status["events"] if e["kind"] == "exited" and "SIGKILL" in (e["reason"] or "")]
        nav = await ok(client, "navigate", {"session": "s3", "url": small})
        assert_navigated(nav, small, "E2E small")
        snap = await ok(client, "snapshot", {"session": "s3"})
        assert snap["snapshot"] == SMALL_SNAPSHOT

        # The default session was idle when Chromium died: it reports that once...
        crashed = await fails(client, "snapshot", {}, "browser-crashed")
        assert "SIGKILL" in crashed["error"]
        # ... then reopens by itself, on the new browser, with a fresh blank tab.
        reopened = await ok(client, "list_tabs")
        assert [t["url"] for t in reopened["tabs"]] == ["about:blank"]
        nav = await ok(client, "navigate", {"url": small})
        assert_navigated(nav, small, "E2E small")
        assert (await ok(client, "snapshot"))["snapshot"] == SMALL_SNAPSHOT
        status = await ok(client, "runtime_status")
        assert sorted(s["id"] for s in status["sessions"]) == ["default", "s3"]
        assert {s["browserGeneration"] for s in status["sessions"]} == {2}
        # Nothing of the killed browser is left.
        assert await wait_until_gone(processes_matching(user_data)) == []


# -- 9. history, concurrent starts, awkward secrets --------------------------------


async def test_history_go_back_and_forward(tmp_path: Path, pages_url: str, pages_url2: str) -> None:
    """go_back / go_forward answer like any navigation, however the page came back.

    Chromium's back-forward cache restores a page without the load Playwright waits
    for, unless Chromium is launched with --disable-back-forward-cache (Playwright's own
    launches are). Each history call is given 10 s here; a hang is a failure."""
    small, second = f"{pages_url}/e2e_small.html", f"{pages_url}/e2e_second.html"
    other = f"{pages_url2}/e2e_second.html"

    async def history(client: Client, tool: str) -> dict[str, Any]:
        answer: dict[str, Any] | None = None
        with trio.move_on_after(10):
            answer = await call(client, tool)
        assert answer is not None, f"{tool} did not answer within 10 s"
        assert answer["ok"] is True, answer
        assert "action" not in answer and "navigation" not in answer, answer  # no echo
        return answer

    async with browx_server(tmp_path / "ws", "") as client:
        # A fresh history: back, forward, and forward with nowhere to go.
        await ok(client, "navigate", {"url": small})
        await ok(client, "navigate", {"url": second})
        back = await history(client, "go_back")
        assert_navigated(back, small, "E2E small")
        forward = await history(client, "go_forward")
        assert forward["url"] == second and forward["title"] == "E2E second"
        assert "sameDocument" not in forward
        nowhere = await history(client, "go_forward")
        # Nowhere to go: the tab stays on the same document, no load, no response.
        assert nowhere["url"] == second and nowhere["sameDocument"] is True and "status" not in nowhere
        assert nowhere["warnings"] == ["there was no page to go forward to"]

        # Back again after more navigations (the page comes from the bfcache).
        await ok(client, "navigate", {"url": small})
        await ok(client, "navigate", {"url": second})
        back = await history(client, "go_back")
        assert back["url"] == small and "sameDocument" not in back
        assert "warnings" not in back
        await ok(client, "verify_text", {"text": "Hello E2E"})

        # Back from another origin.
        await ok(client, "navigate", {"url": other})
        back = await history(client, "go_back")
        assert back["url"] == small and "sameDocument" not in back
        assert back["title"] == "E2E small"


async def test_sessions_opened_concurrently_all_start(tmp_path: Path) -> None:
    """Many sessions opening at once each get a working context and page."""
    failures: list[dict[str, Any]] = []
    async with browx_server(tmp_path / "ws", "") as client:

        async def open_one(sid: str) -> None:
            envelope = await call(client, "open_session", {"session": sid})
            if not envelope["ok"]:
                failures.append(envelope)

        for round_ in range(2):
            ids = [f"r{round_}s{i}" for i in range(8)]
            async with trio.open_nursery() as nursery:
                for sid in ids:
                    nursery.start_soon(open_one, sid)
            listed = await ok(client, "list_sessions")
            opened = {s["id"] for s in listed["sessions"]}
            async with trio.open_nursery() as nursery:
                for sid in opened:
                    nursery.start_soon(ok, client, "close_session", {"session": sid})
        assert failures == [], failures
        # And the shared Playwright connection still serves every session.
        await ok(client, "navigate", {"url": "about:blank"})


def _strings(value: Any) -> list[str]:
    """Every string (and key) in a JSON value."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for k, v in value.items() for s in [k, *_strings(v)]]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return []


async def test_awkward_secrets_never_appear_in_any_form(tmp_path: Path, pages_url: str) -> None:
    """Secrets with quotes and backslashes, and secrets longer than the snapshot clips
    names, values and snippets, are masked like any other: no escaped copy and no
    clipped prefix of the value reaches the client."""
    quoted = 'Pa"ss\\w0rd-42'
    long_token = "ghp_" + "Zq7Xw2Lm9Rt4Kp8Vn3Bc6Hd1Jf5Gs0Ty" * 4  # 140 characters, like a JWT or API key
    page = f"{pages_url}/e2e_secret.html"
    checks = [("snapshot", {}), ("text_search", {"query": "Shown"}), ("find", {"role": "button"}),
              ("verify_value", {"selector": "#token", "value": "something else"}),
              ("verify_text", {"selector": "#shown", "text": "something else"})]
    async with browx_server(tmp_path / "ws", "secrets") as client:
        await ok(client, "register_secret", {"name": "QUOTED", "value": quoted})
        await ok(client, "register_secret", {"name": "LONG", "value": long_token})
        for alias in ("<QUOTED>", "<LONG>"):
            await ok(client, "navigate", {"url": page})
            await ok(client, "fill", {"selector": "#token", "value": alias, "submit": True})
            for tool, args in checks:
                await call(client, tool, args)
        transcript = client.transcript  # type: ignore[attr-defined]
        texts = [s for text in transcript.texts for s in _strings(json.loads(text))]
        forms = {
            "raw": quoted,
            # as a JSON string or the snapshot's quoted names and values escape it
            "backslash-escaped": quoted.replace("\\", "\\\\").replace('"', '\\"'),
            # as Python's repr() escapes it in an error message
            "repr-escaped": repr(quoted)[1:-1],
        }
        problems = []
        for label, form in forms.items():
            problems += [f"{label} form of a secret in {t!r}" for t in texts if form in t]
        fragments = {long_token[i:i + 16] for i in range(len(long_token) - 16)}
        problems += [f"a clipped part of a long secret in {t!r}" for t in texts
                     if any(f in t for f in fragments)]
        assert problems == [], "secrets reached the client:\n" + "\n".join(problems)
