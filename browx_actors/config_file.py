"""``serve --config FILE``: a TOML or JSON file with one key per flag and environment variable.

A file is one more layer under the two that exist: a flag wins over its environment
variable, which wins over the file, which wins over the default. The file is checked
whole before anything starts (every key known, every value of its type, every value
accepted by the same parser its variable goes through), so a typo fails at start naming
the key and the file instead of silently leaving a setting at its default.

The file's values reach the runtime as the environment variables they stand for, laid
under the real environment (:func:`layered_environment`), so a value parses one way
whichever layer it came from. Keys without a variable (``headed``, ``logLevel``, the
``[http]`` ones but ``authToken``) are read by the command itself.

Keys are camelCase as in Playwright MCP's config; the native engines' keys sit in a
``[native]`` table and the HTTP server's in ``[http]``, as they only matter together.
Everything here is pure but :func:`read_config_file`.
"""

from __future__ import annotations

import difflib
import json
import logging
import tomllib
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path

import attrs

from .config import (
    RuntimeConfig,
    parse_action_input,
    parse_capabilities,
    parse_cdp_headers,
    parse_cdp_timeout,
    parse_download_max_bytes,
    parse_policy,
    parse_retention_days,
    parse_switch,
    parse_viewport_size,
)
from .origins import parse_origin_patterns

__all__ = ["KEYS", "Key", "absent", "effective_values", "given_flags", "layered_environment",
           "parse_config_text", "printable", "read_config_file", "sources"]

#: The tables a key may sit in; any other table is an unknown key.
SECTIONS = ("native", "http")
MASK = "***"


def _port(text: str) -> object:
    if not text.isdigit() or not 0 < int(text) < 65536:
        raise ValueError(f"must be a port number, got {text}")
    return int(text)


def _log_level(text: str) -> object:
    if not isinstance(logging.getLevelName(text.upper()), int):
        raise ValueError(f"must be a logging level (DEBUG, INFO, WARNING, ERROR), got {text}")
    return text


@attrs.frozen
class Key:
    """One setting: its dotted key, the type a file gives it, and the variable and flag it
    stands for. ``check`` is the variable's own parser, run on the file's value so a file
    refuses exactly what the variable would."""

    name: str
    kind: str  # str | int | number | bool | list | caps | headers
    env: str | None = None
    flag: str | None = None
    secret: bool = False
    check: Callable[[str], object] | None = None

    @property
    def dest(self) -> str | None:
        """The flag's argparse attribute (``--cdp-header`` -> ``cdp_header``)."""
        return None if self.flag is None else self.flag.lstrip("-").replace("-", "_")


