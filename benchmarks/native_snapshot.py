"""A native snapshot's cost: parsing and ref-ing a 2,000-node UiAutomator dump, and one
action's overhead above what the (fake) device itself takes to answer.

1. Parse and ref. A React Native-style list screen of 2,000 nodes (as ``uiautomator
   dump`` prints it: one line, AOSP's attribute order), against two floors measured in
   the same run: expat with no handlers at all (the C parser alone), and expat calling a
   no-op Python handler at each start and end tag (the least any expat-based tree builder
   can pay), and against the expat tree builder that reads every dump the fast scanner
   declines (the reader ``parse_dump`` used alone before the scanner). Every variant
   runs once per round, rounds interleaved, and the figures are
   CPU time of this thread (``time.thread_time``), the minimum and the median over the
   rounds: on a shared 2-core host wall time mostly measures the neighbours. The target
   is 10 ms for parse + refs + snapshot text.
2. One action. ``click`` by testID through the runtime (in process, no MCP framing) on an
   android-app session over the fake adb server, against the same adb commands sent
   straight to the fake from the same thread (the dump, then the tap): the engine's own
   share is the difference. The fake runs in its own process. Three screens: the shop's
   catalog (small), the 2,000-node list standing still (its dump is the same bytes as
   the last read's, so the parse is reused), and the same list changing at every dump
   (parsed every time). Wall time, medians over the runs; the fake answers in Python on
   this host (rendering the big dump dominates its figures), so the absolute figures are
   the fake's, the difference is ours.

Run: ``python -m benchmarks.native_snapshot [--rounds N] [--actions N]``.
"""

from __future__ import annotations

import argparse
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from xml.parsers import expat

import trio

from browx_actors import open_runtime
from browx_actors.config import NativeConfig, RuntimeConfig, parse_capabilities
from browx_actors.devices.uiautomator import DumpParser, parse_dump, parse_with_expat, scan_plain_dump
from browx_actors.sessions.native.refs import Hierarchy, RefBook
from browx_actors.sessions.native.snapshot import snapshot
from tests.fakes.adb_shop import list_screen

TARGET_MS = 10.0


# -- 1. parse and ref -------------------------------------------------------------------


def _bare(data: bytes) -> None:
    expat.ParserCreate().Parse(data, True)


def _callbacks(data: bytes) -> None:
    parser = expat.ParserCreate()
    parser.StartElementHandler = lambda tag, attributes: None
    parser.EndElementHandler = lambda tag: None
    parser.Parse(data, True)


def measure_parse(rounds: int) -> tuple[int, int, list[tuple[str, float, float]]]:
    dump = list_screen(399).encode()
    tree = parse_dump(dump)
    if scan_plain_dump(dump) != parse_with_expat(dump):
        raise SystemExit("the scanner and expat disagree on the benchmark's dump")
    nodes = len(Hierarchy(tree))
    memo = DumpParser()
    memo.parse(dump)

    def full() -> None:
        snapshot(Hierarchy(parse_dump(dump)), RefBook())

    variants: list[tuple[str, Callable[[], Any]]] = [
        ("expat, no handlers (the C parser alone)", lambda: _bare(dump)),
        ("expat, a no-op handler per start and end tag (the floor)", lambda: _callbacks(dump)),
        ("parse_with_expat: the NativeNode tree built by expat", lambda: parse_with_expat(dump)),
        ("parse_dump: the NativeNode tree (the scanner reads this dump)", lambda: parse_dump(dump)),
        ("Hierarchy + snapshot text and refs, on a parsed tree", lambda: snapshot(Hierarchy(tree), RefBook())),
        ("parse + refs + snapshot text (what snapshot costs after the dump)", full),
        ("the same dump again (DumpParser: equal bytes, not parsed twice)", lambda: memo.parse(bytes(dump))),
    ]
    samples: dict[str, list[float]] = {name: [] for name, _ in variants}
    for _ in range(3):  # warm up
        for _, fn in variants:
            fn()
    for _ in range(rounds):
        for name, fn in variants:
            started = time.thread_time()
            fn()
            samples[name].append((time.thread_time() - started) * 1000)
    rows = [(name, min(values), statistics.median(values)) for name, values in samples.items()]
    return nodes, len(dump), rows


# -- 2. one action ---------------------------------------------------------------------


