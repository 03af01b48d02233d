"""End to end, hostile: pages, arguments and secrets that broke the server or a session.

The real server in a subprocess, the MCP SDK's client over real stdio, real Chromium.
Each check is one of issue 19's findings: before the fix the call never answered and
the server exited (a lone surrogate in a page title), the session ended (an invalid
selector, a screenshot path the OS refuses), the session hung (a move to x=1e308), a
file outside the workspace was read (``file:///etc/passwd``), or a secret reached the
client in an encoding masking did not know. After it, each gets its answer, and the
session that received it goes on serving.
"""

from __future__ import annotations

import base64
import json
import os
import sys
import urllib.parse
from pathlib import Path
from typing import Any

import pytest
from mcp.client import Client

from e2e_support import browx_server, fails, ok, raw_stdio, server_env

pytestmark = pytest.mark.chromium


async def _alive(client: Client, session: str, url: str) -> None:
    """The session still holds its page: it was not ended and reopened blank."""
    described = {s["id"]: s for s in (await ok(client, "list_sessions"))["sessions"]}
    assert described[session]["url"] == url, described


async def test_hostile_pages_and_arguments_fail_their_call_and_nothing_else(tmp_path: Path, pages_url: str) -> None:
    hostile = f"{pages_url}/hostile_text.html"
    async with browx_server(tmp_path / "ws", "eval,canvas,storage") as client:
        # -- a page holding lone surrogates and NaN: answered, valid, the server lives --
        loaded = await ok(client, "navigate", {"url": hostile})
        assert loaded["title"] == "bad \ufffd title"
        snapshot = await ok(client, "snapshot")
        assert snapshot["title"] == "bad \ufffd title"
        # Quoted names are JSON-escaped by the page agent (a lone surrogate as its \\u
        # escape); unquoted text carries the replacement character.
        assert 'heading "heading \\udfff here"' in snapshot["snapshot"]
        assert "cut emoji \ufffd alone" in snapshot["snapshot"]
        assert (await ok(client, "eval_js", {"expr": "[window.ratio, window.far, 'x\\ud800']"}))["value"] == [
            None, None, "x\ufffd"]
        listed = await ok(client, "list_tabs")
        assert listed["tabs"][0]["title"] == "bad \ufffd title"
        await _alive(client, "default", hostile)

        # -- a bad argument fails its call; the session serves on ----------------------
        selector = await fails(client, "verify_attribute", {"selector": "[[[", "name": "id", "value": "x"},
                               "bad-arg")
        assert selector["field"] == "selector"
        for bad in ("div:has(", "xpath=//[", "nosuchengine=x"):
            refused = await fails(client, "verify_attribute", {"selector": bad, "name": "id", "value": "x"},
                                  "bad-arg")
            assert refused["field"] == "selector", refused
            # The reads that catch their own locator's errors name the selector too.
            for tool, extra in (("verify_text", {"text": "x"}), ("verify_visible", {}),
                                ("verify_value", {"value": "x"}), ("verify_count", {"count": 1}),
                                ("click", {}), ("wait_for", {"timeoutMs": 2000})):
                refused = await fails(client, tool, {"selector": bad, **extra}, "bad-arg")
                assert refused["field"] == "selector" and "not a valid selector" in refused["error"], (tool, refused)
        for path in ("a\u0000b.png", "x" * 300 + ".png", ".", "ok/", "shots/..", "diagnostics/x.png",
                     "diagnostics", "../outside.png", "/etc/x.png"):
            # Every tool that writes a file takes its path through one chokepoint.
            for tool in ("screenshot", "pdf_save", "storage_state_save"):
                refused = await fails(client, tool, {"path": path}, "bad-arg")
                assert refused["field"] == "path", (tool, path, refused)
        for paths in ([], ["../etc/passwd"], ["/etc/passwd"], ["."], ["nosuch.txt"]):
            refused = await fails(client, "upload_file", {"selector": "input", "paths": paths}, "bad-arg")
            assert refused["field"] == "paths", (paths, refused)
        await ok(client, "screenshot", {"path": "ok.png"})
        nested = await fails(client, "screenshot", {"path": "ok.png/inner.png"}, "bad-arg")
        assert nested["field"] == "path" and str(tmp_path) not in nested["error"]
        assert not (tmp_path / "ws" / "diagnostics" / "x.png").exists()
        await _alive(client, "default", hostile)

        # -- numbers: declared ranges refuse what would hang the browser ---------------
        far = await fails(client, "gesture_chain", {"steps": [{"kind": "move", "x": 1e308, "y": 10}]}, "bad-arg")
        assert far["field"] == "steps[0].x"
        moved = await ok(client, "gesture_chain", {"steps": [{"kind": "move", "x": 10, "y": 10}]})
        assert moved["stepsExecuted"] == 1

        # -- file: URLs read nothing -----------------------------------------------------
        for url in ("file:///etc/passwd", "FILE:///etc/passwd", "view-source:file:///etc/passwd"):
            refused = await fails(client, "navigate", {"url": url}, "bad-arg")
            assert refused["field"] == "url"
        await _alive(client, "default", hostile)

        # -- session ids are declared: length and characters ---------------------------
        for sid in ("", "../../etc", "a/b", ".", "..", "x\u0000y", "\u001b[31mred", "x" * 65, "-dash", "sp ace"):
            for tool, args in (("open_session", {}), ("snapshot", {}), ("close_session", {})):
                refused = await fails(client, tool, {**args, "session": sid}, "bad-arg")
                assert refused["field"] == "session", (tool, sid, refused)
        assert [s["id"] for s in (await ok(client, "list_sessions"))["sessions"]] == ["default"]
        await ok(client, "open_session", {"session": "agent-1.retry_2"})
        await ok(client, "close_session", {"session": "agent-1.retry_2"})
        await _alive(client, "default", hostile)


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for k, v in value.items() for s in (k, *_strings(v))]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return []


