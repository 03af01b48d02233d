"""Chaos, hostile round: what hostile inputs make the server answer, and what they cost it.

The rounds of :mod:`benchmarks.chaos` load the server and kill what it drives; this one
feeds it what an agent (or whoever steers one) should not send, as issue 34 found it:

- hostile paths for every path argument (``screenshot``, ``screenshot_region``,
  ``pdf_save``, ``storage_state_save``/``load``, ``upload_file``): a FIFO, a socket,
  links to them and out of the workspace, ``a/`` 2,000 deep, ``..`` escapes, NUL, a
  lone surrogate, 300-byte names, folders;
- selectors Playwright cannot parse, on every tool that takes one;
- two registered secrets whose spellings differ everywhere (``tests/secret_support.py``)
  typed by alias and raw into ``fill``, paths, selectors, scripts, a prompt;
- arguments nested up to 100,000 deep, a script answering a value as deep, and
  ``storage_state_load`` of storage-state files as deep;
- pages that flood the console from a worker or with uncaught exceptions, a page that
  never yields and pages that open alerts in a loop, each left by ``navigate``.

The real server over stdio in raw JSON-RPC lines (chaos.py's :class:`Server`), its
stderr read and counted, a few sessions at once, each running shuffled episodes (one
page and its calls, hostile groups sent several at once). Reported per 1,000 calls:
``internal`` answers and calls with no answer within 60 s (target 0 each), stderr bytes
and the longest stderr line (target: bounded), spellings of a secret in an answer, in
stderr, in a workspace file's name or in the diagnostics records (target 0); the codes
answered; the median and p95 answer time of each kind of call. Each ``internal``,
silence and leak is listed with its call. A call with no answer in 60 s is waited for
240 s more, so that a slow answer and a lost one are told apart, and listed with the calls
in flight meanwhile; a session whose calls go unanswered three groups in a row is counted
wedged and sends no more, so that one stuck server costs minutes, not hours.

Run from the repo root: ``python -m benchmarks.chaos_hostile [--episodes N] [--sessions N] [--floods worker,exception]``
(also run by ``make bench``). Nothing is asserted; record the
table in benchmarks/RESULTS.md.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import attrs
import trio

from benchmarks.chaos import HUNG_AFTER, PAGES, ROOT, Server, _initialize
from benchmarks.chaos_hostile_plan import FLOODS, KINDS, Planner, Step, prepare_workspace
from browx_actors.demo import serve_directory
from tests.secret_support import FIRST, SECOND, expected_spellings

CAPABILITIES = "eval,secrets,storage,canvas,diagnostics"
#: Every spelling of either secret, named: one found anywhere is a leak.
SPELLINGS = [(f"{name} of {value!r}", form) for value in (FIRST, SECOND)
             for name, form in expected_spellings(value).items()]
#: How long a call that did not answer within HUNG_AFTER is waited for still.
LATE_AFTER = 240.0
#: Groups in a row with no answer at all after which a session is wedged and its calls stop.
WEDGED_AFTER = 3


@attrs.define
class Outcome:
    """What one call answered, and when."""

    step: Step
    session: str
    started: float  # since the round began
    seconds: float
    code: str | None  # None: no answer within HUNG_AFTER
    leaked: list[str]
    late: float | None = None  # when no answer came in time: when one came at last, if it did
    late_code: str | None = None


@attrs.define
class Stderr:
    """The server's stderr as it comes: bytes, lines, the longest, and any spelling."""

    size: int = 0
    lines: int = 0
    longest: int = 0
    longest_head: str = ""
    leaked: list[str] = attrs.Factory(list)
    heads: Counter[str] = attrs.Factory(Counter)

    def line(self, raw: bytes) -> None:
        self.lines += 1
        text = raw.decode("utf-8", "replace")
        if len(raw) > self.longest:
            self.longest, self.longest_head = len(raw), text[:400]
        self.heads["".join("#" if c.isdigit() else c for c in text[:70])] += 1
        self.leaked += [f"stderr: {name}: {text[:200]!r}" for name, form in SPELLINGS if form in text]

    async def read(self, stream: trio.abc.ReceiveStream) -> None:
        buffer = b""
        async for chunk in stream:
            self.size += len(chunk)
            *lines, buffer = (buffer + chunk).split(b"\n")
            for line in lines:
                self.line(line)
        if buffer:
            self.line(buffer)


