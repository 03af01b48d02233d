"""Runtime configuration: capabilities, workspace and browser settings.

Read once from the environment (the variables in the README), overridable by keyword
arguments to :func:`~browx_actors.open_runtime` and by the ``serve`` command's flags;
``serve --config`` lays a file's values under the environment (``config_file``).
Parsing is pure so it is tested without a runtime.
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Iterable, Mapping
from importlib import metadata
from pathlib import Path

import attrs

from .jsonsafe import JsonObject
from .origins import OriginPolicy, parse_origin_patterns
from .policy.file import OperatorPolicy, load_policy

__all__ = [
    "ALL_CAPABILITIES",
    "CDP_TIMEOUT",
    "DEFAULT_CAPABILITIES",
    "DOWNLOAD_MAX_BYTES",
    "NativeConfig",
    "RuntimeConfig",
    "package_version",
    "parse_capabilities",
    "parse_cdp_headers",
    "parse_cdp_timeout",
    "parse_download_max_bytes",
    "parse_policy",
    "parse_session_defaults",
    "parse_viewport_size",
]


_HEADER_NAME = re.compile(r"^[!#$%&'*+.^_`|~0-9A-Za-z-]+$")


def parse_cdp_headers(lines: Iterable[str]) -> tuple[tuple[str, str], ...]:
    """``Name: value`` lines (``--cdp-header``, ``BROWX_CDP_HEADERS`` one per line) as
    headers; a malformed one is a ValueError naming it by its name only, since its
    value may be a credential."""
    out = []
    for line in lines:
        if not line.strip():
            continue
        name, sep, value = line.partition(":")
        name, value = name.strip(), value.strip()
        if not sep or not _HEADER_NAME.match(name):
            raise ValueError(f"a CDP header is 'Name: value'; got one named {name[:40]!r}")
        if "\r" in value or "\n" in value:
            raise ValueError(f"the CDP header {name} has a line break in its value")
        out.append((name, value))
    return tuple(out)


def package_version() -> str:
    """The installed distribution's version (``--version``, the MCP ``serverInfo``), so
    neither drifts from the package."""
    try:
        return metadata.version("browx-actors")
    except metadata.PackageNotFoundError:  # a tree that was never installed
        return "0+unknown"

#: On unless a gate says otherwise.
DEFAULT_CAPABILITIES = frozenset({"read", "navigation", "action", "human"})
#: Off until named in BROWX_CAPABILITIES (server) and allowed by the client.
OPT_IN_CAPABILITIES = frozenset(
    {"eval", "secrets", "canvas", "diagnostics", "native-device", "operator-channel", "live-view",
     "network-control", "storage", "policy"}
)
ALL_CAPABILITIES = DEFAULT_CAPABILITIES | OPT_IN_CAPABILITIES


def parse_capabilities(text: str | Iterable[str] | None) -> frozenset[str]:
    """The defaults plus every capability named in a comma list (or iterable).

    Unknown names raise ValueError naming them, so a typo in BROWX_CAPABILITIES fails
    at start instead of silently leaving a capability off.
    """
    if text is None:
        return DEFAULT_CAPABILITIES
    names = text.split(",") if isinstance(text, str) else list(text)
    named = {n.strip() for n in names if n and n.strip()}
    unknown = named - ALL_CAPABILITIES
    if unknown:
        raise ValueError(
            f"unknown capabilities: {', '.join(sorted(unknown))} "
            f"(known: {', '.join(sorted(ALL_CAPABILITIES))})"
        )
    return DEFAULT_CAPABILITIES | named


#: How long reaching an attached browser may take, in seconds (BROWX_CDP_TIMEOUT).
CDP_TIMEOUT = 30.0


def parse_cdp_timeout(text: str | None) -> float:
    """BROWX_CDP_TIMEOUT / ``--cdp-timeout``: seconds to reach an attached browser (its
    ``/json/version``, its socket, Playwright's connection), each step; a fleet that
    starts a browser per connection can take longer than a local one. Above 0, at most 600."""
    if text is None or not text.strip():
        return CDP_TIMEOUT
    try:
        seconds = float(text.strip())
    except ValueError:
        seconds = math.nan
    if not 0 < seconds <= 600:
        raise ValueError(f"BROWX_CDP_TIMEOUT must be a number of seconds above 0 and at most 600, got {text!r}")
    return seconds


def parse_retention_days(text: str | None) -> int:
    """BROWX_DIAGNOSTICS_RETENTION_DAYS: a whole number of days >= 0 (default 30)."""
    if text is None or not text.strip():
        return 30
    try:
        days = int(text.strip())
    except ValueError:
        days = -1
    if days < 0:
        raise ValueError(f"BROWX_DIAGNOSTICS_RETENTION_DAYS must be a whole number of days >= 0, got {text!r}")
    return days


#: The largest download a session saves (BROWX_DOWNLOAD_MAX_BYTES): a larger one is
#: cancelled while it arrives, so a page cannot fill the disk through the workspace.
DOWNLOAD_MAX_BYTES = 256 * 1024 * 1024


def parse_download_max_bytes(text: str | None) -> int:
    """BROWX_DOWNLOAD_MAX_BYTES: a whole number of bytes >= 1 (default 256 MiB)."""
    if text is None or not text.strip():
        return DOWNLOAD_MAX_BYTES
    value = text.strip().replace("_", "")
    if not value.isdigit() or int(value) < 1:
        raise ValueError(f"BROWX_DOWNLOAD_MAX_BYTES must be a whole number of bytes >= 1, got {text!r}")
    return int(value)


def parse_policy(text: str | None) -> OperatorPolicy:
    """BROWX_POLICY: the operator's policy file (TOML or JSON), read and checked now, so a
    bad rule stops the start naming the file and the key (``policy/file.py``)."""
    if text is None or not text.strip():
        return OperatorPolicy()
    return load_policy(Path(text.strip()))


#: How actions reach the page (BROWX_ACTION_INPUT): ``auto`` sends the session's own CDP
#: input to an element that is ready and leaves the rest to Playwright; ``playwright``
#: leaves every action to Playwright (slower; a fallback should a page defeat the checks).
ACTION_INPUTS = ("auto", "playwright")


def parse_switch(name: str, text: str | None, default: bool = True) -> bool:
    """An on/off variable: ``on``/``off`` (also ``1``/``0``, ``true``/``false``, ``yes``/``no``)."""
    if text is None or not text.strip():
        return default
    value = text.strip().lower()
    if value in ("on", "1", "true", "yes"):
        return True
    if value in ("off", "0", "false", "no"):
        return False
    raise ValueError(f"{name} must be on or off, got {text!r}")


def parse_action_input(text: str | None) -> str:
    """BROWX_ACTION_INPUT: ``auto`` (the default) or ``playwright``."""
    value = (text or "auto").strip().lower()
    if value not in ACTION_INPUTS:
        raise ValueError(f"BROWX_ACTION_INPUT must be one of {', '.join(ACTION_INPUTS)}, got {text!r}")
    return value


#: open_session's arguments the server gives every browser session it opens, by the
#: variable each comes from (a call's own argument wins): text as given, but these.
SESSION_DEFAULT_TEXT = (
    ("BROWX_DEVICE", "device"), ("BROWX_USER_AGENT", "userAgent"), ("BROWX_LOCALE", "locale"),
    ("BROWX_TIMEZONE", "timezone"), ("BROWX_COLOR_SCHEME", "colorScheme"), ("BROWX_STORAGE_STATE", "storageState"),
    ("BROWX_INIT_SCRIPT", "initScript"), ("BROWX_USER_DATA_DIR", "userDataDir"),
)
SESSION_DEFAULT_SWITCHES = (("BROWX_IGNORE_HTTPS_ERRORS", "ignoreHttpsErrors"),
                            ("BROWX_BLOCK_SERVICE_WORKERS", "blockServiceWorkers"))
#: The proxy's parts, by variable -> its key in open_session's ``proxy``.
SESSION_DEFAULT_PROXY = (("BROWX_PROXY_SERVER", "server"), ("BROWX_PROXY_BYPASS", "bypass"),
                         ("BROWX_PROXY_USERNAME", "username"), ("BROWX_PROXY_PASSWORD", "password"))


def parse_viewport_size(text: str) -> JsonObject:
    """BROWX_VIEWPORT_SIZE / ``--viewport-size``: ``WIDTHxHEIGHT`` in CSS pixels, as Playwright MCP spells it."""
    width, sep, height = text.strip().lower().partition("x")
    if not (sep and width.isdigit() and height.isdigit()):
        raise ValueError(f"BROWX_VIEWPORT_SIZE is WIDTHxHEIGHT in pixels (1280x720), got {text!r}")
    return {"width": int(width), "height": int(height)}


def parse_session_defaults(env: Mapping[str, str]) -> JsonObject:
    """The server's defaults for open_session's context arguments, by their JSON names,
    from the variables (only what is set). Their shape is checked here; what they name
    (a device, a permission, a time zone) is checked at start by open_session's own
    rules (``runtime/opening.py``)."""
    def text(variable: str) -> str | None:
        return (env.get(variable) or "").strip() or None

    out: JsonObject = {field: value for variable, field in SESSION_DEFAULT_TEXT if (value := text(variable))}
    size = text("BROWX_VIEWPORT_SIZE")
    if size is not None:
        out["viewport"] = parse_viewport_size(size)
    for variable, field in SESSION_DEFAULT_SWITCHES:
        if parse_switch(variable, env.get(variable), default=False):
            out[field] = True
    permissions = [name.strip() for name in (text("BROWX_GRANT_PERMISSIONS") or "").split(",") if name.strip()]
    if permissions:
        out["permissions"] = list(permissions)
    proxy = {key: value for variable, key in SESSION_DEFAULT_PROXY if (value := text(variable))}
    if proxy and "server" not in proxy:
        raise ValueError(f"{', '.join(f'BROWX_PROXY_{k.upper()}' for k in proxy)} need BROWX_PROXY_SERVER")
    if proxy:
        out["proxy"] = dict(proxy)
    return out


#: The live view's step-down durations, in seconds (``docs/operator-channel.md``): a frame not acked for
#: this long is lost, a stream that delivered nothing for this long has stalled, drops are
#: counted over this window, and this many clean seconds earn a step up.
LOST_AFTER = 5.0
STALL_AFTER = 30.0
DROP_WINDOW = 2.0
CLEAN_FOR = 10.0


@attrs.frozen
class Timings:
    """The policy's durations in seconds: the documented ones unless a harness shortens them."""

    lost_after: float = LOST_AFTER
    stall_after: float = STALL_AFTER
    drop_window: float = DROP_WINDOW
    clean_for: float = CLEAN_FOR

    def __attrs_post_init__(self) -> None:
        for name, value in attrs.asdict(self).items():
            if not (math.isfinite(value) and value > 0):
                raise ValueError(f"{name} must be a positive number of seconds, not {value}")


#: The documented windows and timeouts: 5 s lost, 30 s stalled, a 2 s drop window, 10 clean seconds.
DEFAULT_TIMINGS = Timings()


@attrs.frozen
class NativeConfig:
    """Where the native engines find their devices and what they drive.

    ``ANDROID_ADB_SERVER_HOST`` / ``_PORT``: the adb server (as every adb client reads
    them); ``BROWX_ANDROID_APP_SERIAL``: which Android device when several are attached;
    ``BROWX_IOS_DEVICE`` (udid or exact name), ``BROWX_IOS_APP_ID`` (required by ios-app),
    ``BROWX_IOS_APP_PATH`` (a .app to install first), ``BROWX_IOS_WDA_URL``.
    """

    adb_host: str = "127.0.0.1"
    adb_port: int = 5037
    android_serial: str | None = None
    ios_device: str | None = None
    ios_app_id: str | None = None
    ios_app_path: str | None = None
    ios_wda_url: str = "http://127.0.0.1:8100"

    @classmethod
    def from_env(cls, env: Mapping[str, str]) -> NativeConfig:
        port_text = (env.get("ANDROID_ADB_SERVER_PORT") or "5037").strip()
        if not port_text.isdigit() or not 0 < int(port_text) < 65536:
            raise ValueError(f"ANDROID_ADB_SERVER_PORT must be a port number, got {port_text!r}")
        return cls(
            adb_host=(env.get("ANDROID_ADB_SERVER_HOST") or "127.0.0.1").strip(),
            adb_port=int(port_text),
            android_serial=(env.get("BROWX_ANDROID_APP_SERIAL") or "").strip() or None,
            ios_device=(env.get("BROWX_IOS_DEVICE") or "").strip() or None,
            ios_app_id=(env.get("BROWX_IOS_APP_ID") or "").strip() or None,
            ios_app_path=(env.get("BROWX_IOS_APP_PATH") or "").strip() or None,
            ios_wda_url=(env.get("BROWX_IOS_WDA_URL") or "").strip() or "http://127.0.0.1:8100",
        )


@attrs.frozen
class RuntimeConfig:
    workspace: Path = Path(".browx")
    #: Capabilities the server grants (BROWX_CAPABILITIES).
    capabilities: frozenset[str] = DEFAULT_CAPABILITIES
    chromium: str | None = None
    #: Firefox executable for the firefox engine (BROWX_FIREFOX; default firefox-esr or firefox on PATH).
    firefox: str | None = None
    attach_cdp: str | None = None
    #: Headers every lookup and socket to an attached browser carries (``--cdp-header``,
    #: BROWX_CDP_HEADERS): a fleet's credentials, never logged.
    cdp_headers: tuple[tuple[str, str], ...] = attrs.field(default=(), repr=False)
    #: The operator's origin policy (BROWX_ALLOWED_ORIGINS / BROWX_BLOCKED_ORIGINS): what pages may reach.
    origins: OriginPolicy = attrs.field(factory=OriginPolicy)
    #: The operator's human-in-the-loop policy (BROWX_POLICY, ``--policy``): confirm rules,
    #: dialog and permission policies no tool call can lift.
    policy: OperatorPolicy = attrs.field(factory=OperatorPolicy)
    #: Seconds each step of reaching an attached browser may take (BROWX_CDP_TIMEOUT, ``--cdp-timeout``).
    cdp_timeout: float = CDP_TIMEOUT
    headless: bool = True
    #: Longest screenshot side in pixels; larger captures are scaled down to fit.
    screenshot_max_dimension: int = 2000
    #: Days a diagnostics session folder is kept (BROWX_DIAGNOSTICS_RETENTION_DAYS); 0 keeps all.
    diagnostics_retention_days: int = 30
    #: The host daemon's Unix socket and the token its hello must carry (operator-channel).
    operator_socket: str | None = None
    operator_token: str | None = attrs.field(default=None, repr=False)
    #: How actions reach the page (BROWX_ACTION_INPUT): see :data:`ACTION_INPUTS`.
    action_input: str = attrs.field(default="auto", validator=attrs.validators.in_(ACTION_INPUTS))
    #: Keep the pages' console and network records (BROWX_PAGE_RECORDING, default on);
    #: off keeps only what an action's result needs (its console errors, request counts).
    page_recording: bool = True
    #: The largest download a session saves, in bytes (BROWX_DOWNLOAD_MAX_BYTES).
    download_max_bytes: int = DOWNLOAD_MAX_BYTES
    #: Live view's windows and timeouts: the documented ones. Only a library caller can shorten
    #: them (tests against a real browser, chaos harnesses); there is no variable for it.
    stream_timings: Timings = DEFAULT_TIMINGS
    #: The native engines' devices (the README's environment table).
    native: NativeConfig = attrs.field(factory=lambda: NativeConfig())
    #: open_session's context arguments every browser session gets unless the call gives
    #: its own (``--device``, ``--viewport-size``, ...): JSON names, as the call spells them.
    session_defaults: JsonObject = attrs.field(factory=dict, repr=False)

    def __attrs_post_init__(self) -> None:
        if "operator-channel" in self.capabilities and not (self.operator_socket and self.operator_token):
            raise ValueError("the operator-channel capability needs BROWX_OPERATOR_SOCKET and BROWX_OPERATOR_TOKEN")
        if "live-view" in self.capabilities and "operator-channel" not in self.capabilities:
            raise ValueError("the live-view capability needs operator-channel on as well")

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None, **overrides: object) -> RuntimeConfig:
        env = os.environ if environ is None else environ
        values: dict[str, object] = {
            "workspace": Path(env.get("BROWX_WORKSPACE") or ".browx"),
            "capabilities": parse_capabilities(env.get("BROWX_CAPABILITIES")),
            "chromium": env.get("BROWX_CHROMIUM") or None,
            "firefox": env.get("BROWX_FIREFOX") or None,
            "attach_cdp": env.get("BROWX_ATTACH_CDP") or None,
            "cdp_headers": parse_cdp_headers((env.get("BROWX_CDP_HEADERS") or "").splitlines()),
            "cdp_timeout": parse_cdp_timeout(env.get("BROWX_CDP_TIMEOUT")),
            "origins": OriginPolicy(
                allowed=parse_origin_patterns(env.get("BROWX_ALLOWED_ORIGINS"), source="BROWX_ALLOWED_ORIGINS"),
                blocked=parse_origin_patterns(env.get("BROWX_BLOCKED_ORIGINS"), source="BROWX_BLOCKED_ORIGINS")),
            "policy": parse_policy(env.get("BROWX_POLICY")),
            "operator_socket": env.get("BROWX_OPERATOR_SOCKET") or None,
            "operator_token": env.get("BROWX_OPERATOR_TOKEN") or None,
            "diagnostics_retention_days": parse_retention_days(env.get("BROWX_DIAGNOSTICS_RETENTION_DAYS")),
            "action_input": parse_action_input(env.get("BROWX_ACTION_INPUT")),
            "page_recording": parse_switch("BROWX_PAGE_RECORDING", env.get("BROWX_PAGE_RECORDING")),
            "download_max_bytes": parse_download_max_bytes(env.get("BROWX_DOWNLOAD_MAX_BYTES")),
            "native": NativeConfig.from_env(env),
            "session_defaults": parse_session_defaults(env),
        }
        values.update({k: v for k, v in overrides.items() if v is not None})
        if isinstance(values["capabilities"], str) or not isinstance(values["capabilities"], frozenset):
            values["capabilities"] = parse_capabilities(values["capabilities"])  # type: ignore[arg-type]
        values["workspace"] = Path(values["workspace"])  # type: ignore[arg-type]
        return cls(**values)  # type: ignore[arg-type]
