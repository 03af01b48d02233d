"""A crashed renderer on a session that holds more than a page: routes, a dialog policy
and a live view. The runtime runs in the test's Trio loop with the reference daemon on
a real Unix socket and real Chromium; the test kills the renderers with SIGKILL.

What must hold: the crash is reported (``tab-crashed``, list_tabs), the next navigate
recovers the tab, and what the session set up before the crash still applies to the
page that replaced the crashed one: the route answers its requests, the dialog policy
answers its dialogs, and the live view of the crashed page ends (``page-closed``,
never a silent freeze) while a new view streams the page in its place.
"""

from __future__ import annotations

import os
import signal
from pathlib import Path
from typing import Any

import pytest
import trio

from browx_actors import RuntimeConfig, open_runtime
from browx_actors.config import parse_capabilities
from browx_actors.daemon import Daemon, ack_after
from e2e_support import processes_matching
from polling import poll_until

pytestmark = pytest.mark.chromium

TOKEN = "crash-recovery-51c2"
WAIT = 30


def _renderers(profile: str) -> list[int]:
    return [pid for pid in processes_matching(profile)
            if b"--type=renderer" in Path(f"/proc/{pid}/cmdline").read_bytes()]


async def _profile(runtime: Any) -> str:
    status = await runtime.call_tool("runtime_status")
    pool = next(c for c in status["tree"]["children"] if c["id"] == "browser-pool")
    cmdline = Path(f"/proc/{pool['browser']['pid']}/cmdline").read_bytes().split(b"\0")
    return next(a for a in cmdline if a.startswith(b"--user-data-dir=")).split(b"=", 1)[1].decode()


async def test_a_crash_under_routes_a_dialog_policy_and_a_live_view_recovers_all_three(
        short_tmp: Path, pages_url: str) -> None:
    path = str(short_tmp / "op.sock")
    frames: list[float] = []
    seen: list[dict[str, Any]] = []
    daemon = Daemon(path, TOKEN, out=lambda text: None, ack_policy=ack_after(0.0),
                    on_line=lambda m: seen.append(m) if m["type"] != "frame" else None,
                    on_frame=lambda frame: frames.append(trio.current_time()))
    config = RuntimeConfig(capabilities=parse_capabilities("operator-channel,live-view,network-control,eval"),
                           operator_socket=path, operator_token=TOKEN, workspace=short_tmp / "ws")
    page = f"{pages_url}/live_anim.html"
    async with trio.open_nursery() as nursery:
        await nursery.start(daemon.run)
        async with open_runtime(config=config, capabilities=config.capabilities) as runtime:
            async def ok(tool: str, args: dict[str, Any] | None = None) -> dict[str, Any]:
                envelope = await runtime.call_tool(tool, args or {})
                assert envelope["ok"] is True, (tool, envelope)
                return envelope

            async def fetched() -> Any:
                return (await ok("eval_js", {"expr": "fetch('/routed.json').then(r => r.text())"}))["value"]

            async def crashed_snapshot() -> dict[str, Any] | None:
                snapshot = await runtime.call_tool("snapshot")
                return None if snapshot["ok"] else snapshot

            await poll_until(lambda: daemon.links != 0, interval=0.01, timeout=WAIT)
            await ok("navigate", {"url": page})
            await ok("route", {"pattern": "**/routed.json", "action": "fulfill", "body": '{"routed": 1}'})
            await ok("set_dialog_policy", {"policy": "accept"})
            assert await fetched() == '{"routed": 1}'
            await daemon.start_view("default")
            await poll_until(lambda: any(m["type"] == "view.started" for m in seen), interval=0.01, timeout=WAIT)

            for pid in _renderers(await _profile(runtime)):
                os.kill(pid, signal.SIGKILL)
            # The crash reaches the session as an event, a moment later.
            snapshot = await poll_until(crashed_snapshot, interval=0.05, timeout=WAIT)
            assert snapshot["code"] == "tab-crashed", snapshot
            assert [t["crashed"] for t in (await ok("list_tabs"))["tabs"]] == [True]

            await ok("navigate", {"url": page})
            assert [t["crashed"] for t in (await ok("list_tabs"))["tabs"]] == [False]
            assert await fetched() == '{"routed": 1}', "the route covers the page in the crashed one's place"
            confirmed = await ok("eval_js", {"expr": "confirm('go on?')"})
            assert confirmed["value"] is True and confirmed["dialogs"][0]["type"] == "confirm", confirmed
            # The view of the crashed page ends as a page's end ends a view, ``page-closed``
            # (a frozen view would be the failure); a new view shows the page in its place.
            await poll_until(lambda: any(m["type"] == "view.stopped" for m in seen), interval=0.05, timeout=WAIT)
            assert [m["reason"] for m in seen if m["type"] == "view.stopped"] == ["page-closed"]
            mark = len(seen)
            await daemon.start_view("default")
            await poll_until(lambda: any(m["type"] == "view.started" for m in seen[mark:]), interval=0.01,
                             timeout=WAIT)
            restarted = trio.current_time()
            await poll_until(lambda: len([at for at in frames if at > restarted]) >= 2, interval=0.05, timeout=WAIT)
            assert "[ref=e" in (await ok("snapshot"))["snapshot"]
        nursery.cancel_scope.cancel()
