"""One user at a time for a persistent profile (open_session's ``userDataDir``).

Two browsers on one profile corrupt it, and Chromium's answer to a second one is to
hand the URL to the first and exit, which a session would see as a browser that never
started. So a session takes the profile before its browser starts, and a second one
is refused at once, naming ``userDataDir`` (:func:`hold_profile`):

* our own lock: ``flock`` on :data:`LOCK_FILE` in the folder, held for the session's
  life. The kernel drops it when the holder's file closes, so a server that was
  killed leaves nothing to clean up, and it tells apart two sessions of one server
  (each opens the file anew) as well as two servers;
* the browser's own: a profile a browser we did not start is running on (the user's
  Chrome, a Firefox) shows its lock link, ``SingletonLock`` (Chromium's,
  ``host-pid``) or ``lock`` (Firefox's, ``address:+pid``). One naming this host and a
  live process means in use; a stale one (its process gone) is the browser's to take
  over, as it does. :func:`lock_owner` reads a link's text (pure).
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import socket
from collections.abc import Iterator
from pathlib import Path

from ..errors import ToolError

__all__ = ["BROWSER_LOCKS", "LOCK_FILE", "hold_profile", "lock_owner"]

LOCK_FILE = "browx-profile.lock"
#: The lock links Chromium and Firefox keep in a profile they run on.
BROWSER_LOCKS = ("SingletonLock", "lock")
_FIELD = "userDataDir"


def lock_owner(link: str, hostname: str) -> int | None:
    """The pid a browser's lock link names, if it names this host: Chromium's
    ``host-pid``, Firefox's ``address:+pid`` (its address is this machine's, any host)."""
    head, sep, pid = link.rpartition(":+")
    if sep and pid.isdigit():
        return int(pid)
    head, sep, pid = link.rpartition("-")
    if sep and pid.isdigit() and head == hostname:
        return int(pid)
    return None


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # someone else's: alive
    return not _zombie(pid)


def _zombie(pid: int) -> bool:
    """A browser that was killed and not yet reaped by its parent still has its pid, but
    holds nothing: its profile is free (Linux's ``/proc``; elsewhere, never a zombie)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rpartition(")")[2].split()[:1] == ["Z"]


def _in_use(relative: str, by: str) -> ToolError:
    return ToolError("bad-arg", f"userDataDir: the profile {relative!r} is in use by {by}; close that session "
                     "or pick another folder", field=_FIELD, inUse=True)


@contextlib.contextmanager
def hold_profile(folder: Path, relative: str) -> Iterator[None]:
    """Hold ``folder`` for one session for the block; ``bad-arg`` naming userDataDir
    at once when another session, or a browser we did not start, has it."""
    descriptor = os.open(folder / LOCK_FILE, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
    try:
        try:
            fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise _in_use(relative, "another session (of this server or another)") from None
        for name in BROWSER_LOCKS:
            with contextlib.suppress(OSError):
                pid = lock_owner(os.readlink(folder / name), socket.gethostname())
                if pid is not None and _alive(pid):
                    raise _in_use(relative, f"a browser this server did not start (pid {pid})")
        yield
    finally:
        os.close(descriptor)
