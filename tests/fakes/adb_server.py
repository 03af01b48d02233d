"""A fake adb server on loopback that speaks adb's real smart-socket protocol.

Debian's ``adb`` client and adbutils talk to it as to ``adb start-server``'s, because
the wire is the real one (AOSP SERVICES.TXT, SYNC.TXT):

- A request is 4 hex digits of length and the payload; the answer ``OKAY``, or ``FAIL``
  with a hex-length message (adb's own messages: ``device 'x' not found``, ``more than
  one device/emulator``, ``device unauthorized.`` ..., ``device offline``).
- Host services: ``host:version`` (``0029``, 41, which makes adbutils use ``tport``),
  ``host:devices`` and ``host:devices-l`` (``"%-22s %s"`` then ``product: model: device:
  transport_id:``), ``host:transport:<serial>``, ``host:transport-id:<n>``,
  ``host:transport-any`` / ``-usb`` / ``-local``, ``host:tport:serial:<s>`` / ``any`` /
  ``usb`` / ``local`` (OKAY and the 8-byte little-endian transport id), and the one-shot
  ``host-serial:<s>:``, ``host-transport-id:<n>:``, ``host-usb:``, ``host-local:``,
  ``host:`` + ``features`` / ``get-state`` / ``get-serialno`` / ``get-devpath``.
- After a transport: ``shell:<cmd>`` (raw stream, stdout and stderr merged, then close),
  ``shell,v2[,raw|,pty][,TERM=..]:<cmd>`` (packets: id, u32 length, data; 1 stdout,
  2 stderr, 3 exit code), ``exec:<cmd>`` (raw, binary-safe) and ``sync:`` (``STAT``,
  ``LIST``, ``SEND path,mode`` + ``DATA`` + ``DONE``, ``RECV``, ``QUIT``).

The devices feature only ``shell_v2``, so clients never switch to protocols the fake does
not speak (no ``cmd``: ``adb install`` takes the push and ``pm install`` path).

``adb emu kill`` never reaches the server: the client talks to the emulator's console
port. With ``console_token`` set, each emulator gets a console on its own loopback port
(``FakeDevice.console_port``) that answers ``auth``, ``avd name``, ``kill`` (the
emulator leaves the device list) and ``quit`` the way the emulator's console does.

Port forwards (``host-serial:<s>:forward:tcp:N;REMOTE``, ``killforward``,
``list-forward``) listen on loopback and carry each connection to the device socket
``REMOTE`` as the model maps it (``FakeDevice.sockets``: a test maps
``localabstract:chrome_devtools_remote`` to a local Chromium, which then plays the
phone's Chrome). An emulator that announces itself (``host:emulator:<port>``, as the
fake ``emulator`` on PATH does) joins the listing, booting.

In-process: ``with serve_adb() as (port, adb): ...`` (threads; blocking clients and Trio
tests alike). On its own, so the android-app engine can be tried with no emulator::

    python -m tests.fakes.adb_server --port 5037 [--chrome-port 9222]
    adb -P 5037 devices -l
"""

from __future__ import annotations

import argparse
import contextlib
import re
import socket
import socketserver
import struct
import threading
from collections.abc import Iterator

from .adb_device import FakeAdb, FakeDevice, Received
from .adb_shop import bench_adb, default_adb, multi_device_adb

__all__ = ["ADB_SERVER_VERSION", "FEATURES", "serve_adb"]

ADB_SERVER_VERSION = 41
FEATURES = "shell_v2"
SYNC_DATA_MAX = 64 * 1024
_UNAUTHORIZED = ("device unauthorized.\nThis adb server's $ADB_VENDOR_KEYS is not set\nTry 'adb kill-server' if "
                 "that seems wrong.\nOtherwise check for a confirmation dialog on your device.")
_ONE_SHOT = ("features", "get-state", "get-serialno", "get-devpath")
_DIRECTORIES = {"/", "/sdcard", "/data", "/data/local", "/data/local/tmp", "/storage/emulated/0"}


class _Refused(Exception):
    """A request adb answers with FAIL and this message."""


