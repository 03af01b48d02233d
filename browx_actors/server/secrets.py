"""Registered secrets: substituted into arguments on the way in, masked on the way out.

An agent registers ``register_secret({name: "PASSWORD", value: "hunter2"})`` and then
types ``<PASSWORD>`` wherever it would type the value. The dispatch path replaces the
alias with the value just before the handler runs (so the raw value exists only inside
the action core) and rewrites every raw value in the result back to its alias. Both
walks are pure functions over JSON-shaped data.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from ..actor import ToolError

__all__ = ["SECRET_NAME", "check_secret", "mask_deep", "substitute_deep"]

SECRET_NAME = re.compile(r"^[A-Z][A-Z0-9_]{0,63}$")
_ALIAS = re.compile(r"<([A-Z][A-Z0-9_]{0,63})>")


def check_secret(name: str, value: str) -> None:
    if not SECRET_NAME.match(name):
        raise ToolError(
            "bad-arg",
            "name must be 1-64 characters of A-Z, 0-9 and _, starting with a letter",
            field="name",
        )
    if len(value) < 3:
        # Masking a one- or two-character value would rewrite unrelated text everywhere.
        raise ToolError("bad-arg", "value must be at least 3 characters", field="value")


def substitute_deep(data: Any, secrets: Mapping[str, str]) -> Any:
    """``<NAME>`` aliases in every string replaced by the registered value."""
    if not secrets:
        return data
    if isinstance(data, str):
        if "<" not in data:
            return data
        return _ALIAS.sub(lambda m: secrets.get(m.group(1), m.group(0)), data)
    if isinstance(data, dict):
        return {k: substitute_deep(v, secrets) for k, v in data.items()}
    if isinstance(data, list):
        return [substitute_deep(v, secrets) for v in data]
    return data


def mask_deep(data: Any, secrets: Mapping[str, str]) -> Any:
    """Every raw secret value in every string (and dict key) rewritten to ``<NAME>``."""
    if not secrets:
        return data
    # Longest first, so a secret that contains another is masked whole.
    pairs = sorted(((v, f"<{k}>") for k, v in secrets.items()), key=lambda p: -len(p[0]))
    return _mask(data, pairs)


def _mask(data: Any, pairs: list[tuple[str, str]]) -> Any:
    if isinstance(data, str):
        for raw, alias in pairs:
            if raw in data:
                data = data.replace(raw, alias)
        return data
    if isinstance(data, dict):
        return {_mask(k, pairs): _mask(v, pairs) for k, v in data.items()}
    if isinstance(data, (list, tuple)):
        return [_mask(v, pairs) for v in data]
    return data
