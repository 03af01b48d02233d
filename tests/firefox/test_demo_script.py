"""The demo's firefox round (browx_actors/demo.py) skips only what the firefox table refuses.

``make demo`` plays the scripted session on chromium and then on firefox; a step the
firefox table refuses is printed as skipped rather than sent. These tests keep the skips
to the visual-tree steps, so the firefox round cannot quietly shrink.
"""

from __future__ import annotations

from browx_actors.demo import refused_by, script
from browx_actors.sessions.firefox.table import TABLE


def _tools_of(tool: str, args: dict) -> list[str]:
    return [call["tool"] for call in args["calls"]] if tool == "tool.batch" else [tool]


def test_the_firefox_round_skips_only_visual_tree_steps() -> None:
    steps = script("demo-firefox", "http://127.0.0.1:1", engine="firefox")
    skipped = [step for step in steps if refused_by(TABLE, *step) is not None]
    for tool, args in skipped:
        assert all(name.startswith("ui.") for name in _tools_of(tool, args)), (tool, args)
    played = {tool for tool, args in steps if refused_by(TABLE, tool, args) is None}
    assert {"open_session", "fill", "select", "click", "verify_text", "screenshot", "close_session"} <= played


def test_the_firefox_round_opens_its_session_on_firefox_and_saves_its_own_screenshot() -> None:
    steps = dict(script("demo-firefox", "http://127.0.0.1:1", engine="firefox"))
    assert steps["open_session"] == {"session": "demo-firefox", "engine": "firefox"}
    assert steps["screenshot"]["path"] == "demo/after-signup-firefox.png"
    assert dict(script("demo", "http://127.0.0.1:1"))["open_session"] == {"session": "demo"}


def test_a_batch_is_refused_when_any_of_its_calls_is() -> None:
    batch = {"calls": [{"tool": "click", "arguments": {}}, {"tool": "ui.wait", "arguments": {}}]}
    assert "ui.wait" in str(refused_by(TABLE, "tool.batch", batch))
    assert refused_by(TABLE, "tool.batch", {"calls": [{"tool": "click", "arguments": {}}]}) is None
    assert refused_by(TABLE, "click", {}) is None