class _Wire:
    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock

    def read_exact(self, size: int) -> bytes:
        data = b""
        while len(data) < size:
            chunk = self.sock.recv(size - len(data))
            if not chunk:
                raise ConnectionResetError("peer closed")
            data += chunk
        return data

    def request(self) -> str | None:
        try:
            size = int(self.read_exact(4), 16)
        except ConnectionResetError:
            return None
        return self.read_exact(size).decode("utf-8", "replace")

    def send(self, data: bytes) -> None:
        self.sock.sendall(data)

    def okay(self, block: str | None = None) -> None:
        self.send(b"OKAY" + (b"" if block is None else _block(block)))

    def fail(self, message: str) -> None:
        self.send(b"FAIL" + _block(message))

    def finish(self) -> None:
        """Close the way adbd does: our side first, then whatever the client still sends."""
        with contextlib.suppress(OSError):
            self.sock.shutdown(socket.SHUT_WR)
            self.sock.settimeout(2)
            while self.sock.recv(65536):
                pass


def _block(text: str) -> bytes:
    data = text.encode()
    return f"{len(data):04x}".encode() + data


class _Handler(socketserver.BaseRequestHandler):
    server: _Server

    def handle(self) -> None:
        wire = _Wire(self.request)
        with contextlib.suppress(ConnectionError, OSError):
            device: FakeDevice | None = None
            while (request := wire.request()) is not None:
                try:
                    if device is not None:
                        self.device_service(wire, device, request)
                        return
                    device = self.host_service(wire, request)
                except _Refused as refusal:
                    wire.fail(str(refusal))
                    return
                if device is None:
                    return

    # -- host services -----------------------------------------------------------------

    def host_service(self, wire: _Wire, request: str) -> FakeDevice | None:
        adb = self.server.adb
        if request.startswith("host:emulator:"):
            # An emulator announcing itself; adb answers nothing and starts talking to it.
            self.server.announce_emulator(int(request.rpartition(":")[2]))
            return None
        forwarding = _FORWARDING.match(request)
        if forwarding is not None:
            self.forward_service(wire, forwarding.group("selector"), forwarding.group("what"))
            return None
        if request == "host:version":
            wire.okay(f"{ADB_SERVER_VERSION:04x}")
        elif request == "host:kill":
            wire.okay()
        elif request in ("host:devices", "host:devices-l"):
            wire.okay(adb.listing(long=request.endswith("-l")))
        elif request.startswith(("host:transport", "host:tport:")):
            device = self.select(request.removeprefix("host:").removeprefix("tport:"), usable=True)
            wire.okay()
            if request.startswith("host:tport:"):
                wire.send(struct.pack("<Q", device.transport_id))
            return device
        else:
            selector, _, what = request.rpartition(":")
            if what not in _ONE_SHOT:
                raise _Refused("unknown host service")
            if request == "host:features":  # the server's own, no device involved
                wire.okay(FEATURES)
                return None
            device = self.select(selector, usable=what != "get-state")
            answers = {"features": FEATURES, "get-state": device.state, "get-serialno": device.serial,
                       "get-devpath": "unknown"}
            wire.okay(answers[what])
        return None

    def forward_service(self, wire: _Wire, selector: str, what: str) -> None:
        """``forward:[norebind:]LOCAL;REMOTE``, ``killforward:LOCAL``, ``killforward-all``,
        ``list-forward``, as the adb server answers them (a forward: OKAY, OKAY and the port)."""
        if what == "list-forward":
            wire.okay("".join(f"{serial} {local} {remote}\n" for serial, local, remote in self.server.forwards()))
            return
        device = self.select(selector, usable=what != "killforward-all")
        if what == "killforward-all":
            self.server.unforward(device.serial, None)
            wire.okay()
            return
        if what.startswith("killforward:"):
            if not self.server.unforward(device.serial, what.removeprefix("killforward:")):
                raise _Refused(f"listener '{what.removeprefix('killforward:')}' not found")
            wire.okay()
            return
        spec = what.removeprefix("forward:").removeprefix("norebind:")
        local, _, remote = spec.partition(";")
        if not local.startswith("tcp:") or not remote:
            raise _Refused(f"cannot bind listener: {spec!r} is not tcp:PORT;REMOTE")
        port = self.server.forward(device, int(local.removeprefix("tcp:")), remote)
        wire.send(b"OKAY")
        wire.okay(str(port))  # adb 1.0.41 answers the port it listens on, asked for 0 or not

    def select(self, selector: str, *, usable: bool) -> FakeDevice:
        """The device a transport selector names, as adb's acquire_one_transport picks it."""
        devices = self.server.adb.devices
        kind, _, value = selector.partition(":")
        if kind in ("host-serial", "transport", "serial"):
            found = [d for d in devices if d.serial == value]
            if not found:
                raise _Refused(f"device '{value}' not found")
        elif kind in ("host-transport-id", "transport-id"):
            found = [d for d in devices if str(d.transport_id) == value]
            if not found:
                raise _Refused(f"no device with transport id '{value}'")
        else:
            wanted = kind.removeprefix("host-").removeprefix("transport-")
            found = [d for d in devices if wanted in ("host", "any")
                     or (wanted == "local") == d.serial.startswith("emulator-")]
            what = {"usb": "device", "local": "emulator"}.get(wanted, "device/emulator")
            if not found:
                raise _Refused(f"no {what}s found")
            if len(found) > 1:
                raise _Refused(f"more than one {what}")
        device = found[0]
        if usable and device.state == "unauthorized":
            raise _Refused(_UNAUTHORIZED)
        if usable and device.state != "device":
            raise _Refused(f"device {device.state}")
        return device

    # -- device services -----------------------------------------------------------------

    def device_service(self, wire: _Wire, device: FakeDevice, request: str) -> None:
        head, _, command = request.partition(":")
        kind, *options = head.split(",")
        if kind == "sync" and not command:
            wire.okay()
            self.sync(wire, device)
        elif kind in ("shell", "exec") and command:
            service = "shell,v2" if kind == "shell" and "v2" in options else kind
            result = device.run(service, command)
            wire.okay()
            if service == "shell,v2":
                for packet_id, data in ((1, result.stdout), (2, result.stderr)):
                    if data:
                        wire.send(struct.pack("<BI", packet_id, len(data)) + data)
                wire.send(struct.pack("<BI", 3, 1) + bytes([result.exit_code & 0xFF]))
            else:
                wire.send(result.stdout + result.stderr)
        elif kind == "shell":
            raise _Refused("the fake adb server runs commands, not interactive shells")
        else:
            raise _Refused(f"unknown service {head}")
        wire.finish()

    def sync(self, wire: _Wire, device: FakeDevice) -> None:
        while True:
            verb, size = struct.unpack("<4sI", wire.read_exact(8))
            if verb == b"QUIT":
                return
            path = wire.read_exact(size).decode()
            with device.lock:
                if verb == b"STAT":
                    wire.send(b"STAT" + struct.pack("<III", *_stat(device, path)))
                elif verb == b"LIST":
                    prefix = path.rstrip("/") + "/"
                    for name, content in sorted(device.files.items()):
                        if name.startswith(prefix) and "/" not in name[len(prefix):]:
                            entry = name[len(prefix):].encode()
                            wire.send(b"DENT" + struct.pack("<IIII", 0o100644, len(content), 0, len(entry)) + entry)
                    wire.send(b"DONE" + bytes(16))
                elif verb == b"SEND":
                    self.receive_file(wire, device, path)
                elif verb == b"RECV":
                    device.commands.append(Received(device.serial, "sync", f"RECV {path}"))
                    data = device.files.get(path)
                    if data is None:
                        wire.send(b"FAIL" + struct.pack("<I", 25) + b"No such file or directory")
                        continue
                    for start in range(0, len(data), SYNC_DATA_MAX):
                        chunk = data[start:start + SYNC_DATA_MAX]
                        wire.send(b"DATA" + struct.pack("<I", len(chunk)) + chunk)
                    wire.send(b"DONE" + bytes(4))
                else:
                    message = f"unknown sync request {verb!r}".encode()
                    wire.send(b"FAIL" + struct.pack("<I", len(message)) + message)
                    return

    def receive_file(self, wire: _Wire, device: FakeDevice, spec: str) -> None:
        path, _, _mode = spec.rpartition(",")
        data = bytearray()
        while True:
            verb, size = struct.unpack("<4sI", wire.read_exact(8))
            if verb == b"DONE":
                break
            if verb != b"DATA" or size > SYNC_DATA_MAX:
                raise ConnectionResetError("bad sync SEND stream")
            data += wire.read_exact(size)
        device.commands.append(Received(device.serial, "sync", f"SEND {path}"))
        if path.startswith("/system/"):
            message = b"couldn't create file: Read-only file system"
            wire.send(b"FAIL" + struct.pack("<I", len(message)) + message)
            return
        device.files[path] = bytes(data)
        wire.send(b"OKAY" + bytes(4))