KEYS: tuple[Key, ...] = (
    Key("workspace", "str", "BROWX_WORKSPACE", "--workspace"),
    Key("capabilities", "caps", "BROWX_CAPABILITIES", "--caps", check=parse_capabilities),
    Key("executablePath", "str", "BROWX_CHROMIUM", "--executable-path"),
    Key("firefoxPath", "str", "BROWX_FIREFOX", "--firefox-path"),
    Key("cdpEndpoint", "str", "BROWX_ATTACH_CDP", "--cdp-endpoint"),
    Key("cdpHeaders", "headers", "BROWX_CDP_HEADERS", "--cdp-header", secret=True,
        check=lambda text: parse_cdp_headers(text.splitlines())),
    Key("allowedOrigins", "caps", "BROWX_ALLOWED_ORIGINS", "--allowed-origins",
        check=lambda text: parse_origin_patterns(text, source="allowedOrigins")),
    Key("blockedOrigins", "caps", "BROWX_BLOCKED_ORIGINS", "--blocked-origins",
        check=lambda text: parse_origin_patterns(text, source="blockedOrigins")),
    Key("policy", "str", "BROWX_POLICY", "--policy", check=parse_policy),
    Key("cdpTimeout", "number", "BROWX_CDP_TIMEOUT", "--cdp-timeout", check=parse_cdp_timeout),
    Key("headed", "bool", None, "--headed"),
    # open_session's defaults for every browser session (a call's own argument wins).
    Key("device", "str", "BROWX_DEVICE", "--device"),
    Key("viewportSize", "str", "BROWX_VIEWPORT_SIZE", "--viewport-size", check=parse_viewport_size),
    Key("userAgent", "str", "BROWX_USER_AGENT", "--user-agent"),
    Key("locale", "str", "BROWX_LOCALE", "--locale"),
    Key("timezone", "str", "BROWX_TIMEZONE", "--timezone"),
    Key("colorScheme", "str", "BROWX_COLOR_SCHEME", "--color-scheme"),
    Key("ignoreHttpsErrors", "bool", "BROWX_IGNORE_HTTPS_ERRORS", "--ignore-https-errors",
        check=lambda text: parse_switch("ignoreHttpsErrors", text)),
    Key("blockServiceWorkers", "bool", "BROWX_BLOCK_SERVICE_WORKERS", "--block-service-workers",
        check=lambda text: parse_switch("blockServiceWorkers", text)),
    Key("grantPermissions", "caps", "BROWX_GRANT_PERMISSIONS", "--grant-permissions"),
    Key("storageState", "str", "BROWX_STORAGE_STATE", "--storage-state"),
    Key("initScript", "str", "BROWX_INIT_SCRIPT", "--init-script"),
    Key("userDataDir", "str", "BROWX_USER_DATA_DIR", "--user-data-dir"),
    Key("proxyServer", "str", "BROWX_PROXY_SERVER", "--proxy-server"),
    Key("proxyBypass", "str", "BROWX_PROXY_BYPASS", "--proxy-bypass"),
    Key("proxyUsername", "str", "BROWX_PROXY_USERNAME"),
    Key("proxyPassword", "str", "BROWX_PROXY_PASSWORD", secret=True),
    Key("actionInput", "str", "BROWX_ACTION_INPUT", "--action-input", check=parse_action_input),
    Key("pageRecording", "bool", "BROWX_PAGE_RECORDING", "--page-recording"),
    Key("downloadMaxBytes", "int", "BROWX_DOWNLOAD_MAX_BYTES", check=parse_download_max_bytes),
    Key("diagnosticsRetentionDays", "int", "BROWX_DIAGNOSTICS_RETENTION_DAYS", check=parse_retention_days),
    Key("operatorSocket", "str", "BROWX_OPERATOR_SOCKET"),
    Key("operatorToken", "str", "BROWX_OPERATOR_TOKEN", secret=True),
    Key("logLevel", "str", None, "--log-level", check=_log_level),
    Key("native.adbHost", "str", "ANDROID_ADB_SERVER_HOST"),
    Key("native.adbPort", "int", "ANDROID_ADB_SERVER_PORT", check=_port),
    Key("native.androidSerial", "str", "BROWX_ANDROID_APP_SERIAL"),
    Key("native.iosDevice", "str", "BROWX_IOS_DEVICE"),
    Key("native.iosAppId", "str", "BROWX_IOS_APP_ID"),
    Key("native.iosAppPath", "str", "BROWX_IOS_APP_PATH"),
    Key("native.iosWdaUrl", "str", "BROWX_IOS_WDA_URL"),
    Key("http.port", "int", None, "--port", check=lambda text: _port(text) if text != "0" else 0),
    Key("http.host", "str", None, "--host"),
    Key("http.authToken", "str", "BROWX_AUTH_TOKEN", "--auth-token", secret=True),
    Key("http.idleTimeout", "number", None, "--idle-timeout"),
    Key("http.allowedOrigins", "list", None, "--allowed-origin"),
)
_BY_NAME = {key.name: key for key in KEYS}


