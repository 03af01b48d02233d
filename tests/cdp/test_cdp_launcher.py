"""Launching, finding and attaching to Chromium; nothing of the browser may outlive its block."""

from __future__ import annotations

import functools
import json
import os
import signal
import stat
import tempfile
from pathlib import Path

import pytest
import trio

from browx_actors.cdp import (
    CHROMIUM_FLAGS,
    CdpEndpointError,
    ChromiumNotFound,
    ChromiumProcess,
    ChromiumStartupError,
    chromium_command,
    find_chromium,
    launch_chromium,
    open_cdp_connection,
    parse_devtools_active_port,
    resolve_attach_endpoint,
)
from cdp_fixtures import is_alive, live_processes


def _script(path: Path, body: str) -> Path:
    path.write_text("#!/bin/sh\n" + body)
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


# -- pure pieces ------------------------------------------------------------------------


def test_flags_are_the_automation_set() -> None:
    for flag in (
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--remote-debugging-port=0",
        "--disable-dev-shm-usage",
        "--mute-audio",
        "--hide-scrollbars",
    ):
        assert flag in CHROMIUM_FLAGS
    assert CHROMIUM_FLAGS[-1] == "about:blank"


def test_chromium_command() -> None:
    command = chromium_command("/usr/bin/chromium", "/tmp/p", extra_args=["--lang=fr"])
    assert command[0] == "/usr/bin/chromium"
    assert "--headless" in command
    assert "--user-data-dir=/tmp/p" in command
    assert command[-1] == "--lang=fr"
    headed = chromium_command("/usr/bin/chromium", "/tmp/p", headless=False)
    assert "--headless" not in headed
    assert "--remote-debugging-port=0" in headed


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("39113\n/devtools/browser/4dc1c16b\n", (39113, "/devtools/browser/4dc1c16b")),
        ("9222\r\n/devtools/browser/x", (9222, "/devtools/browser/x")),
        ("", None),
        ("39113\n", None),
        ("abc\n/devtools/browser/x\n", None),
        ("0\n/devtools/browser/x\n", None),
        ("70000\n/devtools/browser/x\n", None),
        ("9222\ndevtools/browser/x\n", None),
    ],
)
def test_parse_devtools_active_port(text: str, expected: tuple[int, str] | None) -> None:
    assert parse_devtools_active_port(text) == expected