def _strings(value: Any) -> Iterator[str]:  # Any: a decoded JSON message
    if isinstance(value, str):
        yield value
        if value.startswith(("{", "[")):
            with contextlib.suppress(ValueError, RecursionError):
                yield from _strings(json.loads(value))  # the envelope's text, as a client reads it
    elif isinstance(value, dict):
        if value.get("type") == "image":
            return  # pixels are out of masking's reach (the spec says so)
        for key, item in value.items():
            yield key
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)


def _leaks(text: str) -> list[str]:
    return [name for name, form in SPELLINGS if form in text]


@attrs.define
class Run:
    """Everything one round saw."""

    outcomes: list[Outcome] = attrs.Factory(list)
    stderr: Stderr = attrs.Factory(Stderr)
    file_leaks: list[str] = attrs.Factory(list)
    record_leaks: list[str] = attrs.Factory(list)
    seconds: float = 0.0
    exit_code: int | None = None
    started: float = 0.0
    #: Where the calls that did not answer in time go on waiting.
    watch: trio.Nursery | None = None
    wedged: list[str] = attrs.Factory(list)


def _code(answer: dict[str, Any]) -> str:  # Any: a decoded JSON-RPC answer
    if "error" in answer:
        return f"json-rpc {answer['error'].get('code')}"
    envelope = answer["result"].get("structuredContent") or {}
    return "ok" if envelope.get("ok") else str(envelope.get("code"))


async def _late(server: Server, request_id: int, started: float, outcome: Outcome, event: trio.Event) -> None:
    """Wait on for an answer that did not come in time: a slow call and a lost one differ."""
    with trio.move_on_after(LATE_AFTER):
        await event.wait()
    answer = server.answers.pop(request_id, None)
    server.arrived.pop(request_id, None)
    if answer is not None:
        outcome.late, outcome.late_code = trio.current_time() - started, _code(answer)


async def _send(server: Server, session: str, step: Step, run: Run) -> Outcome:
    if isinstance(step.args, bytes):
        raw = step.args[:-1] + b',"session":%s}' % json.dumps(session).encode()
    else:
        raw = json.dumps({**step.args, "session": session}).encode()
    started = trio.current_time()
    request_id = server.next_id + 1  # what request numbers it, before its first await
    answer = await server.request("tools/call", b'{"name":%s,"arguments":%s}' % (json.dumps(step.tool).encode(), raw),
                                  HUNG_AFTER)
    seconds = trio.current_time() - started
    if answer is None:
        outcome = Outcome(step, session, started - run.started, seconds, None, [])
        print(f"no answer in {HUNG_AFTER:.0f} s: {session} {step.tool} {step.shown[:80]!r} at "
              f"{outcome.started:.0f} s", file=sys.stderr, flush=True)
        assert run.watch is not None
        run.watch.start_soon(_late, server, request_id, started, outcome,
                             server.arrived.setdefault(request_id, trio.Event()))
    else:
        outcome = Outcome(step, session, started - run.started, seconds, _code(answer),
                          _leaks("\n".join(_strings(answer))))
    run.outcomes.append(outcome)
    return outcome


async def _group(server: Server, session: str, group: list[Step], run: Run) -> list[Outcome]:
    """Send a group's calls at once; their outcomes."""
    done: list[Outcome] = []

    async def one(step: Step) -> None:
        done.append(await _send(server, session, step, run))

    async with trio.open_nursery() as nursery:
        for step in group:
            nursery.start_soon(one, step)
    return done


