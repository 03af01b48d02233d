"""The adb server, reached with adbutils from worker threads: devices and their commands.

adbutils is blocking, so every call here runs in a worker thread
(``trio.to_thread.run_sync(..., abandon_on_cancel=True)``) and never on the Trio loop.
A cancelled call returns at once; its thread finishes on its own when the socket
timeout it was given (the call's own deadline) runs out, so nothing it holds outlives
the call by more than that.

Where the server is: ``ANDROID_ADB_SERVER_HOST`` / ``ANDROID_ADB_SERVER_PORT`` (default
127.0.0.1:5037, read into ``NativeConfig``), as every adb client reads them, so a remote
adb server or a device farm's works unchanged. adbutils' own client would start a server it finds missing with
the ``adb`` binary it bundles; that is not the operator's toolchain, so
:meth:`AdbServer.ensure_running` decides instead: a loopback server is started with the
``adb`` on ``PATH`` (what any adb command does), and with no ``adb`` there, or a remote
host, a missing server is an absent toolchain.

The connection layer is adbutils' (``AdbClient.make_connection``, ``AdbConnection``);
the services are asked for by name (``host:devices-l``, ``host:transport:<serial>``
then ``shell,v2:`` / ``exec:`` / ``sync:``), one connection per command, as the adb
protocol has it. Reading a stream to its end and closing the socket are done here,
without ``AdbConnection.close``'s 10 ms sleep after every command.
"""

from __future__ import annotations

import contextlib
import io
import ipaddress
import os
import shutil
import socket
import struct
import subprocess
from collections.abc import Callable
from typing import TypeVar

import adbutils  # type: ignore[import-untyped]
import attrs
import trio
from adbutils.errors import AdbConnectionError, AdbError, AdbTimeout  # type: ignore[import-untyped]

from ..errors import ToolError
from .adb_output import DeviceEntry, parse_devices, parse_getprop

__all__ = ["DEFAULT_ADB_PORT", "AdbAddress", "AdbServer", "AndroidDevice", "ShellOutput"]

DEFAULT_ADB_PORT = 5037
_T = TypeVar("_T")


@attrs.frozen
class AdbAddress:
    """Where the adb server listens."""

    host: str = "127.0.0.1"
    port: int = DEFAULT_ADB_PORT

    @property
    def local(self) -> bool:
        """Whether the server would run on this machine (a loopback address or name)."""
        if self.host == "localhost":
            return True
        try:
            return ipaddress.ip_address(self.host).is_loopback
        except ValueError:
            return False

    def __str__(self) -> str:
        return f"{self.host}:{self.port}"


@attrs.frozen
class ShellOutput:
    """What a shell command printed and how it exited (shell protocol v2)."""

    command: str
    exit_code: int
    stdout: bytes
    stderr: bytes

    @property
    def text(self) -> str:
        """stdout then stderr, decoded: what a person at the terminal would read."""
        return (self.stdout + self.stderr).decode("utf-8", "replace")

    @property
    def out(self) -> str:
        return self.stdout.decode("utf-8", "replace")


async def _in_thread(fn: Callable[[], _T]) -> _T:
    return await trio.to_thread.run_sync(fn, abandon_on_cancel=True)


def _unreachable(address: AdbAddress, error: BaseException) -> ToolError:
    return ToolError("unavailable", f"no adb server answers at {address} ({error}): start one with `adb "
                     "start-server`, or point ANDROID_ADB_SERVER_HOST / ANDROID_ADB_SERVER_PORT at yours",
                     component="adb server")


class AdbServer:
    """One adb server: whether it answers, what it lists, and a handle on each device."""

    def __init__(self, address: AdbAddress) -> None:
        self.address = address
        self.client = adbutils.AdbClient(host=address.host, port=address.port)

    async def reachable(self, timeout: float = 1.0) -> bool:
        """Whether something accepts connections at the address (no adb command sent)."""
        def probe() -> bool:
            try:
                with socket.create_connection((self.address.host, self.address.port), timeout=timeout):
                    return True
            except OSError:
                return False
        return await _in_thread(probe)

    async def ensure_running(self) -> bool:
        """True when a server answers, starting a loopback one with ``adb`` from PATH if need be.

        False means the toolchain is absent here: no server, and none this process may
        start (a remote host, or no ``adb`` on PATH).
        """
        if await self.reachable():
            return True
        adb = shutil.which("adb")
        if adb is None or not self.address.local:
            return False
        env = {**os.environ, "ANDROID_ADB_SERVER_PORT": str(self.address.port)}
        await trio.run_process([adb, "-P", str(self.address.port), "start-server"], env=env, check=False,
                               stdin=subprocess.DEVNULL, capture_stdout=True, capture_stderr=True)
        return await self.reachable()

    async def devices(self, *, timeout: float = 10.0) -> tuple[DeviceEntry, ...]:
        """``host:devices-l``: every device with its state (unauthorized and offline included)."""
        def listing() -> str:
            with self._connect(timeout) as c:
                c.send_command("host:devices-l")
                c.check_okay()
                return str(c.read_string_block())
        return parse_devices(await self._call(listing, "list devices"))

    def device(self, serial: str) -> AndroidDevice:
        return AndroidDevice(self, serial)

    def _connect(self, timeout: float) -> _Connection:
        try:
            connection = _Connection(self.address.host, self.address.port)
        except AdbError as error:
            raise _unreachable(self.address, error) from None
        connection.conn.settimeout(max(timeout, 0.05))
        return connection

    async def _call(self, fn: Callable[[], _T], what: str, serial: str | None = None) -> _T:
        try:
            return await _in_thread(fn)
        except AdbTimeout as error:
            raise ToolError("timeout", f"adb {what}: the adb server did not answer in time ({error})") from None
        except AdbConnectionError as error:
            raise _unreachable(self.address, error) from None
        except (AdbError, OSError, EOFError) as error:
            raise _adb_failure(what, error, serial) from None


