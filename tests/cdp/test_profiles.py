"""Browser profiles of dead servers are swept; a live server's never are. And a browser
started by :func:`spawn_bound` dies with the process that started it, even SIGKILLed.

The sweep runs on a temporary folder of the test's own, so it never meets the profiles
of other servers on this machine.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import trio

from browx_actors.cdp.profiles import OWNER_FILE, PREFIX, UNOWNED_GRACE, make_profile, owner_alive, sweep_stale_profiles
from e2e_support import process_alive, wait_until_gone, worktree_pythonpath

_HOLD = "import sys, time; time.sleep(60)"


def _profile(root: Path, name: str, owner: dict[str, object] | None, age: float = 0) -> Path:
    path = root / f"{PREFIX}{name}"
    path.mkdir()
    (path / "Default").mkdir()
    if owner is not None:
        (path / OWNER_FILE).write_text(json.dumps(owner))
    stamp = time.time() - age
    os.utime(path, (stamp, stamp))
    return path


def _finished_pid() -> int:
    done = subprocess.Popen([sys.executable, "-c", "pass"])
    done.wait()
    return done.pid


async def test_only_dead_owners_profiles_are_swept_with_what_still_uses_them(tmp_path: Path) -> None:
    mine = make_profile(str(tmp_path))
    assert owner_alive(mine) is True
    dead = _profile(tmp_path, "dead", {"pid": _finished_pid(), "start": 1})
    reused = _profile(tmp_path, "reused", {"pid": os.getpid(), "start": 1})  # our pid, another start: reused
    unowned_old = _profile(tmp_path, "old", None, age=UNOWNED_GRACE + 60)
    unowned_new = _profile(tmp_path, "new", None)
    unowned_used = _profile(tmp_path, "used", None, age=UNOWNED_GRACE + 60)
    survivor = subprocess.Popen([sys.executable, "-c", _HOLD, f"--user-data-dir={dead}"])
    holder = subprocess.Popen([sys.executable, "-c", _HOLD, f"--user-data-dir={unowned_used}"])
    try:
        removed = await trio.to_thread.run_sync(sweep_stale_profiles, str(tmp_path))
        assert sorted(p.name for p in removed) == sorted(p.name for p in (dead, reused, unowned_old))
        assert mine.exists() and unowned_new.exists() and unowned_used.exists()
        # What outlived its server is killed, and gone (a zombie: we reap our children,
        # the sweep cannot) by the time the sweep returns: it waits for what it kills.
        assert not process_alive(survivor.pid)
        assert process_alive(holder.pid)  # a profile in use without an owner is left alone
    finally:
        for child in (survivor, holder):
            child.kill()
            child.wait()


_SPAWNER = """
import sys, trio
from browx_actors.cdp.process import spawn_bound

async def main():
    child = spawn_bound([sys.executable, "-c", "import time; time.sleep(60)"])
    print(child.pid, flush=True)
    await trio.to_thread.run_sync(lambda: None)  # a worker thread comes and goes: no matter
    await trio.sleep_forever()

trio.run(main)
"""


async def test_a_bound_child_dies_when_its_parent_is_sigkilled() -> None:
    parent = subprocess.Popen([sys.executable, "-c", _SPAWNER], stdout=subprocess.PIPE, text=True,
                              env={**os.environ, "PYTHONPATH": worktree_pythonpath()})
    assert parent.stdout is not None
    child = int(parent.stdout.readline())
    assert process_alive(child)
    os.kill(parent.pid, signal.SIGKILL)
    parent.wait()
    assert await wait_until_gone([child], 5) == []
