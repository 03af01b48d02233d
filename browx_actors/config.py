"""Runtime configuration: capabilities, workspace and browser settings.

Read once from the environment (the variables in the README), overridable by keyword
arguments to :func:`~browx_actors.open_runtime` and by the ``serve`` command's flags.
Parsing is pure so it is tested without a runtime.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from pathlib import Path

import attrs

__all__ = [
    "ALL_CAPABILITIES",
    "DEFAULT_CAPABILITIES",
    "RuntimeConfig",
    "parse_capabilities",
]

#: On unless a gate says otherwise.
DEFAULT_CAPABILITIES = frozenset({"read", "navigation", "action", "human"})
#: Off until named in BROWX_CAPABILITIES (server) and allowed by the client.
OPT_IN_CAPABILITIES = frozenset(
    {"eval", "secrets", "canvas", "diagnostics", "native-device", "operator-channel", "live-view"}
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


@attrs.frozen
class RuntimeConfig:
    workspace: Path = Path(".browx")
    #: Capabilities the server grants (BROWX_CAPABILITIES).
    capabilities: frozenset[str] = DEFAULT_CAPABILITIES
    chromium: str | None = None
    attach_cdp: str | None = None
    headless: bool = True
    #: Longest screenshot side in pixels; larger captures are scaled down to fit.
    screenshot_max_dimension: int = 2000

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None, **overrides: object) -> RuntimeConfig:
        env = os.environ if environ is None else environ
        values: dict[str, object] = {
            "workspace": Path(env.get("BROWX_WORKSPACE") or ".browx"),
            "capabilities": parse_capabilities(env.get("BROWX_CAPABILITIES")),
            "chromium": env.get("BROWX_CHROMIUM") or None,
            "attach_cdp": env.get("BROWX_ATTACH_CDP") or None,
        }
        values.update({k: v for k, v in overrides.items() if v is not None})
        if isinstance(values["capabilities"], str) or not isinstance(values["capabilities"], frozenset):
            values["capabilities"] = parse_capabilities(values["capabilities"])  # type: ignore[arg-type]
        values["workspace"] = Path(values["workspace"])  # type: ignore[arg-type]
        return cls(**values)  # type: ignore[arg-type]