def _adb_failure(what: str, error: BaseException, serial: str | None) -> ToolError:
    message = " ".join(str(error).split()) or type(error).__name__
    if serial is not None and ("not found" in message or "no devices" in message):
        return ToolError("target-not-found", f"adb {what}: {message} (device_list shows what adb sees)",
                         device=serial)
    return ToolError("adb-failed", f"adb {what}: {message}", exitCode=None, **({"device": serial} if serial else {}))


class AndroidDevice:
    """One device of an adb server, by serial: shell, exec-out, sync push, port forwards."""

    def __init__(self, server: AdbServer, serial: str) -> None:
        self.server = server
        self.serial = serial

    def _transport(self, timeout: float) -> _Connection:
        connection = self.server._connect(timeout)
        # host:transport works on every server version (no version round trip first).
        connection.send_command(f"host:transport:{self.serial}")
        connection.check_okay()
        return connection

    async def shell(self, command: str, *, timeout: float) -> ShellOutput:
        """Run ``command`` with the shell protocol v2 (stdout, stderr and the exit code apart)."""
        def run() -> ShellOutput:
            with self._transport(timeout) as c:
                c.send_command(f"shell,v2:{command}")
                c.check_okay()
                return _read_shell_v2(c, command)
        return await self.server._call(run, f"shell {command.split(' ', 1)[0]}", self.serial)

    async def exec_out(self, command: str, *, timeout: float) -> bytes:
        """``exec:`` (adb exec-out): the command's raw, binary-safe stdout."""
        def run() -> bytes:
            with self._transport(timeout) as c:
                c.send_command(f"exec:{command}")
                c.check_okay()
                return _read_to_end(c)
        return await self.server._call(run, f"exec-out {command.split(' ', 1)[0]}", self.serial)

    async def push(self, data: bytes, remote: str, *, timeout: float, mode: int = 0o644) -> None:
        """Write ``data`` to ``remote`` on the device over the sync protocol."""
        def run() -> None:
            with self._transport(timeout) as c:
                c.send_command("sync:")
                c.check_okay()
                spec = f"{remote},{0o100000 | mode}".encode()
                c.conn.sendall(b"SEND" + struct.pack("<I", len(spec)) + spec)
                view = memoryview(data)
                for start in range(0, len(data), 64 * 1024):
                    chunk = view[start:start + 64 * 1024]
                    c.conn.sendall(b"DATA" + struct.pack("<I", len(chunk)) + chunk)
                c.conn.sendall(b"DONE" + struct.pack("<I", 0))
                status = c.read_exact(8)
                if status[:4] != b"OKAY":
                    size = struct.unpack("<I", status[4:])[0]
                    raise AdbError(c.read_exact(size).decode("utf-8", "replace") if size else "push refused")
                c.conn.sendall(b"QUIT" + struct.pack("<I", 0))
        await self.server._call(run, f"push {remote}", self.serial)

    async def getprop(self, *, timeout: float) -> dict[str, str]:
        return parse_getprop((await self.shell("getprop", timeout=timeout)).out)

    async def forward(self, remote: str, *, timeout: float) -> int:
        """``adb forward tcp:0 REMOTE`` (``localabstract:NAME``, ``tcp:PORT``): the server
        listens on a free local port, which it answers, and carries each connection to it
        to ``REMOTE`` on the device."""
        def run() -> int:
            with self.server._connect(timeout) as c:
                c.send_command(f"host-serial:{self.serial}:forward:tcp:0;{remote}")
                c.check_okay()  # the device is there
                c.check_okay()  # the listener is installed; then the port it took
                return int(c.read_string_block())
        return await self.server._call(run, f"forward tcp:0 {remote}", self.serial)

    async def remove_forward(self, local: str, *, timeout: float) -> None:
        def run() -> None:
            with self.server._connect(timeout) as c:
                c.send_command(f"host-serial:{self.serial}:killforward:{local}")
                c.check_okay()
        await self.server._call(run, f"forward --remove {local}", self.serial)


class _Connection(adbutils.AdbConnection):  # type: ignore[misc]  # adbutils ships no type information
    """adbutils' connection, minus two habits: its constructor runs ``adb start-server``
    when the connect fails (:meth:`AdbServer.ensure_running` decides that), and its
    ``close`` sleeps 10 ms after every command."""

    def _safe_connect(self) -> socket.socket:
        made: socket.socket = self._create_socket()
        return made

    def close(self) -> None:
        with contextlib.suppress(AdbError, OSError):
            self.conn.close()


def _read_to_end(connection: _Connection) -> bytes:
    out = io.BytesIO()
    sock = connection.conn
    while chunk := sock.recv(256 * 1024):
        out.write(chunk)
    return out.getvalue()


def _read_shell_v2(connection: _Connection, command: str) -> ShellOutput:
    stdout, stderr = io.BytesIO(), io.BytesIO()
    while True:
        header = connection.read_exact(5)
        kind, size = header[0], struct.unpack("<I", header[1:])[0]
        data = connection.read_exact(size) if size else b""
        if kind == 1:
            stdout.write(data)
        elif kind == 2:
            stderr.write(data)
        elif kind == 3:
            return ShellOutput(command, data[0] if data else 255, stdout.getvalue(), stderr.getvalue())
