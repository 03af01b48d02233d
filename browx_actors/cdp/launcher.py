"""Start Debian's headless Chromium with a CDP endpoint, or find an existing one.

Chromium is a family of processes: the browser, two zygotes, GPU and utility
processes, renderers, and crashpad handlers that double-fork into sessions of their
own. Stopping the browser process alone leaves children dying on their own schedule,
so :func:`launch_chromium` starts it in a new session (its pid is the process group
id), and on exit SIGKILLs the whole group and any stray process whose command line
names our private profile directory (the crashpad handlers), and waits until none is
left. There is no graceful quit first: the profile is thrown away, so there is nothing
for Chromium to save, and on a busy page a graceful quit took seconds (a client gives a
server 2 s after closing its stdin before it kills it). The exit path is shielded: a
cancelled owner still leaves no browser behind.

If the server dies without running that path (SIGKILL, a hard crash), the kernel kills
the browser (``process.py``: the parent-death signal), its other processes follow it,
and the next launch sweeps the profile and anything left using it (``profiles.py``).

The profile lives in a private temporary directory, removed on exit. ``XDG_CONFIG_HOME``
and ``XDG_CACHE_HOME`` point inside it too, so crash reports and caches never land
in the user's home.

Chromium picks its own debugging port (``--remote-debugging-port=0``) and writes
``<user-data-dir>/DevToolsActivePort`` (port, then the browser websocket path); we
poll for that file rather than parse stderr.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
from collections.abc import AsyncIterator, Iterable, Sequence
from contextlib import asynccontextmanager
from pathlib import Path

import attrs
import trio

from .process import BoundProcess, spawn_bound
from .profiles import make_profile, sweep_stale_profiles

__all__ = [
    "CHROMIUM_FLAGS",
    "ChromiumError",
    "ChromiumNotFound",
    "ChromiumProcess",
    "ChromiumStartupError",
    "chromium_command",
    "find_chromium",
    "launch_chromium",
    "log_tail",
    "parse_devtools_active_port",
    "stop_family",
]

CHROMIUM_FLAGS: tuple[str, ...] = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    "--no-default-browser-check",
    # Without these the browser floods a closed network with connection attempts.
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    # Playwright waits for load events a page restored from the back-forward cache
    # never fires again; without this, go_back across documents can hang.
    "--disable-back-forward-cache",
    "--disable-default-apps",
    "--disable-breakpad",
    # Not --disable-crashpad-for-testing, though crashpad handlers are the one part of
    # the family outside its process group: with it, Chromium 156 aborts every page
    # load (net::ERR_ABORTED). The stray sweep below finds the handlers by profile.
    # Containers give /dev/shm 64 MB; Chromium then crashes renderers under load.
    "--disable-dev-shm-usage",
    # Pages in background targets must keep running timers and painting frames.
    "--disable-background-timer-throttling",
    "--disable-backgrounding-occluded-windows",
    "--disable-renderer-backgrounding",
    # A horizontal touch swipe over content that does not take the pan would navigate
    # the tab back or forward (desktop overscroll navigation): never what a gesture means.
    "--disable-features=OverscrollHistoryNavigation",
    "--mute-audio",
    "--hide-scrollbars",
    "--password-store=basic",
    "--use-mock-keychain",
    "--remote-debugging-port=0",
    "about:blank",
)
"""Flags for an automation browser. ``--headless`` is left out when ``headless=False``;
the trailing ``about:blank`` is the start page (Chromium reads switches anywhere on
its command line, so ``extra_args`` may follow it)."""

DEVTOOLS_ACTIVE_PORT = "DevToolsActivePort"
LOG_NAME = "browx-chromium.log"

_POLL_INTERVAL = 0.02
_KILL_WAIT = 2.0
_STDERR_TAIL = 2000


class ChromiumError(Exception):
    """Base for failures to find or start Chromium."""


class ChromiumNotFound(ChromiumError):
    pass


class ChromiumStartupError(ChromiumError):
    pass


@attrs.frozen
class ChromiumProcess:
    """A running Chromium and its browser-level CDP endpoint."""

    pid: int
    ws_url: str
    port: int
    user_data_dir: Path
    executable: str
    process: BoundProcess = attrs.field(repr=False)

    @property
    def http_url(self) -> str:
        """The DevTools HTTP base (``/json/version``, ``/json/list``)."""
        return f"http://127.0.0.1:{self.port}"

    async def wait_exit(self) -> int:
        """Wait for the browser process to exit and return its returncode (-N: signal N)."""
        return await self.process.wait()


def find_chromium(explicit: str | os.PathLike[str] | None = None) -> str:
    """The browser executable: ``explicit``, else ``$BROWX_CHROMIUM``, else ``chromium``.

    A named executable that does not exist is an error, not a reason to fall back:
    the user asked for that one.
    """
    for source, candidate in (
        ("the explicit executable", explicit),
        ("BROWX_CHROMIUM", os.environ.get("BROWX_CHROMIUM")),
    ):
        if candidate:
            found = shutil.which(os.fspath(candidate))
            if found is None:
                raise ChromiumNotFound(
                    f"{source} {os.fspath(candidate)!r} is not an executable file. Install "
                    "Debian's chromium (`apt-get install chromium`) or point BROWX_CHROMIUM "
                    "at a Chromium executable."
                )
            return found
    found = shutil.which("chromium")
    if found is None:
        raise ChromiumNotFound(
            "Chromium was not found: there is no `chromium` on PATH and BROWX_CHROMIUM is "
            "not set. Install Debian's chromium (`apt-get install chromium`) or set "
            "BROWX_CHROMIUM to the browser executable."
        )
    return found


def chromium_command(
    executable: str,
    user_data_dir: str | os.PathLike[str],
    *,
    headless: bool = True,
    extra_args: Iterable[str] = (),
) -> list[str]:
    flags = [f for f in CHROMIUM_FLAGS if headless or f != "--headless"]
    return [executable, *flags, f"--user-data-dir={os.fspath(user_data_dir)}", *extra_args]


def parse_devtools_active_port(text: str) -> tuple[int, str] | None:
    """``(port, browser websocket path)`` from DevToolsActivePort, or ``None`` if the
    file is not complete yet."""
    lines = text.splitlines()
    if len(lines) < 2:
        return None
    port_text, path = lines[0].strip(), lines[1].strip()
    if not port_text.isdigit() or not path.startswith("/"):
        return None
    port = int(port_text)
    if not 0 < port < 65536:
        return None
    return port, path


def _read_endpoint(user_data_dir: Path) -> tuple[int, str] | None:
    try:
        text = (user_data_dir / DEVTOOLS_ACTIVE_PORT).read_text()
    except (FileNotFoundError, UnicodeDecodeError):
        return None
    return parse_devtools_active_port(text)


def log_tail(log_path: Path) -> str:
    try:
        with open(log_path, "rb") as log:
            log.seek(0, os.SEEK_END)
            size = log.tell()
            log.seek(max(0, size - _STDERR_TAIL))
            tail = log.read().decode("utf-8", "replace").strip()
    except OSError:
        return "(no stderr captured)"
    return tail or "(stderr was empty)"


def _child_env(user_data_dir: Path) -> dict[str, str]:
    env = dict(os.environ)
    env["XDG_CONFIG_HOME"] = str(user_data_dir / ".config")
    env["XDG_CACHE_HOME"] = str(user_data_dir / ".cache")
    return env


async def _await_endpoint(
    process: BoundProcess, user_data_dir: Path, executable: str, startup_timeout: float
) -> tuple[int, str]:
    log_path = user_data_dir / LOG_NAME
    with trio.move_on_after(startup_timeout):
        while True:
            endpoint = _read_endpoint(user_data_dir)
            if endpoint is not None:
                return endpoint
            returncode = process.returncode
            if returncode is not None:
                raise ChromiumStartupError(
                    f"Chromium ({executable}) exited with code {returncode} before it "
                    f"opened its DevTools endpoint. Last stderr:\n{log_tail(log_path)}"
                )
            await trio.sleep(_POLL_INTERVAL)
    raise ChromiumStartupError(
        f"Chromium ({executable}) did not write {DEVTOOLS_ACTIVE_PORT} within "
        f"{startup_timeout:g} s. Last stderr:\n{log_tail(log_path)}"
    )


# -- stopping: the whole family, not just the browser process ---------------------------


def _live_members(pgid: int, marker: bytes) -> list[int]:
    """Live (non-zombie) processes in group ``pgid`` or whose command line has ``marker``.

    Linux only (``/proc``); elsewhere the process-group kill is all we can do.
    """
    members: list[int] = []
    me = os.getpid()
    try:
        entries = os.listdir("/proc")
    except OSError:
        return members
    for entry in entries:
        if not entry.isdigit() or int(entry) == me:
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as f:
                fields = f.read().rsplit(b")", 1)[1].split()
            state, pgrp = fields[0], int(fields[2])
            if state in (b"Z", b"X"):
                continue
            if pgrp == pgid:
                members.append(int(entry))
                continue
            with open(f"/proc/{entry}/cmdline", "rb") as f:
                if marker in f.read():
                    members.append(int(entry))
        except (OSError, IndexError, ValueError):
            continue
    return members


def _kill(pid: int, sig: int, *, group: bool = False) -> None:
    try:
        if group:
            os.killpg(pid, sig)
        else:
            os.kill(pid, sig)
    except (ProcessLookupError, PermissionError):
        pass


async def stop_family(process: BoundProcess, user_data_dir: Path) -> None:
    """Make sure every process of this browser is gone (no graceful quit: see the
    module notes)."""
    pgid = process.pid
    marker = os.fsencode(str(user_data_dir))
    _kill(pgid, signal.SIGKILL, group=True)
    with trio.move_on_after(_KILL_WAIT):
        await process.wait()
        while True:
            # Scanning /proc takes tens of milliseconds on a busy host: not on the loop.
            stray = await trio.to_thread.run_sync(_live_members, pgid, marker)
            if not stray:
                break
            _kill(pgid, signal.SIGKILL, group=True)
            for pid in stray:
                _kill(pid, signal.SIGKILL)
            await trio.sleep(0.02)
    await process.wait()


@asynccontextmanager
async def launch_chromium(
    executable: str | os.PathLike[str] | None = None,
    *,
    headless: bool = True,
    extra_args: Sequence[str] = (),
    startup_timeout: float = 30.0,
) -> AsyncIterator[ChromiumProcess]:
    """Run a private Chromium for the duration of the block.

    Raises :class:`ChromiumNotFound` if there is no browser to run and
    :class:`ChromiumStartupError` (with the tail of its stderr) if it exits or stays
    silent before writing its DevTools endpoint.
    """
    path = find_chromium(executable)
    await trio.to_thread.run_sync(sweep_stale_profiles)
    user_data_dir = make_profile()
    try:
        command = chromium_command(
            path, user_data_dir, headless=headless, extra_args=extra_args
        )
        # A new file in the profile folder we just made: opening it does not block.
        with open(user_data_dir / LOG_NAME, "wb") as log:  # noqa: ASYNC230
            try:
                # On this (the Trio) thread, so the parent-death signal is tied to it.
                process = spawn_bound(
                    command,
                    stdin=subprocess.DEVNULL,
                    stdout=log,
                    stderr=log,
                    start_new_session=True,
                    env=_child_env(user_data_dir),
                )
            except OSError as exc:
                raise ChromiumStartupError(f"could not start {path}: {exc}") from exc
        try:
            port, ws_path = await _await_endpoint(process, user_data_dir, path, startup_timeout)
            yield ChromiumProcess(
                pid=process.pid,
                ws_url=f"ws://127.0.0.1:{port}{ws_path}",
                port=port,
                user_data_dir=user_data_dir,
                executable=path,
                process=process,
            )
        finally:
            with trio.CancelScope(shield=True):
                await stop_family(process, user_data_dir)
    finally:
        with trio.CancelScope(shield=True):
            await trio.to_thread.run_sync(shutil.rmtree, user_data_dir, True)
