"""Private browser profiles in the temporary folder, and the sweep of dead servers' ones.

Each launch makes ``$TMPDIR/browx-chromium-<random>`` and removes it on exit. A server that
is SIGKILLed never gets to, so its profile stays behind (tens of megabytes each). The
profile therefore records its owner (:data:`OWNER_FILE`: the server's pid and the
kernel's start time of that pid, which tells a reused pid from the original), and every
launch first sweeps the profiles whose owner is gone (:func:`sweep_stale_profiles`):
any process still running from one (a browser that outlived its server, a crashpad
handler) is killed, and once they are gone (:func:`_kill_users`) the folder is
removed. A profile whose owner is alive is never touched, so servers sharing a
temporary folder leave each other alone; one
without an owner file (from an older version, or a launch caught between making the
folder and writing the file) is swept only once it has not changed for
:data:`UNOWNED_GRACE` seconds and no process uses it.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import shutil
import signal
import tempfile
import time
from pathlib import Path

__all__ = ["OWNER_FILE", "PREFIX", "UNOWNED_GRACE", "make_profile", "owner_alive", "sweep_stale_profiles"]

log = logging.getLogger("browx_actors.cdp")

PREFIX = "browx-chromium-"
OWNER_FILE = "browx-owner.json"
UNOWNED_GRACE = 60.0
#: How long the sweep waits for the processes it killed to be gone. SIGKILL is only
#: queued: a process takes a moment to leave (longer on a loaded host), can still
#: finish a write into the folder being removed meanwhile, and a dying browser's zygote
#: can fork one more renderer, which a single scan would miss.
KILL_WAIT = 5.0


def _start_time(pid: int) -> int | None:
    """The kernel's start time of ``pid`` (clock ticks since boot), or None if it is gone."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            fields = stat.read().rsplit(b")", 1)[1].split()
    except (OSError, IndexError):
        return None
    if fields[0] in (b"Z", b"X"):
        return None
    return int(fields[19])  # field 22 of stat; fields[0] is field 3


def make_profile(directory: str | None = None, *, prefix: str = PREFIX) -> Path:
    """A new private profile folder owned by this process (``prefix``: whose browser)."""
    path = Path(tempfile.mkdtemp(prefix=prefix, dir=directory))
    owner = {"pid": os.getpid(), "start": _start_time(os.getpid())}
    (path / OWNER_FILE).write_text(json.dumps(owner))
    return path


def owner_alive(profile: Path) -> bool | None:
    """Whether the server that made ``profile`` still runs (None: no owner recorded)."""
    try:
        owner = json.loads((profile / OWNER_FILE).read_text())
        pid, start = int(owner["pid"]), owner.get("start")
    except FileNotFoundError:
        return None
    except (OSError, ValueError, KeyError, TypeError):
        return False  # an owner file nobody could have written whole: a dead launch
    now = _start_time(pid)
    return now is not None and (start is None or now == start)


def _users(profile: Path) -> list[int]:
    """Live processes whose command line names ``profile``."""
    marker = os.fsencode(str(profile))
    found = []
    with contextlib.suppress(OSError):
        for entry in os.listdir("/proc"):
            if not entry.isdigit() or int(entry) == os.getpid():
                continue
            try:
                with open(f"/proc/{entry}/cmdline", "rb") as cmdline:
                    if marker in cmdline.read() and _start_time(int(entry)) is not None:
                        found.append(int(entry))
            except OSError:
                continue
    return found


def _kill_users(profile: Path) -> list[int]:
    """SIGKILL every process that uses ``profile``, and any it started meanwhile, until
    none is left (a zombie is gone: its parent reaps it, not us) or :data:`KILL_WAIT`
    has passed; those still running then."""
    deadline = time.monotonic() + KILL_WAIT
    while True:
        users = _users(profile)
        if not users or time.monotonic() >= deadline:
            return users
        for pid in users:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)
        time.sleep(0.02)


def sweep_stale_profiles(directory: str | None = None, *, now: float | None = None,
                         prefix: str = PREFIX) -> list[Path]:
    """Remove the profiles of servers that are gone (see the module notes), of the
    browser ``prefix`` names; the ones removed. Blocking: run it in a worker thread."""
    root = Path(directory or tempfile.gettempdir())
    now = time.time() if now is None else now
    removed: list[Path] = []
    try:
        candidates = sorted(p for p in root.glob(prefix + "*") if p.is_dir() and not p.is_symlink())
    except OSError:
        return removed
    for profile in candidates:
        alive = owner_alive(profile)
        if alive:
            continue
        if alive is None:
            try:
                idle = now - profile.stat().st_mtime
            except OSError:
                continue
            if idle < UNOWNED_GRACE or _users(profile):
                continue
        left = _kill_users(profile)
        if left:
            log.warning("processes %s of the stale browser profile %s were still running %g s after SIGKILL",
                        left, profile, KILL_WAIT)
        shutil.rmtree(profile, ignore_errors=True)
        if not profile.exists():
            removed.append(profile)
            log.info("removed the stale browser profile %s (its server is gone)", profile)
    return removed
