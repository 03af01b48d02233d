"""``internal`` is a bug, never the answer to an agent's input: each case an audit found.

Through the real runtime and the one dispatch path, on real Chromium: a selector
Playwright cannot parse or whose regular expression JavaScript cannot compile, on every
tool that takes one (nested ones too: drag's ``from.selector``, fill_form's
``fields[1].selector``, snapshot's ``scope``); a file path 2,000 folders deep; a storage
state nested past what the JSON decoder recurses into; a ``ui.wait`` that outlives the
tab it polls (``close_tab`` while it sleeps); and call after call with a session id the
dispatch refuses, which must leave no folder in the diagnostics store. Each answered
``internal`` (or made a folder) before its fix; each now answers its own code, naming the
argument, and the session serves on.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import trio

from browx_actors import RuntimeConfig, open_runtime

pytestmark = pytest.mark.chromium

#: Selectors Playwright refuses to parse, one per way to break one, plus ``nth=abc``,
#: which it takes and never matches.
BROKEN = ("text=/[/", "css=[[", "xpath=//*[", "internal:role=", ">>", "nth=abc", "role=button[name=/(/]")


def _config(tmp_path: Path, caps: str) -> RuntimeConfig:
    return RuntimeConfig.from_env({}, workspace=tmp_path, capabilities=caps)


def _selector_calls(s: str) -> Iterator[tuple[str, dict[str, Any], str]]:
    """(tool, arguments, the field the refusal must name) for every tool that takes a selector."""
    yield "snapshot", {"scope": s}, "scope"
    yield "find", {"scope": s, "role": "button"}, "scope"
    for tool, extra in (("inspect", {}), ("click", {}), ("hover", {}), ("fill", {"value": "x"}),
                        ("press", {"key": "a"}), ("select", {"values": ["a"]}), ("scroll", {}),
                        ("upload_file", {"paths": ["f.txt"]}), ("mouse_down", {}), ("mouse_move", {}),
                        ("mouse_up", {}), ("mouse_wheel", {"deltaY": 10}), ("double_click", {}),
                        ("choose_option", {"option": "a", "timeoutMs": 1000}), ("wait_for", {"timeoutMs": 1000}),
                        ("screenshot", {}), ("verify_visible", {}), ("verify_text", {"text": "x"}),
                        ("verify_value", {"value": "x"}), ("verify_attribute", {"name": "id", "value": "x"}),
                        ("verify_count", {"count": 1}), ("canvas_capture", {"format": "png"}),
                        ("canvas_world_to_screen", {"worldX": 1, "worldY": 1}),
                        ("canvas_screen_to_world", {"screenX": 1, "screenY": 1})):
        yield tool, {"selector": s, **extra}, "selector"
    point = {"x": 5, "y": 5}
    yield "drag", {"from": {"selector": s}, "to": point}, "from.selector"
    yield "drag", {"from": point, "to": {"selector": s}}, "to.selector"
    yield "gesture_swipe", {"from": {"selector": s}, "to": point}, "from.selector"
    yield "gesture_pinch", {"center": {"selector": s}, "scale": 2}, "center.selector"
    yield "fill_form", {"fields": [{"selector": "#q", "value": "x"}, {"selector": s, "value": "x"}]}, \
        "fields[1].selector"


async def test_a_broken_selector_is_bad_arg_naming_its_field_on_every_tool(tmp_path: Path, pages_url: str) -> None:
    (tmp_path / "f.txt").write_text("x")
    page = f"{pages_url}/e2e_app.html"
    async with open_runtime(config=_config(tmp_path, "eval,canvas"), capabilities=["eval", "canvas"]) as runtime:
        assert (await runtime.call_tool("navigate", {"url": page}))["ok"]
        wrong = []
        for selector in BROKEN:
            for tool, args, field in _selector_calls(selector):
                if tool == "fill_form" and selector == "nth=abc":
                    # Refused before the call, so the field named is the one with the nth.
                    args = {"fields": [{"selector": selector, "value": "x"}]}
                    field = "fields[0].selector"
                answer = await runtime.call_tool(tool, args)
                if answer.get("code") != "bad-arg" or answer.get("field") != field:
                    wrong.append((selector, tool, answer))
        assert wrong == [], "\n".join(map(repr, wrong))
        # The session kept its page through all of it.
        assert (await runtime.call_tool("eval_js", {"expr": "location.href"}))["value"] == page


async def test_a_regex_the_page_throws_is_still_the_pages_error(tmp_path: Path, pages_url: str) -> None:
    """Only Playwright's own engines make a broken regular expression the selector's fault."""
    async with open_runtime(config=_config(tmp_path, "eval"), capabilities=["eval"]) as runtime:
        assert (await runtime.call_tool("navigate", {"url": f"{pages_url}/e2e_app.html"}))["ok"]
        thrown = await runtime.call_tool("eval_js", {"expr": "new RegExp('[')"})
        assert thrown["code"] == "eval-error" and "Invalid regular expression" in thrown["error"], thrown
        # A regex that compiles and an nth that is an index are selectors like any other.
        for selector in ("text=/app PAGE/i >> nth=0", "button >> nth=-1", "role=heading[name=/App/]"):
            counted = await runtime.call_tool("verify_count", {"selector": selector, "count": 1})
            assert counted["ok"], (selector, counted)


async def test_a_deep_path_and_a_deep_state_file_are_refused_not_recursed_into(tmp_path: Path, pages_url: str) -> None:
    deep = "a/" * 2000 + "x.png"  # 4,005 bytes: inside PATH_MAX, 2,001 levels
    (tmp_path / "deep.json").write_text("[" * 5000 + "]" * 5000)
    async with open_runtime(config=_config(tmp_path, "storage"), capabilities=["storage"]) as runtime:
        assert (await runtime.call_tool("navigate", {"url": f"{pages_url}/e2e_small.html"}))["ok"]
        shot = await runtime.call_tool("screenshot", {"path": deep})
        assert (shot["code"], shot["field"]) == ("bad-arg", "path") and "at most 100" in shot["error"], shot
        assert not (tmp_path / "a").exists()
        loaded = await runtime.call_tool("storage_state_load", {"path": "deep.json"})
        assert (loaded["code"], loaded["field"]) == ("bad-arg", "path"), loaded
        assert (await runtime.call_tool("screenshot", {"path": "a/" * 10 + "ok.png"}))["ok"]


async def _slow_wiring(session: Any, args: Any) -> None:
    """Make wiring a new tab take 1.5 s, so a wait polling meanwhile finds the session's
    current tab not wired yet (what a busy browser makes of the few ms it usually takes)."""
    lifecycle = session.tab_lifecycle
    wire = lifecycle.wire

    async def slowly(tab: Any) -> None:
        await trio.sleep(1.5)
        await wire(tab)

    lifecycle.wire = slowly


async def test_a_wait_that_outlives_its_tab_answers_tab_closed(tmp_path: Path, pages_url: str) -> None:
    async with open_runtime(config=_config(tmp_path, ""), capabilities=[]) as runtime:
        assert (await runtime.call_tool("navigate", {"url": f"{pages_url}/e2e_small.html"}))["ok"]
        await runtime.call_session("default", "slow_wiring", _slow_wiring, {}, timeout=30)
        answers: dict[str, Any] = {}

        async def wait() -> None:
            answers["wait"] = await runtime.call_tool("ui.wait", {"text": "never on this page", "timeoutMs": 8000,
                                                                  "intervalMs": 1000})

        async with trio.open_nursery() as nursery:
            nursery.start_soon(wait)
            await trio.sleep(0.3)  # the wait has looked once and sleeps until its next look
            # The session's last tab: a blank one takes its place, wired slowly.
            answers["close"] = await runtime.call_tool("close_tab", {})
        assert answers["close"]["ok"], answers
        assert answers["wait"]["code"] == "tab-closed", answers
        listed = await runtime.call_tool("list_tabs")
        assert [tab["url"] for tab in listed["tabs"]] == ["about:blank"]


#: Session ids the dispatch refuses, and ids no session has.
REFUSED_IDS: tuple[Any, ...] = ("sp ace", "-dash", "x" * 65, "\u001b[31mred", "a/b", "..", "c2~work", "", 5,
                                ["list"], "ghost")


async def test_refused_session_names_leave_nothing_on_disk(tmp_path: Path) -> None:
    caps = "diagnostics,eval"
    async with open_runtime(config=_config(tmp_path, caps), capabilities=caps.split(",")) as runtime:
        refused = 0
        for sid in REFUSED_IDS:
            for tool, args in (("open_session", {}), ("snapshot", {}), ("eval_js", {"expr": "1"}),
                               ("close_session", {}), ("list_tabs", {}), ("diagnostics_note", {"insight": "x"})):
                if sid == "ghost" and tool in ("open_session", "diagnostics_note"):
                    continue  # a valid id: it would open, and a note may name any session
                answer = await runtime.call_tool(tool, {**args, "session": sid})
                assert answer.get("code") in ("bad-arg", "unknown-session"), (tool, sid, answer)
                refused += 1
        report = await runtime.call_tool("diagnostics_report")
    assert report["recorder"]["refused"] == refused
    store = tmp_path / "diagnostics"
    assert sorted(p.name for p in store.iterdir()) == ["default"]  # diagnostics_report's own record