def test_find_chromium_order(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    explicit = _script(tmp_path / "explicit-chrome", "exit 0\n")
    from_env = _script(tmp_path / "env-chrome", "exit 0\n")
    on_path = tmp_path / "bin"
    on_path.mkdir()
    _script(on_path / "chromium", "exit 0\n")
    monkeypatch.setenv("PATH", str(on_path))
    monkeypatch.setenv("BROWX_CHROMIUM", str(from_env))
    assert find_chromium(explicit) == str(explicit)
    assert find_chromium() == str(from_env)
    monkeypatch.delenv("BROWX_CHROMIUM")
    assert find_chromium() == str(on_path / "chromium")


def test_find_chromium_says_how_to_fix_a_missing_browser(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.delenv("BROWX_CHROMIUM", raising=False)
    with pytest.raises(ChromiumNotFound) as info:
        find_chromium()
    assert "apt-get install chromium" in str(info.value)
    assert "BROWX_CHROMIUM" in str(info.value)
    # A named browser that is not there is an error, not a fallback to PATH.
    monkeypatch.setenv("BROWX_CHROMIUM", str(tmp_path / "no-such-chrome"))
    with pytest.raises(ChromiumNotFound, match="no-such-chrome"):
        find_chromium()


# -- a real browser ---------------------------------------------------------------------


async def test_launch_reads_devtools_active_port_and_leaves_nothing_behind() -> None:
    async with launch_chromium(extra_args=["--user-agent=browx-launcher-test"]) as browser:
        port_file = browser.user_data_dir / "DevToolsActivePort"
        port, path = port_file.read_text().splitlines()[:2]
        assert browser.ws_url == f"ws://127.0.0.1:{port}{path}"
        assert browser.port == int(port)
        assert os.getpgid(browser.pid) == browser.pid  # its own group
        assert len(live_processes(browser.pid, str(browser.user_data_dir))) > 1
        async with open_cdp_connection(browser.ws_url) as conn:
            version = await conn.send("Browser.getVersion")
        assert version["userAgent"] == "browx-launcher-test"
        pid, user_data_dir = browser.pid, browser.user_data_dir
    assert browser.process.returncode is not None
    assert live_processes(pid, str(user_data_dir)) == []
    assert not user_data_dir.exists()


async def test_resolve_attach_endpoint_against_chromium(chromium: ChromiumProcess) -> None:
    assert await resolve_attach_endpoint(chromium.ws_url) == chromium.ws_url
    assert await resolve_attach_endpoint(chromium.http_url) == chromium.ws_url
    assert await resolve_attach_endpoint(chromium.http_url + "/") == chromium.ws_url


async def test_wait_exit_reports_a_killed_browser_and_its_orphans_are_reaped() -> None:
    async with launch_chromium() as browser:
        os.kill(browser.pid, signal.SIGKILL)  # the browser process only: its children orphan
        with trio.fail_after(5):
            assert await browser.wait_exit() == -signal.SIGKILL
    assert live_processes(browser.pid, str(browser.user_data_dir)) == []
    assert not browser.user_data_dir.exists()


_STUBBORN = "import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); time.sleep(60)"


async def test_stubborn_stragglers_in_and_out_of_the_group_are_killed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A fake browser whose children ignore SIGTERM: one stays in the process group,
    one escapes into its own session (as crashpad does) but names the profile dir."""
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    fake = _script(
        tmp_path / "stubborn-chrome",
        f"""for arg in "$@"; do case "$arg" in --user-data-dir=*) udd="${{arg#--user-data-dir=}}";; esac; done
python3 -c '{_STUBBORN}' in-group &
echo $! > {tmp_path}/in-group.pid
setsid python3 -c '{_STUBBORN}' "$udd" &
echo $! > {tmp_path}/escaped.pid
sleep 0.3
printf '9\n/devtools/browser/fake\n' > "$udd/DevToolsActivePort"
exec sleep 60
""",
    )
    async with launch_chromium(fake) as browser:
        assert browser.ws_url == "ws://127.0.0.1:9/devtools/browser/fake"
        stragglers = [int((tmp_path / f"{name}.pid").read_text()) for name in ("in-group", "escaped")]
        assert set(stragglers) <= set(live_processes(browser.pid, str(browser.user_data_dir)))
    assert live_processes(browser.pid, str(browser.user_data_dir)) == []
    assert not any(is_alive(pid) for pid in stragglers)


async def test_cancelled_owner_leaves_no_browser() -> None:
    with trio.move_on_after(10) as scope:
        async with launch_chromium() as browser:
            scope.cancel()
            await trio.sleep_forever()
    assert scope.cancelled_caught
    assert live_processes(browser.pid, str(browser.user_data_dir)) == []
    assert not browser.user_data_dir.exists()


async def test_early_exit_reports_code_and_stderr(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    fake = _script(tmp_path / "broken-chrome", 'echo "fatal: cannot open display" >&2\nexit 3\n')
    with pytest.raises(ChromiumStartupError) as info:
        async with launch_chromium(fake):
            raise AssertionError("must not start")
    assert "exited with code 3" in str(info.value)
    assert "fatal: cannot open display" in str(info.value)
    assert str(fake) in str(info.value)
    assert not list(tmp_path.glob("browx-chromium-*"))


async def test_silent_browser_times_out_and_is_killed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    pid_file = tmp_path / "pid"
    fake = _script(tmp_path / "silent-chrome", f"echo $$ > {pid_file}\nexec sleep 60\n")
    with pytest.raises(ChromiumStartupError, match=r"did not write DevToolsActivePort within 0\.5 s"):
        async with launch_chromium(fake, startup_timeout=0.5):
            raise AssertionError("must not start")
    assert not is_alive(int(pid_file.read_text()))
    assert not list(tmp_path.glob("browx-chromium-*"))


async def test_unstartable_executable_is_a_startup_error(tmp_path: Path) -> None:
    not_a_program = tmp_path / "chrome"
    not_a_program.write_text("\x7fELF this is not a program")
    not_a_program.chmod(0o755)
    with pytest.raises(ChromiumStartupError, match="could not start"):
        async with launch_chromium(not_a_program):
            raise AssertionError("must not start")


# -- attach endpoints without a browser ---------------------------------------------------


async def _serve_json_version(body: dict[str, object], task_status: trio.TaskStatus[int],
                              token: str | None = None) -> None:
    """A one-route HTTP server: GET /json/version answers ``body`` (with ``token``, only
    to a request whose query carries it, as a fleet does; 401 otherwise)."""
    payload = json.dumps(body).encode()

    async def handle(stream: trio.SocketStream) -> None:
        request = b""
        while b"\r\n\r\n" not in request:
            chunk = await stream.receive_some(4096)
            if not chunk:
                return
            request += chunk
        route = b"GET /json/version" + (b"" if token is None else f"?token={token}".encode()) + b" "
        status = b"200 OK" if request.startswith(route) else b"404 Not Found"
        if token is not None and status != b"200 OK" and request.startswith(b"GET /json/version"):
            status = b"401 Unauthorized"
        await stream.send_all(
            b"HTTP/1.1 " + status + b"\r\nContent-Type: application/json\r\n"
            b"Content-Length: " + str(len(payload)).encode() + b"\r\nConnection: close\r\n\r\n"
            + payload
        )
        await stream.aclose()

    listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
    task_status.started(listeners[0].socket.getsockname()[1])
    await trio.serve_listeners(handle, listeners)


async def test_resolve_rewrites_a_bind_all_host() -> None:
    async with trio.open_nursery() as nursery:
        body = {"webSocketDebuggerUrl": "ws://0.0.0.0:3000/devtools/browser/abc"}
        port = await nursery.start(_serve_json_version, body)
        resolved = await resolve_attach_endpoint(f"http://127.0.0.1:{port}")
        assert resolved == "ws://127.0.0.1:3000/devtools/browser/abc"
        nursery.cancel_scope.cancel()


async def test_a_fleets_token_goes_with_the_lookup_and_the_socket_and_out_of_errors() -> None:
    token = "fleet-token-0123456789"
    async with trio.open_nursery() as nursery:
        # browserless answers with its own root, no token in it.
        port = await nursery.start(functools.partial(
            _serve_json_version, {"webSocketDebuggerUrl": "ws://127.0.0.1:3000"}, token=token))
        resolved = await resolve_attach_endpoint(f"http://127.0.0.1:{port}?token={token}")
        assert resolved == f"ws://127.0.0.1:3000?token={token}"
        with pytest.raises(CdpEndpointError) as refused:
            await resolve_attach_endpoint(f"http://127.0.0.1:{port}?token=wrong-token-0123456789")
        assert "answered HTTP 401" in str(refused.value) and "wrong-token" not in str(refused.value)
        nursery.cancel_scope.cancel()


async def test_resolve_refuses_what_it_cannot_use() -> None:
    with pytest.raises(CdpEndpointError, match="neither a ws://"):
        await resolve_attach_endpoint("ftp://example.invalid/")
    with pytest.raises(CdpEndpointError, match="neither a ws://"):
        await resolve_attach_endpoint("127.0.0.1:9222")
    async with trio.open_nursery() as nursery:
        port = await nursery.start(_serve_json_version, {"Browser": "no url here"})
        with pytest.raises(CdpEndpointError, match="webSocketDebuggerUrl"):
            await resolve_attach_endpoint(f"http://127.0.0.1:{port}")
        nursery.cancel_scope.cancel()
    with trio.socket.socket() as sock:
        await sock.bind(("127.0.0.1", 0))
        closed_port = sock.getsockname()[1]
    with pytest.raises(CdpEndpointError, match=str(closed_port)):
        await resolve_attach_endpoint(f"http://127.0.0.1:{closed_port}", timeout=2)
