"""Booting and stopping Android emulators: ``device_boot`` and ``device_shutdown``.

Boot: ``emulator -avd NAME -port P -no-snapshot-save`` (plus ``-no-window -no-audio
-no-boot-anim`` headless), started in its own session so it outlives this server (a
session leases a device, it does not own it), with ``ANDROID_ADB_SERVER_PORT`` set so
it announces itself to the configured adb server (``host:emulator:P``). An adb
connection alone is not a usable device (``adb wait-for-device`` returns about a minute
before the launcher exists), so :func:`wait_until_usable` waits for three things in
turn: the serial listed as ``device``, ``sys.boot_completed`` = 1, and a package
manager that answers ``pm path android``. The console port ``P`` is chosen free (even,
5554-5682, with its adb port P+1), which fixes the serial, ``emulator-P``.

Stop: ``adb emu kill`` never goes through the adb server; it talks to the emulator's
console, ``127.0.0.1:P`` (on the adb server's host), authenticates with
``~/.emulator_console_auth_token`` when the console asks, and sends ``kill``. A physical
device is refused: browx does not power off the operator's phone.
"""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import threading
from collections.abc import Awaitable, Callable
from pathlib import Path

import attrs
import trio

from ..errors import ToolError
from .adb import AdbServer
from .adb_output import emulator_console_port

__all__ = [
    "BootProgress", "boot_command", "console_kill", "free_console_port", "spawn_emulator", "wait_until_usable",
]

FIRST_CONSOLE_PORT, LAST_CONSOLE_PORT = 5554, 5682


@attrs.frozen
class BootProgress:
    """Where a boot is: ``absent`` (not listed yet), adb's state (``offline``...),
    ``booting`` (sys.boot_completed not 1), ``starting-services`` (no package manager
    yet) or ``ready``."""

    stage: str

    @property
    def ready(self) -> bool:
        return self.stage == "ready"


def boot_command(emulator: str, avd: str, port: int, *, headless: bool) -> list[str]:
    argv = [emulator, "-avd", avd, "-port", str(port), "-no-snapshot-save"]
    if headless:
        argv += ["-no-window", "-no-audio", "-no-boot-anim"]
    return argv


def _bindable(port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        try:
            probe.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def free_console_port(listed_serials: set[str]) -> int:
    """An even console port whose serial adb does not list and whose ports are free."""
    for port in range(FIRST_CONSOLE_PORT, LAST_CONSOLE_PORT + 1, 2):
        if f"emulator-{port}" not in listed_serials and _bindable(port) and _bindable(port + 1):
            return port
    raise ToolError("unavailable", f"every emulator console port from {FIRST_CONSOLE_PORT} to {LAST_CONSOLE_PORT} "
                    "is taken", component="emulator")


@attrs.define
class Spawned:
    process: subprocess.Popen[bytes]
    log: Path

    def alive(self) -> bool:
        return self.process.poll() is None

    def log_tail(self, size: int = 600) -> str:
        try:
            data = self.log.read_bytes()[-size:]
        except OSError:
            return ""
        return " ".join(data.decode("utf-8", "replace").split())


async def spawn_emulator(argv: list[str], *, adb_port: int, log: Path) -> Spawned:
    """Start the emulator detached, logging to ``log``; a thread reaps it when it exits."""
    def start() -> Spawned:
        log.parent.mkdir(parents=True, exist_ok=True)
        with log.open("wb") as out:
            process = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT,
                                       env={**os.environ, "ANDROID_ADB_SERVER_PORT": str(adb_port)},
                                       start_new_session=True)
        threading.Thread(target=process.wait, name=f"reap-{argv[0]}", daemon=True).start()
        return Spawned(process, log)

    try:
        return await trio.to_thread.run_sync(start)
    except OSError as error:
        raise ToolError("start-failed", f"the emulator could not start: {error}") from None