async def test_secrets_are_masked_in_every_encoding_and_across_sessions(tmp_path: Path, pages_url: str) -> None:
    first, second = 'Pa"ss w0rd/~+&', "second-Value-77"
    form = f"{pages_url}/secret_get_form.html"
    workspace = tmp_path / "ws"
    async with browx_server(workspace, "eval,secrets") as client:
        nobody = await fails(client, "register_secret", {"name": "PW", "value": first, "session": "nobody"},
                             "unknown-session")
        assert nobody["session"] == "nobody"
        await ok(client, "open_session", {"session": "s1"})
        await ok(client, "open_session", {"session": "s2"})
        # Two sessions register the same name with different values.
        await ok(client, "register_secret", {"name": "PW", "value": first, "session": "s1"})
        await ok(client, "register_secret", {"name": "PW", "value": second, "session": "s2"})
        for session in ("s1", "s2"):
            await ok(client, "navigate", {"url": form, "session": session})
            await ok(client, "fill", {"selector": "#token", "value": "<PW>", "session": session})
            sent = await ok(client, "click", {"selector": "button[type=submit]", "session": session})
            assert "to" in sent["navigation"], sent  # present only when the page moved
            assert "token=%3CPW%3E" in sent["navigation"]["to"] or "<PW>" in sent["navigation"]["to"], sent
            shown = (await ok(client, "snapshot", {"session": session}))["snapshot"]
            for line in ("query ?token=<PW>", "encoded <PW>", 'json {"token":"<PW>"}', "base64 <PW>"):
                assert line in shown, (session, line, shown)
            await ok(client, "list_tabs", {"session": session})
        # Each session's value is masked in the other's results too.
        crossed = await ok(client, "eval_js", {"expr": json.dumps([first, second]), "session": "s2"})
        assert crossed["value"] == ["<PW>", "<PW>"]
        # A path with the alias names the file with the alias, never the raw value.
        saved = await ok(client, "screenshot", {"path": "shots/<PW>.png", "session": "s1"})
        assert saved["path"].endswith("shots/<PW>.png")
        raw_typed = await ok(client, "screenshot", {"path": f"shots/{second}.png", "session": "s2"})
        assert raw_typed["path"].endswith("shots/<PW>.png")
        transcript = client.transcript  # type: ignore[attr-defined]
    names = [p.name for p in workspace.rglob("*")]
    assert "<PW>.png" in names and not [n for n in names if first in n or second in n]
    leaks = []
    for value in (first, second):
        raw = value.encode()
        forms = {value, urllib.parse.quote(value, safe=""), urllib.parse.quote_plus(value),
                 base64.b64encode(raw).decode(), json.dumps(value)[1:-1]}
        for text in transcript.texts + transcript.structured:
            leaks += [f"{form!r} in {s!r}" for s in _strings(json.loads(text)) for form in forms if form in s]
    assert leaks == []


async def test_what_the_sdk_parser_refuses_is_answered_bad_arg_within_a_second(tmp_path: Path) -> None:
    """Raw lines, because the SDK's own client cannot even send a lone surrogate. Each
    got no answer at all before; each is refused before a browser starts."""
    workspace = tmp_path / "ws"
    workspace.mkdir()
    command = [sys.executable, "-m", "browx_actors", "serve"]
    async with raw_stdio(command, env={**os.environ, **server_env(workspace)}, cwd=str(workspace)) as raw:
        await raw.initialize()
        for arguments, field, words in (
            (b'{"scope":"\\ud800"}', "scope", "surrogate"),
            (b'{"scope":' + b"[" * 200 + b"]" * 200 + b"}", "scope", "32 levels"),
            (b'{"maxNodes":' + b"9" * 5000 + b"}", "maxNodes", "4,300 digits"),
            (b'{"omit":[' + b'"\\udc00",' * 3 + b'"x"]}', "omit[0]", "surrogate"),
        ):
            envelope = await raw.call_tool("snapshot", raw_arguments=arguments, within=1.0)
            assert envelope is not None, f"no answer within a second to {arguments[:40]!r}"
            assert (envelope["code"], envelope["field"]) == ("bad-arg", field), envelope
            assert words in envelope["error"], envelope
        status = await raw.call_tool("runtime_status", within=5)
        assert status is not None
        pool = next(c for c in status["tree"]["children"] if c["id"] == "browser-pool")
        assert pool["launches"] == 0