def _stat(device: FakeDevice, path: str) -> tuple[int, int, int]:
    """(mode, size, mtime) as ``STAT`` answers; all zero when nothing is there."""
    path = path.rstrip("/") or "/"
    if path in device.files:
        return 0o100644, len(device.files[path]), 1_700_000_000
    if path in _DIRECTORIES or any(name.startswith(path + "/") for name in device.files):
        return 0o040771, 4096, 1_700_000_000
    return 0, 0, 0


_FORWARDING = re.compile(r"^(?P<selector>host(?:-serial:[^:]+|-transport-id:\d+|-usb|-local)?):"
                         r"(?P<what>(?:forward:|killforward:).+|killforward-all|list-forward)$")


class _Server(socketserver.ThreadingTCPServer):
    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, address: tuple[str, int], adb: FakeAdb, console_token: str | None = None) -> None:
        self.adb = adb
        self.console_token = console_token
        self._lock = threading.Lock()
        #: Servers started while serving (emulator consoles, forward listeners), stopped at the end.
        self.extras: list[socketserver.TCPServer] = []
        self._forwards: dict[tuple[str, str], _Forward] = {}
        super().__init__(address, _Handler)

    def start_extra(self, server: socketserver.TCPServer) -> None:
        thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        with self._lock:
            self.extras.append(server)
        thread.start()

    def announce_emulator(self, console_port: int) -> None:
        """``host:emulator:<port>``: the emulator at that console port joins the listing."""
        serial = f"emulator-{console_port}"
        if self.adb.emulator_factory is None or any(d.serial == serial for d in self.adb.devices):
            return
        device = self.adb.emulator_factory(serial)
        device.transport_id = max((d.transport_id for d in self.adb.devices), default=0) + 1
        self.adb.devices.append(device)
        if self.console_token is not None:
            console = _Console(self.server_address[0], self.adb, device, self.console_token, port=console_port)
            device.console_port = console.server_address[1]
            self.start_extra(console)

    def forward(self, device: FakeDevice, port: int, remote: str) -> int:
        with self._lock:
            old = self._forwards.pop((device.serial, f"tcp:{port}"), None) if port else None
        if old is not None:
            old.shutdown()
            old.server_close()
        listener = _Forward((self.server_address[0], port), device, remote)
        local = f"tcp:{listener.server_address[1]}"
        with self._lock:
            self._forwards[(device.serial, local)] = listener
        self.start_extra(listener)
        return int(listener.server_address[1])

    def unforward(self, serial: str, local: str | None) -> bool:
        with self._lock:
            keys = [key for key in self._forwards if key[0] == serial and (local is None or key[1] == local)]
            listeners = [self._forwards.pop(key) for key in keys]
        for listener in listeners:
            listener.shutdown()
            listener.server_close()
        return bool(listeners)

    def forwards(self) -> list[tuple[str, str, str]]:
        with self._lock:
            return [(serial, local, listener.remote) for (serial, local), listener in self._forwards.items()]


