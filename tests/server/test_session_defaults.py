"""The server's session defaults (``--device``, ``--viewport-size``, ...): read from the
variables, layered under a call's own arguments by one pure rule, checked at start by
open_session's own rules, left out on firefox where BiDi cannot set them, and shown by
``--print-config`` with the proxy's password masked (the real command, no browser)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from browx_actors.config import RuntimeConfig, parse_session_defaults
from browx_actors.errors import ToolError
from browx_actors.runtime.opening import check_session_defaults, session_options
from browx_actors.sessions.context_options import layered
from browx_actors.tools.sessions import OPEN_SESSION

SERVE = [sys.executable, "-m", "browx_actors", "serve"]


def test_the_call_wins_argument_by_argument_and_the_server_fills_the_rest() -> None:
    server = {"userAgent": "server-ua", "locale": "de-DE", "ignoreHttpsErrors": True, "permissions": ["geolocation"]}
    call = {"locale": "fr-FR", "ignoreHttpsErrors": False, "permissions": None, "session": "s"}
    assert layered(call, server) == {"userAgent": "server-ua", "locale": "fr-FR", "ignoreHttpsErrors": False,
                                     "permissions": ["geolocation"], "session": "s"}


def test_an_empty_user_data_dir_opens_without_the_servers_profile() -> None:
    options, _ = session_options(config(userDataDir="profiles/main"), "chromium", {"userDataDir": ""})
    assert "userDataDir" not in options
    options, _ = session_options(config(userDataDir="profiles/main"), "chromium", {})
    assert options["userDataDir"] == "profiles/main"


def test_a_device_the_call_names_brings_its_own_size_and_agent_over_the_servers() -> None:
    server = {"viewport": {"width": 1000, "height": 700}, "userAgent": "server-ua", "locale": "de-DE"}
    assert layered({"device": "iPhone 15"}, server) == {"device": "iPhone 15", "locale": "de-DE"}
    # The server's device, the call's viewport: the call's size over that device's.
    assert layered({"viewport": {"width": 500, "height": 400}}, {"device": "Pixel 7"}) == {
        "device": "Pixel 7", "viewport": {"width": 500, "height": 400}}


def test_the_variables_read_as_open_session_arguments() -> None:
    env = {"BROWX_DEVICE": "Pixel 7", "BROWX_VIEWPORT_SIZE": "1024x600", "BROWX_IGNORE_HTTPS_ERRORS": "on",
           "BROWX_BLOCK_SERVICE_WORKERS": "off", "BROWX_GRANT_PERMISSIONS": "geolocation, notifications",
           "BROWX_PROXY_SERVER": "http://proxy:3128", "BROWX_PROXY_PASSWORD": "pw-123", "BROWX_PROXY_USERNAME": "u",
           "BROWX_USER_DATA_DIR": "profiles/main"}
    assert parse_session_defaults(env) == {
        "device": "Pixel 7", "viewport": {"width": 1024, "height": 600}, "ignoreHttpsErrors": True,
        "permissions": ["geolocation", "notifications"], "userDataDir": "profiles/main",
        "proxy": {"server": "http://proxy:3128", "username": "u", "password": "pw-123"}}
    assert parse_session_defaults({}) == {}
    with pytest.raises(ValueError, match="WIDTHxHEIGHT"):
        parse_session_defaults({"BROWX_VIEWPORT_SIZE": "1024"})
    with pytest.raises(ValueError, match="BROWX_PROXY_BYPASS need BROWX_PROXY_SERVER"):
        parse_session_defaults({"BROWX_PROXY_BYPASS": "localhost"})


@pytest.mark.parametrize(("defaults", "flag", "words"), [
    ({"device": "iPhone 99"}, "--device", "unknown device"),
    ({"permissions": ["geolocation", "telepathy"]}, "--grant-permissions", "telepathy"),
    ({"timezone": "Mars/Olympus"}, "--timezone", "unknown time zone"),
    ({"viewport": {"width": 50, "height": 600}}, "--viewport-size", "viewport"),
    ({"proxy": {"server": "proxy:3128"}}, "--proxy-server", "scheme://host:port"),
    ({"colorScheme": "sepia"}, "--color-scheme", "colorScheme"),
])
def test_a_bad_default_is_refused_at_start_naming_its_flag(defaults: dict[str, object], flag: str,
                                                           words: str) -> None:
    with pytest.raises(ValueError, match=flag) as refused:
        check_session_defaults(defaults)  # type: ignore[arg-type]
    assert words in str(refused.value)


def test_good_defaults_pass_the_check() -> None:
    check_session_defaults({"device": "Pixel 7", "permissions": ["geolocation"], "timezone": "Europe/Paris",
                            "proxy": {"server": "socks5://proxy:1080"}, "userDataDir": "p"})


def config(**defaults: object) -> RuntimeConfig:
    return RuntimeConfig(session_defaults=defaults)  # type: ignore[arg-type]


def test_open_session_options_carry_the_defaults_unless_attached_or_native() -> None:
    options, skipped = session_options(config(locale="de-DE", userAgent="ua"), "chromium", {"locale": "fr-FR"})
    assert (options["locale"], options["userAgent"], skipped) == ("fr-FR", "ua", [])
    attached, _ = session_options(config(locale="de-DE"), "chromium", {"cdpEndpoint": "http://h:9222"})
    assert "locale" not in attached
    assert session_options(config(locale="de-DE"), "android-app", {}) == ({}, [])


def test_firefox_leaves_out_the_defaults_it_cannot_set_and_says_so() -> None:
    server = config(colorScheme="dark", permissions=["geolocation"], device="Pixel 7", locale="de-DE")
    options, skipped = session_options(server, "firefox", {})
    assert skipped == ["colorScheme", "device"]
    assert options["locale"] == "de-DE" and "colorScheme" not in options and "isMobile" not in options
    assert options["permissions"] == ["geolocation"]  # granted per origin there
    # The call's own is refused as ever.
    with pytest.raises(ToolError) as refused:
        session_options(server, "firefox", {"colorScheme": "light"})
    assert refused.value.details["field"] == "colorScheme"
    # A proxy with credentials is taken whole (firefox answers its challenges).
    proxy = {"server": "http://p:1", "username": "u", "password": "pw-1"}
    assert session_options(config(proxy=proxy), "firefox", {}) == ({"proxy": proxy, "viewport": {
        "width": 1280, "height": 720}}, [])


def test_print_config_shows_the_defaults_from_file_env_and_flag_with_the_password_masked(tmp_path: Path) -> None:
    path = tmp_path / "c.toml"
    path.write_text('device = "Pixel 7"\nuserAgent = "from-file"\nproxyServer = "http://proxy:3128"\n'
                    'proxyUsername = "u"\nproxyPassword = "hunter2-secret"\ngrantPermissions = ["geolocation"]\n'
                    'ignoreHttpsErrors = true\n')
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(Path(__file__).resolve().parents[2]),
           "BROWX_LOCALE": "de-DE", "BROWX_USER_AGENT": "from-env"}
    done = subprocess.run([*SERVE, "--config", str(path), "--user-agent", "from-flag", "--viewport-size", "800x600",
                           "--print-config"], capture_output=True, text=True, env=env, timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    printed = json.loads(done.stdout)
    shown, where = printed["config"], printed["sources"]
    assert (shown["userAgent"], where["userAgent"]) == ("from-flag", "flag")
    assert (shown["locale"], where["locale"]) == ("de-DE", "env")
    assert (shown["device"], where["device"]) == ("Pixel 7", "file")
    assert (shown["viewportSize"], shown["grantPermissions"], shown["ignoreHttpsErrors"]) == (
        "800x600", ["geolocation"], True)
    assert (shown["proxyServer"], shown["proxyUsername"], shown["proxyPassword"]) == ("http://proxy:3128", "u", "***")
    assert "hunter2-secret" not in done.stdout


def test_a_bad_default_stops_the_server_at_start_naming_it(tmp_path: Path) -> None:
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    done = subprocess.run([*SERVE, "--device", "iPhone 99", "--print-config"], capture_output=True, text=True,
                          env=env, timeout=60, check=False)
    assert done.returncode == 2 and "--device" in done.stderr and "unknown device" in done.stderr, done.stderr


def test_an_attached_firefox_takes_no_profile_folder() -> None:
    options, skipped = session_options(config(userDataDir="p", locale="de-DE"), "firefox",
                                       {"bidiEndpoint": "ws://h:1/session"})
    assert "userDataDir" not in options and options["locale"] == "de-DE" and skipped == ["userDataDir"]
    with pytest.raises(ToolError) as refused:  # the call's own: refused by open_session's rule
        for rule in OPEN_SESSION.rules:
            rule.check({"session": "s", "engine": "firefox", "bidiEndpoint": "ws://h:1/session", "userDataDir": "p"})
    assert (refused.value.code, refused.value.details["field"]) == ("bad-arg", "userDataDir")


@pytest.mark.parametrize(("given", "default"), [("userDataDir", "storageState"), ("storageState", "userDataDir")])
def test_a_profile_and_a_storage_state_default_yield_to_the_calls_other(given: str, default: str) -> None:
    """They never go together; the call asked for one, so the server's other is left out
    and named, not refused under a name the caller never sent."""
    server = config(**{default: "from-the-server", "locale": "de-DE"})
    options, skipped = session_options(server, "chromium", {given: "from-the-call"})
    assert options[given] == "from-the-call" and default not in options and options["locale"] == "de-DE"
    assert skipped == [default]