def _type_error(key: Key, value: object) -> str | None:
    """What is wrong with ``value``'s type for ``key``, or None. bool is refused where a
    number is due: TOML and JSON tell them apart, and ``port = true`` is a mistake."""
    is_str_list = isinstance(value, list) and all(isinstance(v, str) for v in value)
    ok = {
        "str": isinstance(value, str),
        "int": isinstance(value, int) and not isinstance(value, bool),
        "number": isinstance(value, int | float) and not isinstance(value, bool),
        "bool": isinstance(value, bool),
        "list": is_str_list,
        "caps": isinstance(value, str) or is_str_list,
        "headers": is_str_list or (isinstance(value, dict) and all(isinstance(v, str) for v in value.values())),
    }[key.kind]
    if ok:
        return None
    wanted = {"str": "a string", "int": "an integer", "number": "a number", "bool": "true or false",
              "list": "a list of strings", "caps": "a list of strings or a comma string",
              "headers": "a table of strings or a list of 'Name: value' strings"}[key.kind]
    return f"{key.name} must be {wanted}, got {type(value).__name__} {_show(key, value)}"


def _show(key: Key, value: object) -> str:
    return MASK if key.secret else json.dumps(value, default=str)[:60]


def as_env_text(key: Key, value: object) -> str:
    """A checked value as its variable would spell it."""
    if key.kind == "bool":
        return "on" if value else "off"
    if key.kind == "caps" and isinstance(value, list):
        return ",".join(value)
    if key.kind == "headers":
        lines = value if isinstance(value, list) else [f"{n}: {v}" for n, v in dict(value).items()]  # type: ignore[call-overload]
        return "\n".join(lines)
    return str(value)


def _unknown(name: str) -> str:
    """Names the key, and the known one it was likely meant as: the same leaf in another
    table (``port`` for ``http.port``), else a close spelling of the whole or the leaf."""
    leaves = {k.rpartition(".")[2]: k for k in _BY_NAME}
    leaf = name.rpartition(".")[2]
    near = (difflib.get_close_matches(name, _BY_NAME, 1)
            or [leaves[m] for m in difflib.get_close_matches(leaf, leaves, 1)])
    return f"unknown key {name!r}" + (f" (did you mean {near[0]!r}?)" if near else "")


def _flatten(data: Mapping[str, object]) -> Iterable[tuple[str, object]]:
    for name, value in data.items():
        if name in SECTIONS:
            if not isinstance(value, dict):
                raise ValueError(f"{name} must be a table of keys, got {type(value).__name__}")
            yield from ((f"{name}.{sub}", v) for sub, v in value.items())
        else:
            yield name, value


def parse_config_text(text: str, name: str) -> dict[str, object]:
    """A config file's text as ``{dotted key: value}``; the file's kind by its name's
    extension. Any error is a ValueError starting with ``name`` and naming the key."""
    suffix = Path(name).suffix.lower()
    try:
        if suffix == ".toml":
            data: object = tomllib.loads(text)
        elif suffix == ".json":
            data = json.loads(text)
        else:
            raise ValueError("a config file is .toml or .json")
        if not isinstance(data, dict):
            raise ValueError("a config file is a table of keys")
        values: dict[str, object] = {}
        for dotted, value in _flatten(data):
            key = _BY_NAME.get(dotted)
            if key is None:
                raise ValueError(_unknown(dotted))
            problem = _type_error(key, value)
            if problem:
                raise ValueError(problem)
            if key.check is not None:
                try:
                    key.check(as_env_text(key, value))
                except ValueError as err:
                    raise ValueError(f"{dotted}: {err}") from None
            values[dotted] = value
    except ValueError as err:
        raise ValueError(f"{name}: {err}") from None
    return values


def read_config_file(path: str) -> dict[str, object]:
    """The one read from disk: :func:`parse_config_text` of the file at ``path``."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as err:
        raise ValueError(f"cannot read the config file {path}: {getattr(err, 'strerror', None) or err}") from None
    return parse_config_text(text, path)


def layered_environment(file_values: Mapping[str, object], environ: Mapping[str, str]) -> dict[str, str]:
    """The environment with the file's values under it: a variable set (not empty) wins."""
    merged = {_BY_NAME[name].env: as_env_text(_BY_NAME[name], value)
              for name, value in file_values.items() if _BY_NAME[name].env}
    merged.update({k: v for k, v in environ.items() if v})
    return merged  # type: ignore[return-value]


def absent(flag: object) -> bool:
    """A flag left off: argparse's None, [] or False (by identity: ``--port 0`` is given)."""
    return flag is None or flag is False or (isinstance(flag, list) and not flag)


