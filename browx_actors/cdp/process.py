"""A browser process that dies with the server, however the server dies.

On exit the launcher kills Chromium's whole process family itself, but that code never
runs when the server is SIGKILLed or crashes hard. So the browser is started with
Linux's parent-death signal: ``prctl(PR_SET_PDEATHSIG, SIGKILL)`` in the child between
``fork`` and ``exec`` (a ``preexec_fn`` calling libc through ctypes, resolved in the
parent so the child only makes one call), and the kernel kills the browser the moment
its parent goes. Chromium's other processes follow their browser on their own: the
zygotes, renderers, GPU and utility processes each watch the IPC channel to it and
exit when it closes; the launcher's sweep (``profiles.py``) takes whatever is left of a
browser whose server died (a profile folder, a stray crashpad handler).

The parent-death signal is tied to the *thread* that forked, not the process: Trio's
``open_process`` forks in a worker thread, and a worker thread idle for 10 s exits,
which would kill the browser with it. So :func:`spawn_bound` forks on the calling
thread (the Trio thread, which lives as long as the runtime) and waits for the child
with a pidfd, which Trio watches like any other file descriptor.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import subprocess
import sys
from collections.abc import Callable, Sequence
from typing import Any

import trio

__all__ = ["BoundProcess", "spawn_bound"]

_PR_SET_PDEATHSIG = 1


def _die_with_parent() -> Callable[[], None] | None:
    """A ``preexec_fn`` that makes the child SIGKILLed when its parent thread ends."""
    if not sys.platform.startswith("linux"):
        return None
    libc = ctypes.CDLL(None, use_errno=True)
    prctl = libc.prctl
    prctl.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong]
    prctl.restype = ctypes.c_int
    parent = os.getpid()

    def preexec() -> None:
        prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        if os.getppid() != parent:  # the parent died before the signal was armed
            os._exit(1)

    return preexec


class BoundProcess:
    """The slice of :class:`trio.Process` the launcher uses: ``pid``, ``returncode``,
    an awaitable :meth:`wait` and :meth:`kill`."""

    def __init__(self, popen: subprocess.Popen[bytes]) -> None:
        self._popen = popen
        self.pid = popen.pid
        self._pidfd: int | None = None
        with contextlib.suppress(AttributeError, OSError):  # no pidfd: poll instead
            self._pidfd = os.pidfd_open(popen.pid)

    @property
    def returncode(self) -> int | None:
        return self._popen.poll()

    async def wait(self) -> int:
        """Wait for the process to exit (reaping it); its returncode (-N: signal N)."""
        while self._popen.poll() is None:
            if self._pidfd is not None:
                await trio.lowlevel.wait_readable(self._pidfd)
            else:
                await trio.sleep(0.05)
        self._close_pidfd()
        return self._popen.returncode

    def kill(self) -> None:
        with contextlib.suppress(ProcessLookupError):
            self._popen.kill()

    def _close_pidfd(self) -> None:
        if self._pidfd is not None:
            fd, self._pidfd = self._pidfd, None
            with contextlib.suppress(OSError):
                trio.lowlevel.notify_closing(fd)
            os.close(fd)

    def __del__(self) -> None:
        if self._pidfd is not None:
            with contextlib.suppress(OSError):
                os.close(self._pidfd)


# Any: the options are subprocess.Popen's, passed on as they are.
def spawn_bound(command: Sequence[str], **options: Any) -> BoundProcess:
    """Start ``command`` on this thread, SIGKILLed by the kernel if the server dies
    (see the module notes); ``options`` go to :class:`subprocess.Popen`."""
    preexec = _die_with_parent()
    popen = subprocess.Popen(list(command), preexec_fn=preexec, **options)
    return BoundProcess(popen)