async def probe_boot(server: AdbServer, serial: str, *, timeout: float) -> BootProgress:
    """One look at how far the emulator ``serial`` has booted."""
    listed = {entry.serial: entry.state for entry in await server.devices(timeout=timeout)}
    state = listed.get(serial)
    if state is None:
        return BootProgress("absent")
    if state != "device":
        return BootProgress(state)
    device = server.device(serial)
    booted = await device.shell("getprop sys.boot_completed", timeout=timeout)
    if booted.out.strip() != "1":
        return BootProgress("booting")
    package_manager = await device.shell("pm path android", timeout=timeout)
    if package_manager.exit_code != 0 or "package:" not in package_manager.out:
        return BootProgress("starting-services")
    return BootProgress("ready")


async def wait_until_usable(
    probe: Callable[[], Awaitable[BootProgress]],
    alive: Callable[[], bool],
    *,
    timeout: float,
    interval: float = 1.0,
    describe_exit: Callable[[], str] = lambda: "",
) -> float:
    """Poll ``probe`` every ``interval`` seconds until it is ready; the seconds it took.

    Fails with ``start-failed`` when the emulator process exits first (its log tail in
    the message) and ``timeout`` naming the last stage reached.
    """
    started = trio.current_time()
    progress = BootProgress("absent")
    with trio.move_on_after(timeout):
        while True:
            with contextlib.suppress(ToolError):  # a device mid-boot refuses commands now and then
                progress = await probe()
            if progress.ready:
                return trio.current_time() - started
            if not alive():
                raise ToolError("start-failed", f"the emulator exited before it finished booting (last stage: "
                                f"{progress.stage}). {describe_exit()}".strip())
            await trio.sleep(interval)
    raise ToolError("timeout", f"the emulator was not usable within {timeout:g} s (last stage: {progress.stage}); "
                    "a cold boot takes 30-90 s, more without hardware acceleration")


async def console_kill(host: str, serial: str, *, token_file: Path, timeout: float = 10.0) -> str:
    """``adb emu kill``: authenticate on the emulator's console and send ``kill``; its answer."""
    port = emulator_console_port(serial)
    assert port is not None, "only emulators have a console"
    try:
        with trio.fail_after(timeout):
            stream = await trio.open_tcp_stream(host, port)
            async with stream:
                reader = _Lines(stream)
                banner = await reader.until_ok()
                if "Authentication required" in banner:
                    try:
                        token = (await trio.to_thread.run_sync(token_file.read_text)).strip()
                    except OSError:
                        raise ToolError("adb-failed", f"the console of {serial} asks for its auth token and "
                                        f"{token_file} cannot be read", exitCode=None) from None
                    await stream.send_all(f"auth {token}\n".encode())
                    said = await reader.until_ok()
                    if said.startswith("KO"):
                        raise ToolError("adb-failed", f"the console of {serial} refused the auth token: {said}",
                                        exitCode=None)
                await stream.send_all(b"kill\n")
                return await reader.line() or "OK"
    except trio.TooSlowError:
        raise ToolError("timeout", f"the console of {serial} ({host}:{port}) did not answer in time") from None
    except OSError as error:
        raise ToolError("adb-failed", f"cannot reach the console of {serial} at {host}:{port}: {error}",
                        exitCode=None) from None


class _Lines:
    """Lines off the console stream (it ends them with CR LF)."""

    def __init__(self, stream: trio.abc.Stream) -> None:
        self.stream = stream
        self.buffer = b""

    async def line(self) -> str | None:
        """The next line; None once the console has closed and nothing is left."""
        while b"\n" not in self.buffer:
            chunk = await self.stream.receive_some(4096)
            if not chunk:
                rest, self.buffer = self.buffer, b""
                return rest.decode("utf-8", "replace").strip() or None
            self.buffer += chunk
        raw, _, self.buffer = self.buffer.partition(b"\n")
        return raw.decode("utf-8", "replace").strip()

    async def until_ok(self) -> str:
        """Everything up to and including the next ``OK`` or ``KO...`` line (or the end)."""
        seen: list[str] = []
        while (line := await self.line()) is not None:
            seen.append(line)
            if line == "OK" or line.startswith("KO"):
                break
        return "\n".join(seen)