# -- port forwards -----------------------------------------------------------------------


class _ForwardHandler(socketserver.BaseRequestHandler):
    server: _Forward

    def handle(self) -> None:
        target = self.server.device.sockets.get(self.server.remote)
        if target is None:  # nothing listens on that device socket: adb closes at once
            return
        with contextlib.suppress(OSError), socket.create_connection(target, timeout=10) as upstream:
            upstream.settimeout(None)
            pump = threading.Thread(target=_pipe, args=(upstream, self.request), daemon=True)
            pump.start()
            _pipe(self.request, upstream)
            pump.join(timeout=5)


def _pipe(source: socket.socket, sink: socket.socket) -> None:
    with contextlib.suppress(OSError):
        while data := source.recv(65536):
            sink.sendall(data)
    with contextlib.suppress(OSError):
        sink.shutdown(socket.SHUT_WR)


class _Forward(socketserver.ThreadingTCPServer):
    """``adb forward tcp:N REMOTE``: connections to N reach the device socket REMOTE."""

    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, address: tuple[str, int], device: FakeDevice, remote: str) -> None:
        self.device, self.remote = device, remote
        super().__init__(address, _ForwardHandler)


# -- the emulator console --------------------------------------------------------------


class _ConsoleHandler(socketserver.StreamRequestHandler):
    server: _Console

    def handle(self) -> None:
        token, device = self.server.token, self.server.device
        self.wfile.write(b"Android Console: Authentication required\r\nAndroid Console: type 'auth <auth_token>' "
                         b"to authenticate\r\nAndroid Console: you can find your <auth_token> in \r\n"
                         b"'~/.emulator_console_auth_token'\r\nOK\r\n")
        authenticated = False
        for raw in self.rfile:
            line = raw.decode(errors="replace").strip()
            if line == f"auth {token}":
                authenticated = True
                self.wfile.write(b"Android Console: type 'help' for a list of commands\r\nOK\r\n")
            elif line.startswith("auth "):
                self.wfile.write(b"KO: authentication token does not match ~/.emulator_console_auth_token\r\n")
            elif line in ("quit", "exit"):
                return
            elif not authenticated:
                self.wfile.write(b"KO: unknown command, try 'help'\r\n")
            elif line == "avd name":
                self.wfile.write(device.serial.encode() + b"_avd\r\nOK\r\n")
            elif line == "kill":
                # Gone from the listing before the answer goes out, so whoever reads the
                # answer and then lists the devices sees it gone.
                with contextlib.suppress(ValueError):
                    self.server.adb.devices.remove(device)
                device.commands.append(Received(device.serial, "console", "kill"))
                self.wfile.write(b"OK: killing emulator, bye bye\r\n")
                return
            else:
                self.wfile.write(b"KO: unknown command, try 'help'\r\n")