def _raw_request(port: int, serial: str, service: str) -> bytes:
    """One adb service straight to the fake, blocking, on this thread: its own reply time."""
    with socket.create_connection(("127.0.0.1", port)) as sock:
        for request in (f"host:transport:{serial}", service):
            data = request.encode()
            sock.sendall(f"{len(data):04x}".encode() + data)
            assert sock.recv(4) == b"OKAY"
        chunks = []
        while chunk := sock.recv(262144):
            chunks.append(chunk)
    return b"".join(chunks)


@contextmanager
def _fake_adb_process() -> Iterator[int]:
    """The fake adb server in its own process (``--scenario bench``), so that its Python
    work (rendering a 2,000-node dump takes it tens of ms) does not share our GIL."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    process = subprocess.Popen([sys.executable, "-m", "tests.fakes.adb_server", "--port", str(port), "--scenario",
                                "bench"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    try:
        assert process.stdout is not None
        process.stdout.readline()  # "fake adb server on ...": it listens
        yield port
    finally:
        process.terminate()
        process.wait(timeout=10)


async def measure_action(actions: int) -> list[tuple[str, float, float, float]]:
    results = []
    with _fake_adb_process() as port, tempfile.TemporaryDirectory() as workspace:
        config = RuntimeConfig(workspace=Path(workspace), capabilities=parse_capabilities("native-device"),
                               native=NativeConfig(adb_port=port))
        async with open_runtime(capabilities=["read", "action", "navigation", "native-device"],
                                config=config) as runtime:
            bench = {"session": "bench"}
            opened = await runtime.call_tool("open_session", {**bench, "engine": "android-app"})
            assert opened["ok"], opened
            serial = opened["device"]["id"]
            for screen, selector in (("catalog", "~promo-toggle"), ("list", "~row-4"),
                                     ("list-changing", "~row-4")):
                assert (await runtime.call_tool("navigate", {**bench, "url": f"bench://{screen}"}))["ok"]
                shot = await runtime.call_tool("snapshot", bench)
                answer = await runtime.call_tool("click", {**bench, "selector": selector})
                assert answer["ok"], answer
                x, y = round(answer["point"]["x"]), round(answer["point"]["y"])
                raw: list[float] = []
                tool: list[float] = []
                for _ in range(actions):
                    started = time.perf_counter()
                    _raw_request(port, serial, "exec:uiautomator dump /dev/tty")
                    _raw_request(port, serial, f"shell,v2:input tap {x} {y}")
                    raw.append((time.perf_counter() - started) * 1000)
                    started = time.perf_counter()
                    answer = await runtime.call_tool("click", {**bench, "selector": selector})
                    tool.append((time.perf_counter() - started) * 1000)
                    assert answer["ok"], answer
                nodes = shot.get("nodeCount")
                overhead = statistics.median(t - r for t, r in zip(tool, raw, strict=True))
                results.append((f"{screen} ({nodes} snapshot lines)", statistics.median(raw),
                                statistics.median(tool), overhead))
    return results


def main() -> None:
    options = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    options.add_argument("--rounds", type=int, default=40)
    options.add_argument("--actions", type=int, default=30)
    args = options.parse_args()
    nodes, size, rows = measure_parse(args.rounds)
    floor = rows[1][1]
    bare = rows[0][1]
    print(f"## Native snapshot: parse and ref a {nodes:,}-node dump ({size / 1024:.0f} KiB), "
          f"{args.rounds} rounds, CPU ms (`python -m benchmarks.native_snapshot`)\n")
    print("| step | min ms | median ms | min / floor | min / bare expat |")
    print("| --- | ---: | ---: | ---: | ---: |")
    for name, low, median in rows:
        print(f"| {name} | {low:.2f} | {median:.2f} | {low / floor:.2f} | {low / bare:.2f} |")
    full = rows[5][1]
    print(f"\nparse + refs + snapshot: {full:.2f} ms against a {TARGET_MS:g} ms target "
          f"({'met' if full <= TARGET_MS else 'not met'}).\n")
    actions = trio.run(measure_action, args.actions)
    print(f"## One click by testID over the fake adb server ({args.actions} runs, wall ms, medians)\n")
    print("| screen | the fake's own replies (dump + tap, raw socket) | click through the runtime | overhead |")
    print("| --- | ---: | ---: | ---: |")
    for screen, raw, tool, overhead in actions:
        print(f"| {screen} | {raw:.2f} | {tool:.2f} | {overhead:.2f} |")


if __name__ == "__main__":
    main()
