"""The demo's firefox round (browx_actors/demo.py) is the whole flow, every step on firefox's table.

``make demo`` plays the scripted session on chromium and then, step for step, on
firefox. These tests keep it so: every step (each call of a batch too) runs on the
firefox engine, so the round cannot quietly meet a refusal.
"""

from __future__ import annotations

from browx_actors.demo import script
from browx_actors.sessions.firefox.table import TABLE
from browx_actors.tools import Refusal


def _tools_of(tool: str, args: dict) -> list[str]:
    return [call["tool"] for call in args["calls"]] if tool == "tool.batch" else [tool]


def test_every_step_of_the_firefox_round_runs_on_firefox() -> None:
    steps = script("demo-firefox", "http://127.0.0.1:1", engine="firefox")
    refused = [name for tool, args in steps for name in _tools_of(tool, args)
               if isinstance(TABLE.entry(name), Refusal)]
    assert refused == []
    assert {"open_session", "fill", "select", "click", "verify_text", "screenshot", "ui.query_nodes",
            "tool.batch", "close_session"} <= {tool for tool, _ in steps}


def test_the_firefox_round_opens_its_session_on_firefox_and_saves_its_own_screenshot() -> None:
    steps = dict(script("demo-firefox", "http://127.0.0.1:1", engine="firefox"))
    assert steps["open_session"] == {"session": "demo-firefox", "engine": "firefox"}
    assert steps["screenshot"]["path"] == "demo/after-signup-firefox.png"
    assert dict(script("demo", "http://127.0.0.1:1"))["open_session"] == {"session": "demo"}