async def _session(server: Server, session: str, groups: list[list[Step]], run: Run) -> None:
    await _send(server, session, Step("plain", "open_session", {}, "open"), run)
    for name, value in (("PW", FIRST), ("PX", SECOND)):
        await _send(server, session, Step("plain", "register_secret", {"name": name, "value": value}, name), run)
    silent = 0
    for number, group in enumerate(groups):
        done = await _group(server, session, group, run)
        silent = silent + 1 if all(o.code is None for o in done) else 0
        if silent == WEDGED_AFTER:
            run.wedged.append(f"{session} at {trio.current_time() - run.started:.0f} s, "
                              f"{len(groups) - number - 1} groups of calls not sent")
            print(f"wedged: {run.wedged[-1]}", file=sys.stderr, flush=True)
            return
    await _send(server, session, Step("plain", "close_session", {}, "close"), run)


def _scan_workspace(root: Path, run: Run) -> None:
    for folder, dirs, files in os.walk(root):
        for name in dirs + files:
            run.file_leaks += [f"file name {name!r}: {leak}" for leak in _leaks(name)]
        for name in files:
            if name.endswith(".jsonl"):
                text = (Path(folder) / name).read_text(errors="replace")
                run.record_leaks += [f"{name}: {leak}" for leak in _leaks(text)]


