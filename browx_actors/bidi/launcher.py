"""Start Debian's Firefox headless with its WebDriver BiDi endpoint, in a private profile.

Firefox removed CDP; WebDriver BiDi is its automation protocol. ``--remote-debugging-port
0`` lets it pick a free port, which it writes to ``WebDriverBiDiServer.json`` in the
profile (``{"ws_host", "ws_port"}``); the launcher polls for that file, as the Chromium
launcher polls for ``DevToolsActivePort``, rather than parse stderr. The BiDi session
endpoint is ``ws://host:port/session``.

The process is started the way Chromium is (:func:`~browx_actors.cdp.process.spawn_bound`):
in a new session, with the parent-death signal, so a server that dies takes its
Firefox with it; and stopped the same way (:func:`~browx_actors.cdp.launcher.stop_family`:
the whole process group, content processes included, then anything still naming the
profile). The profile is a private temporary folder recording its owner, swept by the
next launch when its server is gone (:mod:`~browx_actors.cdp.profiles`).

``user.js`` keeps Firefox quiet on a machine with no network: no first-run pages, no
telemetry, no experiments, no update checks, and popups allowed (an agent's click that
opens a window must open it, as it does on chromium). The remote agent adds its own
recommended automation preferences on top.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import attrs
import trio

from ..cdp.launcher import log_tail, stop_family
from ..cdp.process import BoundProcess, spawn_bound
from ..cdp.profiles import make_profile, sweep_stale_profiles

__all__ = ["PREFS", "PROFILE_PREFIX", "FirefoxError", "FirefoxNotFound", "FirefoxProcess", "FirefoxStartupError",
           "find_firefox", "firefox_command", "launch_firefox", "parse_endpoint_file"]

PROFILE_PREFIX = "browx-firefox-"
ENDPOINT_FILE = "WebDriverBiDiServer.json"
LOG_NAME = "browx-firefox.log"
#: Executables tried in order when neither an explicit one nor ``BROWX_FIREFOX`` is given.
DEFAULT_EXECUTABLES = ("firefox-esr", "firefox")
_POLL_INTERVAL = 0.02

#: Preferences written to the profile's ``user.js`` (see the module notes).
PREFS: dict[str, bool | int | str] = {
    "remote.active-protocols": 1,  # WebDriver BiDi only
    "browser.shell.checkDefaultBrowser": False,
    "browser.startup.homepage_override.mstone": "ignore",
    "browser.aboutwelcome.enabled": False,
    "datareporting.policy.dataSubmissionEnabled": False,
    "datareporting.healthreport.uploadEnabled": False,
    "toolkit.telemetry.reportingpolicy.firstRun": False,
    "app.normandy.enabled": False,
    "app.update.disabledForTesting": True,
    "messaging-system.rsexperimentloader.enabled": False,
    "network.captive-portal-service.enabled": False,
    "network.connectivity-service.enabled": False,
    "browser.safebrowsing.malware.enabled": False,
    "browser.safebrowsing.phishing.enabled": False,
    "extensions.update.enabled": False,
    "dom.disable_open_during_load": False,
    "media.autoplay.default": 0,
}


class FirefoxError(Exception):
    """Base for failures to find or start Firefox."""


class FirefoxNotFound(FirefoxError):
    pass


class FirefoxStartupError(FirefoxError):
    pass


@attrs.frozen
class FirefoxProcess:
    """A running Firefox and its BiDi session endpoint."""

    pid: int
    ws_url: str
    profile: Path
    executable: str
    process: BoundProcess = attrs.field(repr=False)

    async def wait_exit(self) -> int:
        """Wait for the browser process to exit; its returncode (-N: signal N)."""
        return await self.process.wait()


def find_firefox(explicit: str | os.PathLike[str] | None = None) -> str:
    """The executable: ``explicit``, else ``$BROWX_FIREFOX``, else ``firefox-esr`` or
    ``firefox`` on PATH. A named one that does not exist is an error, not a reason to
    fall back: the user asked for that one."""
    named = (("the Firefox executable (--firefox-path or BROWX_FIREFOX)", explicit),
             ("BROWX_FIREFOX", os.environ.get("BROWX_FIREFOX")))
    for source, candidate in named:
        if candidate:
            found = shutil.which(os.fspath(candidate))
            if found is None:
                raise FirefoxNotFound(f"{source} {os.fspath(candidate)!r} is not an executable file. Install Debian's "
                                      "firefox-esr (`apt-get install firefox-esr`) or point BROWX_FIREFOX at Firefox.")
            return found
    for name in DEFAULT_EXECUTABLES:
        found = shutil.which(name)
        if found is not None:
            return found
    raise FirefoxNotFound("Firefox was not found: there is no firefox-esr or firefox on PATH and BROWX_FIREFOX is not "
                          "set. Install Debian's firefox-esr (`apt-get install firefox-esr`) or set BROWX_FIREFOX.")


def firefox_command(executable: str, profile: Path, *, headless: bool = True) -> list[str]:
    flags = ["--headless"] if headless else []
    return [executable, *flags, "--no-remote", "--profile", str(profile), "--remote-debugging-port", "0",
            "about:blank"]


def parse_endpoint_file(text: str) -> str | None:
    """The BiDi session URL from ``WebDriverBiDiServer.json``, or None while it is incomplete."""
    try:
        data = json.loads(text)
        host, port = data["ws_host"], int(data["ws_port"])
    except (ValueError, KeyError, TypeError):
        return None
    if not isinstance(host, str) or not 0 < port < 65536:
        return None
    return f"ws://{host}:{port}/session"


def _write_prefs(profile: Path) -> None:
    lines = [f"user_pref({json.dumps(name)}, {json.dumps(value)});\n" for name, value in PREFS.items()]
    (profile / "user.js").write_text("".join(lines))


def _child_env(profile: Path) -> dict[str, str]:
    env = dict(os.environ)
    env["MOZ_CRASHREPORTER_DISABLE"] = "1"
    env["XDG_CONFIG_HOME"] = str(profile / ".config")
    env["XDG_CACHE_HOME"] = str(profile / ".cache")
    return env


async def _await_endpoint(process: BoundProcess, profile: Path, executable: str, startup_timeout: float) -> str:
    with trio.move_on_after(startup_timeout):
        while True:
            try:
                url = parse_endpoint_file((profile / ENDPOINT_FILE).read_text())
            except (FileNotFoundError, UnicodeDecodeError):
                url = None
            if url is not None:
                return url
            if process.returncode is not None:
                raise FirefoxStartupError(f"Firefox ({executable}) exited with code {process.returncode} before it "
                                          f"opened its BiDi endpoint. Last stderr:\n{log_tail(profile / LOG_NAME)}")
            await trio.sleep(_POLL_INTERVAL)
    raise FirefoxStartupError(f"Firefox ({executable}) did not write {ENDPOINT_FILE} within {startup_timeout:g} s. "
                              f"Last stderr:\n{log_tail(profile / LOG_NAME)}")


@asynccontextmanager
async def launch_firefox(executable: str | os.PathLike[str] | None = None, *, headless: bool = True,
                         startup_timeout: float = 30.0, profile: Path | None = None) -> AsyncIterator[FirefoxProcess]:
    """Run a private Firefox for the duration of the block; on ``profile``, a folder the
    caller keeps (a persistent profile: neither swept nor removed), when given.

    Raises :class:`FirefoxNotFound` when there is none to run and
    :class:`FirefoxStartupError` (with the tail of its stderr) when it exits or stays
    silent before it opens its endpoint.
    """
    path = find_firefox(executable)
    kept = profile is not None
    if profile is None:
        await trio.to_thread.run_sync(lambda: sweep_stale_profiles(prefix=PROFILE_PREFIX))
        profile = make_profile(prefix=PROFILE_PREFIX)
    else:
        (profile / ENDPOINT_FILE).unlink(missing_ok=True)  # a past run's port is no answer
    try:
        _write_prefs(profile)
        # A new file in the profile folder just made: opening it does not block.
        with open(profile / LOG_NAME, "wb") as log:  # noqa: ASYNC230
            try:
                # On this (the Trio) thread, so the parent-death signal is tied to it.
                process = spawn_bound(firefox_command(path, profile, headless=headless), stdin=subprocess.DEVNULL,
                                      stdout=log, stderr=log, start_new_session=True, env=_child_env(profile))
            except OSError as exc:
                raise FirefoxStartupError(f"could not start {path}: {exc}") from exc
        try:
            url = await _await_endpoint(process, profile, path, startup_timeout)
            yield FirefoxProcess(pid=process.pid, ws_url=url, profile=profile, executable=path, process=process)
        finally:
            with trio.CancelScope(shield=True):
                await stop_family(process, profile)
    finally:
        if not kept:
            with trio.CancelScope(shield=True):
                await trio.to_thread.run_sync(shutil.rmtree, profile, True)
