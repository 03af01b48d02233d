"""The ``browx-actors serve`` command as a process: flags, and shutdown on signals.

These speak newline-delimited JSON-RPC to the real server process directly, because
they need what the SDK's client hides: the exit status and the moment of a signal.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from browx_actors.config import RuntimeConfig, parse_action_input

SERVE = [sys.executable, "-m", "browx_actors", "serve"]


def _rpc(proc: subprocess.Popen, message: dict) -> dict | None:
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write((json.dumps(message) + "\n").encode())
    proc.stdin.flush()
    if "id" not in message:
        return None
    while True:
        line = proc.stdout.readline()
        assert line, "server closed stdout"
        reply = json.loads(line)
        if reply.get("id") == message["id"]:
            return reply


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


def test_help_lists_the_flags() -> None:
    out = subprocess.run([*SERVE, "--help"], capture_output=True, text=True, check=True).stdout
    for flag in ("--caps", "--workspace", "--executable-path", "--cdp-endpoint", "--action-input", "--headed"):
        assert flag in out


def test_action_input_is_auto_or_playwright_and_a_typo_fails_at_start() -> None:
    assert parse_action_input(None) == "auto" and parse_action_input(" Playwright ") == "playwright"
    assert RuntimeConfig.from_env({"BROWX_ACTION_INPUT": "playwright"}).action_input == "playwright"
    assert RuntimeConfig.from_env({}, action_input="playwright").action_input == "playwright"
    env = {**os.environ, "BROWX_ACTION_INPUT": "cdp-only"}
    done = subprocess.run(SERVE, capture_output=True, text=True, timeout=60, env=env)
    assert done.returncode == 2 and "BROWX_ACTION_INPUT must be one of auto, playwright" in done.stderr
    done = subprocess.run([*SERVE, "--action-input", "fast"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and "--action-input" in done.stderr


def test_unknown_capability_fails_at_start_naming_it() -> None:
    done = subprocess.run([*SERVE, "--caps", "eval,bogus"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and "unknown capabilities: bogus" in done.stderr


def test_sigterm_tears_down_chromium_and_exits(tmp_path: Path) -> None:
    env = {**os.environ, "BROWX_WORKSPACE": str(tmp_path)}
    proc = subprocess.Popen(SERVE, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env=env)
    try:
        init = _rpc(proc, {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "test", "version": "0"}}})
        assert init and "result" in init
        _rpc(proc, {"jsonrpc": "2.0", "method": "notifications/initialized"})
        snap = _rpc(proc, {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                           "params": {"name": "snapshot", "arguments": {}}})
        assert snap and json.loads(snap["result"]["content"][0]["text"])["ok"] is True
        status = _rpc(proc, {"jsonrpc": "2.0", "id": 3, "method": "tools/call",
                             "params": {"name": "runtime_status", "arguments": {}}})
        envelope = json.loads(status["result"]["content"][0]["text"])
        pool = next(c for c in envelope["tree"]["children"] if c["id"] == "browser-pool")
        chromium_pid = pool["browser"]["pid"]
        assert _alive(chromium_pid)
        sent = time.monotonic()
        proc.send_signal(signal.SIGTERM)  # stdin stays open: the signal alone must do it
        assert proc.wait(timeout=20) == 128 + signal.SIGTERM
        assert time.monotonic() - sent < 15
        assert not _alive(chromium_pid)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