class _Console(socketserver.ThreadingTCPServer):
    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, host: str, adb: FakeAdb, device: FakeDevice, token: str, port: int = 0) -> None:
        self.adb, self.device, self.token = adb, device, token
        super().__init__((host, port), _ConsoleHandler)


@contextlib.contextmanager
def serve_adb(
    adb: FakeAdb | None = None,
    *,
    host: str = "127.0.0.1",
    port: int = 0,
    console_token: str | None = None,
) -> Iterator[tuple[int, FakeAdb]]:
    """Serve ``adb`` (default: :func:`default_adb`) on loopback; yields (port, adb)."""
    adb = adb if adb is not None else default_adb()
    main = _Server((host, port), adb, console_token)
    servers: list[socketserver.TCPServer] = [main]
    if console_token is not None:
        for device in adb.devices:
            if device.serial.startswith("emulator-"):
                # On the serial's own port when it is free (as `adb emu` expects), else any.
                wanted = int(device.serial.partition("-")[2]) if device.serial.partition("-")[2].isdigit() else 0
                try:
                    console = _Console(host, adb, device, console_token, port=wanted)
                except OSError:
                    console = _Console(host, adb, device, console_token)
                device.console_port = console.server_address[1]
                servers.append(console)
    threads = [threading.Thread(target=s.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
               for s in servers]
    for thread in threads:
        thread.start()
    try:
        yield servers[0].server_address[1], adb
    finally:
        with main._lock:
            extras = list(main.extras)
        for server in [*servers, *extras]:
            server.shutdown()
            server.server_close()
        for thread in threads:
            thread.join()


def main() -> None:
    parser = argparse.ArgumentParser(description="A fake adb server with a scripted emulator, on loopback.")
    parser.add_argument("--port", type=int, default=5037, help="port to listen on (adb's default: 5037)")
    parser.add_argument("--scenario", choices=("default", "multi", "bench"), default="default",
                        help="default: emulator-5554 with a launcher and com.example.shop; multi: four devices; "
                             "bench: the default plus a 2,000-node list (bench://list, bench://list-changing)")
    parser.add_argument("--console-token", help="also serve each emulator's console, with this auth token")
    parser.add_argument("--chrome-port", type=int, help="play Chrome on the device with the Chromium whose DevTools "
                        "listen on this local port (chrome-android sessions forward to it)")
    args = parser.parse_args()
    adb = {"default": default_adb, "multi": multi_device_adb, "bench": bench_adb}[args.scenario]()
    if args.chrome_port:
        for device in adb.devices:
            device.sockets["localabstract:chrome_devtools_remote"] = ("127.0.0.1", args.chrome_port)
    with serve_adb(adb, port=args.port, console_token=args.console_token) as (port, adb):
        print(f"fake adb server on 127.0.0.1:{port}: try `adb -P {port} devices -l`, or set "
              f"ANDROID_ADB_SERVER_PORT={port} for browx-actors", flush=True)
        for device in adb.devices:
            if device.console_port:
                print(f"  {device.serial}: console on 127.0.0.1:{device.console_port}", flush=True)
        with contextlib.suppress(KeyboardInterrupt):
            threading.Event().wait()


if __name__ == "__main__":
    main()
