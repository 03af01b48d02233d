"""A persistent profile's lock (sessions/profile_lock.py): our flock, held per session
and told apart within one process, and the browsers' own lock links read as a live
owner or a stale one."""

from __future__ import annotations

import os
import socket
import subprocess
from pathlib import Path

import pytest

from browx_actors.errors import ToolError
from browx_actors.sessions.profile_lock import hold_profile, lock_owner


def test_the_browsers_lock_links_name_their_owner() -> None:
    assert lock_owner("buildhost-1234", "buildhost") == 1234
    assert lock_owner("my-build-host-77", "my-build-host") == 77
    assert lock_owner("otherhost-1234", "buildhost") is None  # another machine's: not ours to judge
    assert lock_owner("127.0.1.1:+4321", "buildhost") == 4321  # Firefox's
    assert lock_owner("garbage", "buildhost") is None


def test_a_second_holder_is_refused_until_the_first_lets_go(tmp_path: Path) -> None:
    with hold_profile(tmp_path, "p"):
        with pytest.raises(ToolError) as refused, hold_profile(tmp_path, "p"):
            pass
        assert refused.value.code == "bad-arg" and refused.value.details["field"] == "userDataDir"
        assert "in use by another session" in refused.value.message
    with hold_profile(tmp_path, "p"):
        pass


def test_a_live_browsers_lock_refuses_and_a_stale_one_does_not(tmp_path: Path) -> None:
    sleeper = subprocess.Popen(["sleep", "30"])
    try:
        os.symlink(f"{socket.gethostname()}-{sleeper.pid}", tmp_path / "SingletonLock")
        with pytest.raises(ToolError) as refused, hold_profile(tmp_path, "p"):
            pass
        assert f"pid {sleeper.pid}" in refused.value.message
    finally:
        sleeper.kill()
        sleeper.wait()
    with hold_profile(tmp_path, "p"):  # its process is gone: the browser takes a stale lock over
        pass