def given_flags(args: object) -> set[str]:
    """The keys whose flag was on the command line (``args`` from argparse, whose
    defaults are all None, empty or False so that a given flag is told from an absent one)."""
    return {key.name for key in KEYS if key.dest and not absent(getattr(args, key.dest, None))}


def sources(flags: Iterable[str], environ: Mapping[str, str], file_values: Mapping[str, object]) -> dict[str, str]:
    """Where each key's effective value came from: flag, env, file or default."""
    flags = set(flags)
    return {
        key.name: "flag" if key.name in flags else "env" if key.env and environ.get(key.env)
        else "file" if key.name in file_values else "default"
        for key in KEYS
    }


def effective_values(config: RuntimeConfig, rest: Mapping[str, object]) -> dict[str, object]:
    """Every key's value in effect, from the built config; ``rest`` holds the keys the
    command reads itself (``logLevel``, ``http.*``)."""
    native = config.native
    values: dict[str, object] = {
        "workspace": str(config.workspace), "capabilities": sorted(config.capabilities),
        "executablePath": config.chromium, "firefoxPath": config.firefox, "cdpEndpoint": config.attach_cdp,
        "cdpHeaders": dict(config.cdp_headers), "cdpTimeout": config.cdp_timeout, "headed": not config.headless,
        "allowedOrigins": [rule.text for rule in config.origins.allowed],
        "blockedOrigins": [rule.text for rule in config.origins.blocked],
        "policy": config.policy.source,
        "actionInput": config.action_input, "pageRecording": config.page_recording,
        "downloadMaxBytes": config.download_max_bytes,
        "diagnosticsRetentionDays": config.diagnostics_retention_days,
        "operatorSocket": config.operator_socket, "operatorToken": config.operator_token,
        "native.adbHost": native.adb_host, "native.adbPort": native.adb_port,
        "native.androidSerial": native.android_serial, "native.iosDevice": native.ios_device,
        "native.iosAppId": native.ios_app_id, "native.iosAppPath": native.ios_app_path,
        "native.iosWdaUrl": native.ios_wda_url,
    }
    values.update(_session_default_values(config.session_defaults))
    values.update(rest)
    return values


def _session_default_values(defaults: Mapping[str, object]) -> dict[str, object]:
    """The session defaults' keys from open_session's JSON names."""
    viewport = defaults.get("viewport")
    proxy = defaults.get("proxy")
    proxy = proxy if isinstance(proxy, dict) else {}
    values: dict[str, object] = {
        name: defaults.get(name) for name in ("device", "userAgent", "locale", "timezone", "colorScheme",
                                              "storageState", "initScript", "userDataDir")}
    values.update(
        viewportSize=f"{viewport['width']}x{viewport['height']}" if isinstance(viewport, dict) else None,
        ignoreHttpsErrors=defaults.get("ignoreHttpsErrors") is True,
        blockServiceWorkers=defaults.get("blockServiceWorkers") is True,
        grantPermissions=list(defaults.get("permissions") or []),  # type: ignore[call-overload]
        proxyServer=proxy.get("server"), proxyBypass=proxy.get("bypass"),
        proxyUsername=proxy.get("username"), proxyPassword=proxy.get("password"))
    return values


def _masked(key: Key, value: object) -> object:
    if value is None or not key.secret:
        if key.name == "cdpEndpoint" and isinstance(value, str) and "?" in value:
            return value.partition("?")[0] + "?" + MASK  # its query may carry a fleet's token
        return value
    if isinstance(value, dict):
        return {name: MASK for name in value}
    return MASK


def printable(values: Mapping[str, object], origin: Mapping[str, str]) -> dict[str, object]:
    """``--print-config``'s answer: ``config`` in the file's shape with secrets masked
    (so it reads as a config file), and ``sources`` by dotted key."""
    config: dict[str, object] = {}
    for key in KEYS:
        section, _, leaf = key.name.rpartition(".")
        table = config.setdefault(section, {}) if section else config
        table[leaf] = _masked(key, values.get(key.name))  # type: ignore[index]
    return {"config": config, "sources": {key.name: origin[key.name] for key in KEYS}}
