"""Chaos: what is left unanswered, wedged, orphaned or held after rounds of load and kills.

The real server over stdio, spoken to in raw JSON-RPC lines (so hostile requests can be
sent as they come off a fuzzer, and many calls can be in flight at once), real Chromium,
pages on loopback. Eight rounds; in each, five sessions open, run 200 calls each at
once (navigate, snapshot, find, fill, click, eval_js, list_tabs, and one hostile request
in ten: a lone surrogate escape, a 5,000-digit integer, arguments nested 200 deep, an
unknown tool, an invalid selector, a screenshot path the OS refuses), then close.
Chaos lands in some rounds while the calls run: the browser SIGKILLed (round 3), every
renderer SIGKILLed (round 5), a flood of 500 fuzzed requests (round 7). At the end the
server itself is SIGKILLed, and a second server is started on the same temporary folder.

Counted, per round and in total (every count should be 0):

- hung calls: a call with no answer within 60 s;
- unanswered requests: requests still without an answer when the round ends;
- wedged sessions: a session that does not answer ``eval_js 1+1`` within 10 s once its
  round's calls are done (after a browser kill, reopened first, as an agent would);
- orphaned processes: browser processes alive 10 s after the server was SIGKILLed, and
  the dead server's profile still on disk once the next server has launched.

Reported beside them: the codes the calls were answered with, throughput (calls a
second), and the server's memory after its sessions closed, against the baseline of the
first round in the same run (RSS of the server and of Playwright's driver process, which
holds the other half of every Request and Response Playwright mirrors; target: flat).

Run from the repo root: ``python -m benchmarks.chaos [--rounds N] [--calls N]``.
Nothing is asserted; record the table in benchmarks/RESULTS.md.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

import attrs
import trio

from browx_actors.demo import serve_directory

ROOT = Path(__file__).resolve().parents[1]
PAGES = ROOT / "tests" / "pages"
SESSIONS = 5
HUNG_AFTER = 60.0
WEDGED_AFTER = 10.0
CHAOS = {3: "browser SIGKILL", 5: "renderers SIGKILL", 7: "500 fuzzed requests"}

HOSTILE: list[tuple[str, bytes]] = [
    ("snapshot", b'{"scope":"\\ud800"}'),
    ("snapshot", b'{"maxNodes":' + b"9" * 5000 + b"}"),
    ("find", b'{"role":' + b"[" * 200 + b"]" * 200 + b"}"),
    ("no_such_tool", b"{}"),
    ("verify_attribute", b'{"selector":"[[[","name":"id","value":"x"}'),
    ("screenshot", b'{"path":"a\\u0000b.png"}'),
    ("navigate", b'{"url":"file:///etc/passwd"}'),
    ("gesture_chain", b'{"steps":[{"kind":"move","x":1e308,"y":1}]}'),
]


@attrs.define
class Server:
    """A server process in raw lines, its answers sorted by id as they come."""

    process: trio.Process
    answers: dict[int, dict[str, Any]] = attrs.Factory(dict)
    arrived: dict[int, trio.Event] = attrs.Factory(dict)
    next_id: int = 0
    lock: trio.Lock = attrs.Factory(trio.Lock)

    async def pump(self) -> None:
        assert self.process.stdout is not None
        buffer = b""
        async for chunk in self.process.stdout:
            *lines, buffer = (buffer + chunk).split(b"\n")
            for line in lines:
                if line.strip():
                    message = json.loads(line)
                    if isinstance(message.get("id"), int) and ("result" in message or "error" in message):
                        self.answers[message["id"]] = message
                        self.arrived.setdefault(message["id"], trio.Event()).set()

    async def request(self, method: str, params: bytes, within: float = HUNG_AFTER) -> dict[str, Any] | None:
        self.next_id += 1
        request_id = self.next_id
        event = self.arrived.setdefault(request_id, trio.Event())
        line = b'{"jsonrpc":"2.0","id":%d,"method":"%s","params":%s}\n' % (request_id, method.encode(), params)
        assert self.process.stdin is not None
        async with self.lock:
            await self.process.stdin.send_all(line)
        with trio.move_on_after(within):
            await event.wait()
        self.arrived.pop(request_id, None)
        return self.answers.pop(request_id, None)

    async def call(self, tool: str, arguments: dict[str, Any] | bytes, within: float = HUNG_AFTER
                   ) -> dict[str, Any] | None:
        """The envelope, ``{"code": "json-rpc <n>"}`` for a JSON-RPC error, None if no answer."""
        raw = arguments if isinstance(arguments, bytes) else json.dumps(arguments).encode()
        answer = await self.request("tools/call", b'{"name":%s,"arguments":%s}' % (json.dumps(tool).encode(), raw),
                                    within)
        if answer is None:
            return None
        if "error" in answer:
            return {"ok": False, "code": f"json-rpc {answer['error']['code']}"}
        return dict(answer["result"]["structuredContent"])


def _rss_mb(pid: int) -> float:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def _children(pid: int) -> list[int]:
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(stat[1]) == pid:
                found.append(int(entry))
    return found


def _driver_pid(server: int) -> int | None:
    for child in _children(server):
        try:
            if b"playwright" in Path(f"/proc/{child}/cmdline").read_bytes():
                return child
        except OSError:
            continue
    return None


def _users(marker: str) -> list[int]:
    found = []
    needle = marker.encode()
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                if needle in Path(f"/proc/{entry}/cmdline").read_bytes():
                    state = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()[0]
                    if state not in ("Z", "X"):
                        found.append(int(entry))
            except OSError:
                continue
    return found


@attrs.define
class Round:
    number: int
    chaos: str = ""
    calls: int = 0
    hung: int = 0
    unanswered: int = 0
    wedged: int = 0
    seconds: float = 0.0
    codes: Counter[str] = attrs.Factory(Counter)
    server_mb: float = 0.0
    driver_mb: float = 0.0


def _plan(rng: random.Random, base: str, session: str, calls: int) -> list[tuple[str, dict[str, Any] | bytes]]:
    steps: list[tuple[str, dict[str, Any] | bytes]] = []
    for i in range(calls):
        if i % 10 == 9:
            tool, raw = rng.choice(HOSTILE)
            if tool != "no_such_tool":
                raw = raw[:-1] + b',"session":%s}' % json.dumps(session).encode()
            steps.append((tool, raw))
            continue
        kind = i % 9
        args: dict[str, Any] = {"session": session}
        if kind == 0:
            steps.append(("navigate", {**args, "url": f"{base}/e2e_app.html?n={i}"}))
        elif kind in (1, 5):
            steps.append(("snapshot", args))
        elif kind == 2:
            steps.append(("find", {**args, "role": "button"}))
        elif kind == 3:
            steps.append(("eval_js", {**args, "expr": f"{i} + 1"}))
        elif kind == 4:
            steps.append(("list_tabs", args))
        elif kind == 6:
            steps.append(("text_search", {**args, "query": "a"}))
        elif kind == 7:
            steps.append(("verify_count", {**args, "selector": "button", "count": 0}))
        else:
            steps.append(("runtime_status", {}))
    return steps


async def _browser(server: Server) -> tuple[int | None, str | None]:
    status = await server.call("runtime_status", {}, within=30)
    if not status or not status.get("ok"):
        return None, None
    pool = next(c for c in status["tree"]["children"] if c["id"] == "browser-pool")
    browser = pool.get("browser") or {}
    pid = browser.get("pid")
    if pid is None:
        return None, None
    try:
        args = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    except OSError:
        return pid, None
    profile = next((a.split(b"=", 1)[1].decode() for a in args if a.startswith(b"--user-data-dir=")), None)
    return pid, profile


async def _chaos(server: Server, kind: str, rng: random.Random, record: Round) -> None:
    await trio.sleep(1.5)  # let the round's calls get going
    pid, profile = await _browser(server)
    if kind == "browser SIGKILL" and pid is not None:
        os.kill(pid, signal.SIGKILL)
    elif kind == "renderers SIGKILL" and profile is not None:
        for user in _users(profile):
            try:
                if b"--type=renderer" in Path(f"/proc/{user}/cmdline").read_bytes():
                    os.kill(user, signal.SIGKILL)
            except (OSError, ProcessLookupError):
                continue
    elif kind == "500 fuzzed requests":
        async def one() -> None:
            tool, raw = rng.choice(HOSTILE)
            answer = await server.call(tool, raw)
            record.calls += 1
            if answer is None:
                record.hung += 1
            else:
                record.codes[answer.get("code", "ok") if not answer.get("ok") else "ok"] += 1

        async with trio.open_nursery() as nursery:
            for _ in range(500):
                nursery.start_soon(one)


async def _round(server: Server, number: int, base: str, calls: int, rng: random.Random) -> Round:
    record = Round(number, CHAOS.get(number, ""))
    sessions = [f"r{number}-s{i}" for i in range(SESSIONS)]
    for session in sessions:
        opened = await server.call("open_session", {"session": session})
        if opened is None or not opened.get("ok"):
            record.codes[f"open: {None if opened is None else opened.get('code')}"] += 1
    started = trio.current_time()

    async def run(session: str) -> None:
        for tool, args in _plan(rng, base, session, calls):
            answer = await server.call(tool, args)
            record.calls += 1
            if answer is None:
                record.hung += 1
            elif answer.get("ok"):
                record.codes["ok"] += 1
            else:
                record.codes[str(answer.get("code"))] += 1

    async with trio.open_nursery() as nursery:
        for session in sessions:
            nursery.start_soon(run, session)
        if record.chaos:
            nursery.start_soon(_chaos, server, record.chaos, rng, record)
    record.seconds = trio.current_time() - started
    record.unanswered = len(server.arrived)
    for session in sessions:
        check = await server.call("eval_js", {"expr": "1 + 1", "session": session}, within=WEDGED_AFTER)
        if check is not None and check.get("code") in ("browser-crashed", "session-crashed", "unknown-session"):
            await server.call("open_session", {"session": session})  # as an agent would
            check = await server.call("eval_js", {"expr": "1 + 1", "session": session}, within=WEDGED_AFTER)
        if check is None or check.get("value") != 2:
            record.wedged += 1
        await server.call("close_session", {"session": session})
    await trio.sleep(0.5)
    record.server_mb = _rss_mb(server.process.pid)
    driver = _driver_pid(server.process.pid)
    record.driver_mb = 0.0 if driver is None else _rss_mb(driver)
    return record


async def _start(workspace: Path, tmpdir: Path) -> tuple[Server, trio.Process]:
    env = {**os.environ, "BROWX_WORKSPACE": str(workspace), "BROWX_CAPABILITIES": "eval,canvas", "TMPDIR": str(tmpdir),
           "PYTHONPATH": os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH")) if p)}
    process = await trio.lowlevel.open_process([sys.executable, "-m", "browx_actors", "serve"], stdin=subprocess.PIPE,
                                               stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env,
                                               cwd=str(workspace))
    return Server(process), process


async def _initialize(server: Server) -> None:
    answer = await server.request("initialize", json.dumps({
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "chaos", "version": "1"}}).encode())
    assert answer is not None and "result" in answer, answer
    assert server.process.stdin is not None
    await server.process.stdin.send_all(b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n')


async def _main(rounds: int, calls: int, seed: int) -> None:
    rng = random.Random(seed)
    workspace = Path(tempfile.mkdtemp(prefix="bx-chaos-ws-"))
    tmpdir = Path(tempfile.mkdtemp(prefix="bx-", dir="/tmp"))  # short: Chromium's socket paths
    records: list[Round] = []
    orphans = leftover_profiles = 0
    try:
        with serve_directory(PAGES) as base:
            server, process = await _start(workspace, tmpdir)
            async with trio.open_nursery() as nursery:
                nursery.start_soon(server.pump)
                await _initialize(server)
                for number in range(1, rounds + 1):
                    record = await _round(server, number, base, calls, rng)
                    records.append(record)
                    print(f"round {number} done: {record.calls} calls in {record.seconds:.1f} s", flush=True)
                await server.call("navigate", {"url": f"{base}/e2e_small.html"})
                _, profile = await _browser(server)
                os.kill(process.pid, signal.SIGKILL)
                await process.wait()
                nursery.cancel_scope.cancel()
            with trio.move_on_after(10):
                # The profile's processes are real ones: nothing to await but their exit.
                while profile and _users(profile):  # noqa: ASYNC110 - polls /proc
                    await trio.sleep(0.1)
            orphans = len(_users(profile)) if profile else 0
            second, process = await _start(workspace, tmpdir)
            async with trio.open_nursery() as nursery:
                nursery.start_soon(second.pump)
                await _initialize(second)
                await second.call("navigate", {"url": f"{base}/e2e_small.html"})  # launches, sweeping first
                leftover_profiles = int(bool(profile and Path(profile).exists()))
                assert process.stdin is not None
                await process.stdin.aclose()
                with trio.move_on_after(10):
                    await process.wait()
                if process.returncode is None:
                    process.kill()
                nursery.cancel_scope.cancel()
    finally:
        shutil.rmtree(workspace, ignore_errors=True)
        shutil.rmtree(tmpdir, ignore_errors=True)
    _report(records, orphans, leftover_profiles)


def _report(records: list[Round], orphans: int, leftover_profiles: int) -> None:
    print()
    print("| round | chaos | calls | hung | unanswered | wedged | calls/s | server RSS MB | driver RSS MB |")
    print("| ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for r in records:
        print(f"| {r.number} | {r.chaos or '-'} | {r.calls} | {r.hung} | {r.unanswered} | {r.wedged} | "
              f"{r.calls / r.seconds:.1f} | {r.server_mb:.0f} | {r.driver_mb:.0f} |")
    total = Counter[str]()
    for r in records:
        total.update(r.codes)
    quiet = [r for r in records if not r.chaos] or records
    first, last = records[0], records[-1]
    print()
    print(f"hung calls: {sum(r.hung for r in records)}; unanswered requests: {sum(r.unanswered for r in records)}; "
          f"wedged sessions: {sum(r.wedged for r in records)}; orphaned processes after the server's SIGKILL: "
          f"{orphans}; its profile left after the next start: {leftover_profiles}")
    print("answered codes: " + ", ".join(f"{code} {n}" for code, n in total.most_common()))
    quiet_rate = sum(r.calls for r in quiet) / sum(r.seconds for r in quiet)
    print(f"throughput: {quiet_rate:.1f} calls/s in quiet rounds; each chaos round against it: " + ", ".join(
        f"round {r.number} {r.calls / r.seconds / quiet_rate:.2f}x" for r in records if r.chaos))
    per_k = (last.server_mb - first.server_mb) / max(1, sum(r.calls for r in records[1:])) * 1000
    print(f"memory after sessions closed, against round 1: server {first.server_mb:.0f} -> {last.server_mb:.0f} MB "
          f"({per_k:+.2f} MB per 1,000 calls), driver {first.driver_mb:.0f} -> {last.driver_mb:.0f} MB")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=8)
    parser.add_argument("--calls", type=int, default=200, help="calls per session per round")
    parser.add_argument("--seed", type=int, default=19)
    args = parser.parse_args()
    started = time.perf_counter()
    trio.run(_main, args.rounds, args.calls, args.seed)
    print(f"({time.perf_counter() - started:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