async def _main(sessions: int, episodes: int, seed: int, floods: tuple[str, ...]) -> Run:
    rng = random.Random(seed)
    workspace = Path(tempfile.mkdtemp(prefix="bx-hostile-ws-"))
    tmpdir = Path(tempfile.mkdtemp(prefix="bx-", dir="/tmp"))  # short: Chromium's socket paths
    held = prepare_workspace(workspace)
    run = Run()
    path = os.pathsep.join(filter(None, (str(ROOT), os.environ.get("PYTHONPATH"))))
    env = {**os.environ, "BROWX_WORKSPACE": str(workspace), "BROWX_CAPABILITIES": CAPABILITIES,
           "TMPDIR": str(tmpdir), "PYTHONPATH": path}
    try:
        with serve_directory(PAGES) as base:
            process = await trio.lowlevel.open_process(
                [sys.executable, "-m", "browx_actors", "serve"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                stderr=subprocess.PIPE, env=env, cwd=str(workspace))
            server = Server(process)
            assert process.stderr is not None and process.stdin is not None
            async with trio.open_nursery() as nursery:
                nursery.start_soon(server.pump)
                nursery.start_soon(run.stderr.read, process.stderr)
                await _initialize(server)
                run.started = trio.current_time()
                async with trio.open_nursery() as run.watch:
                    async with trio.open_nursery() as calls:
                        for i in range(sessions):
                            groups = Planner(random.Random(rng.random()), base, floods).plan(episodes)
                            calls.start_soon(_session, server, f"h{i}", groups, run)
                    run.seconds = trio.current_time() - run.started
                await server.request("tools/call", b'{"name":"diagnostics_search","arguments":{}}')  # flushes
                await process.stdin.aclose()
                with trio.move_on_after(20):
                    await process.wait()
                if process.returncode is None:
                    process.kill()
                    await process.wait()
                run.exit_code = process.returncode
                nursery.cancel_scope.cancel()
        _scan_workspace(workspace, run)
    finally:
        for sock in held:
            sock.close()
        shutil.rmtree(workspace, ignore_errors=True)
        shutil.rmtree(tmpdir, ignore_errors=True)
    return run


def _ms(values: list[float], q: float) -> str:
    if not values:
        return "-"
    ordered = sorted(values)
    return f"{ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000:.0f}"


def _meanwhile(run: Run, call: Outcome) -> list[str]:
    """The calls in flight while ``call`` waited."""
    end = call.started + (call.late if call.late is not None else call.seconds)
    return [f"{o.session} {o.step.tool} {o.step.shown[:50]!r} at {o.started:.0f} s for {o.seconds:.1f} s"
            for o in run.outcomes
            if o is not call and o.started < end and o.started + o.seconds > call.started][:8]


def report(run: Run) -> None:
    calls = len(run.outcomes)
    per_k = 1000 / max(1, calls)
    internal = [o for o in run.outcomes if "internal" in (o.code, o.late_code)]
    silent = [o for o in run.outcomes if o.code is None]
    never = [o for o in silent if o.late is None]
    leaky = [o for o in run.outcomes if o.leaked]
    print()
    print("| kind | calls | internal | no answer | leaks | median ms | p95 ms | codes |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |")
    for kind in KINDS:
        mine = [o for o in run.outcomes if o.step.kind == kind]
        codes = Counter(o.code or "no answer" for o in mine)
        # A call answered late counts with the time it took; one never answered is left out.
        times = [o.seconds if o.late is None else o.late for o in mine if o.code is not None or o.late is not None]
        median = f"{statistics.median(times) * 1000:.0f}" if times else "-"
        print(f"| {kind} | {len(mine)} | {sum('internal' in (o.code, o.late_code) for o in mine)} | "
              f"{sum(o.code is None for o in mine)} | {sum(bool(o.leaked) for o in mine)} | {median} | "
              f"{_ms(times, 0.95)} | {', '.join(f'{c} {n}' for c, n in codes.most_common())} |")
    print()
    print("| per 1,000 calls | count | per 1,000 | target |")
    print("| --- | ---: | ---: | --- |")
    rows = [("`internal` answers", len(internal), "0"), ("calls with no answer in 60 s", len(silent), "0"),
            (f"... nor in {LATE_AFTER + HUNG_AFTER:.0f} s", len(never), "0"),
            ("answers holding a secret's spelling", len(leaky), "0"),
            ("stderr lines holding a secret's spelling", len(run.stderr.leaked), "0"),
            ("stderr bytes", run.stderr.size, "bounded"), ("stderr lines", run.stderr.lines, "bounded"),
            ("sessions wedged (calls stopped)", len(run.wedged), "0")]
    for name, count, target in rows:
        print(f"| {name} | {count:,} | {count * per_k:,.1f} | {target} |")
    print()
    print(f"{calls:,} calls in {run.seconds:.0f} s; longest stderr line {run.stderr.longest:,} bytes; "
          f"file names holding a spelling {len(run.file_leaks)}, diagnostics records {len(run.record_leaks)}; "
          f"the server exited {run.exit_code} when its stdin closed")
    print("stderr's most frequent lines (digits as #): " + "; ".join(
        f"{n} x {head!r}" for head, n in run.stderr.heads.most_common(6)))
    print(f"longest stderr line begins: {run.stderr.longest_head!r}")
    for kind in ("path", "selector", "deep"):
        taken = sorted({f"{o.step.tool} {o.step.shown[:60]}" for o in run.outcomes
                        if o.step.kind == kind and o.code == "ok"})
        print(f"{kind} inputs answered ok: {'; '.join(taken) or 'none'}")
    for wedged in run.wedged:
        print(f"wedged (calls stopped after {WEDGED_AFTER} groups in a row had no answer): {wedged}")
    for title, found in (("internal", internal), ("no answer", silent), ("leaked", leaky)):
        for o in found[:20]:
            args = o.step.args if isinstance(o.step.args, bytes) else json.dumps(o.step.args)
            late = "" if o.code is not None else (
                f" answered {o.late_code} after {o.late:.0f} s" if o.late is not None else " never answered")
            print(f"{title}: {o.session} at {o.started:.0f} s, {o.step.tool} ({o.step.shown[:80]!r}) "
                  f"{str(args)[:160]}{late} {o.leaked[:3]}")
            if o.code is None:
                print("  meanwhile: " + "; ".join(_meanwhile(run, o)))
    for leak in (run.stderr.leaked + run.file_leaks + run.record_leaks)[:20]:
        print(f"leaked: {leak}")


def run_round(sessions: int, episodes: int, seed: int, floods: tuple[str, ...] = FLOODS) -> None:
    """The round in its own Trio run, then its tables."""
    report(trio.run(_main, sessions, episodes, seed, floods))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=3)
    parser.add_argument("--episodes", type=int, default=12, help="episodes per session")
    parser.add_argument("--seed", type=int, default=34)
    parser.add_argument("--floods", default=",".join(FLOODS), help="flood_console.html's sources, a comma list")
    args = parser.parse_args()
    started = time.perf_counter()
    run_round(args.sessions, args.episodes, args.seed, tuple(args.floods.split(",")))
    print(f"({time.perf_counter() - started:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
