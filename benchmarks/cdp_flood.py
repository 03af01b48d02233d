"""What one console message costs the CDP reader: decoded, or counted from a peek.

A peer process writes N ``Runtime.consoleAPICalled`` events for one flat session as
Chromium writes them, then the reply to the client's one command; the client's
``CdpConnection`` reads them all. Three ways, each in its own run of the same stream:

* ``unwanted``: nothing on the session wants the method (the reader peeks and counts);
* ``sampled``: a tap wants it and says skip (a flood the tap is sampling out);
* ``decoded``: a tap wants it and takes it (JSON decoded, handed over).

Printed: messages a second (wall) and the reader process's CPU per message. The peer
is a separate process, so its writing costs the client nothing.

Run: ``python -m benchmarks.cdp_flood [--messages N]``.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time

import trio

from browx_actors.cdp import CdpEvent, open_cdp_connection

SESSION = "A1B2C3D4E5F60718293A4B5C6D7E8F90"
MESSAGE = json.dumps({
    "method": "Runtime.consoleAPICalled",
    "params": {"type": "log", "args": [{"type": "string", "value": "flood"},
                                       {"type": "number", "value": 123, "description": "123"}],
               "executionContextId": 3, "timestamp": 1.7e12,
               "stackTrace": {"callFrames": [{"functionName": "", "scriptId": "5",
                                              "url": "http://127.0.0.1:5555/flood_console.html?rate=40000",
                                              "lineNumber": 14, "columnNumber": 60}]}},
}, separators=(",", ":"))[:-1] + f',"sessionId":"{SESSION}"}}'

PEER = r'''
import json, socket, sys
from wsproto import ConnectionType, WSConnection
from wsproto.events import AcceptConnection, Request, TextMessage
count, message = int(sys.argv[1]), sys.argv[2]
server = socket.socket(); server.bind(("127.0.0.1", 0)); server.listen(1)
print(server.getsockname()[1], flush=True)
conn, _ = server.accept(); ws = WSConnection(ConnectionType.SERVER)
while not any(isinstance(e, Request) for e in (ws.receive_data(conn.recv(65536)) or ws.events())):
    pass
conn.sendall(ws.send(AcceptConnection()))
frames = b"".join(ws.send(TextMessage(data=message)) for _ in range(count))
command = None
while command is None:
    ws.receive_data(conn.recv(65536))
    for event in ws.events():
        if isinstance(event, TextMessage):
            command = json.loads(event.data)
conn.sendall(frames + ws.send(TextMessage(data=json.dumps({"id": command["id"], "result": {}}))))
conn.recv(1)
'''


class Tap:
    methods = frozenset({"Runtime.consoleAPICalled"})

    def __init__(self, skip: bool) -> None:
        self._skip = skip
        self.taken = 0

    def skip(self, method: str, raw: str) -> bool:
        return self._skip

    def on_event(self, event: CdpEvent) -> None:
        self.taken += 1


async def _one(mode: str, count: int) -> tuple[float, float]:
    peer = subprocess.Popen([sys.executable, "-c", PEER, str(count), MESSAGE], stdout=subprocess.PIPE)
    try:
        assert peer.stdout is not None
        port = int(peer.stdout.readline())
        async with open_cdp_connection(f"ws://127.0.0.1:{port}/") as conn:
            if mode != "unwanted":
                conn.tap(SESSION, Tap(skip=mode == "sampled"))
            wall, cpu = time.perf_counter(), time.process_time()
            await conn.send("Test.go", timeout=600)
            wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
            assert conn.stats().events == count
    finally:
        peer.kill()
        peer.wait()
    return count / wall, cpu / count * 1e6


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--messages", type=int, default=50_000)
    parser.add_argument("--runs", type=int, default=3)
    options = parser.parse_args()
    print(f"# CDP reader: {options.messages:,} console messages of {len(MESSAGE)} bytes, best of {options.runs}\n")
    print("| way | messages/s (wall) | reader CPU µs per message |")
    print("| --- | ---: | ---: |")
    for mode in ("unwanted", "sampled", "decoded"):
        runs = [trio.run(_one, mode, options.messages) for _ in range(options.runs)]
        rate, cpu = max(r[0] for r in runs), min(r[1] for r in runs)
        print(f"| {mode} | {rate:,.0f} | {cpu:.1f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
