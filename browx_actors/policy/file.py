"""The operator's policy file (``--policy FILE``, ``BROWX_POLICY``): read once, at start.

TOML or JSON, by the file's extension::

    confirmTimeoutMs = 120000          # how long a confirm prompt waits (default 2 min)
    dialogs = "ask-human"              # every session's dialog policy, locked

    [[confirm]]                        # any number of rules (policy/confirm.py)
    tools = ["click", "press"]
    name = "Pay|Delete|Place order"

    [[confirm]]
    on = "upload"

    [permissions]                      # every session's permission policy, locked
    default = "deny"
    perPermission = { geolocation = "ask-human" }

What the file sets, no tool call can lift (``book.py``). A key the file does not know,
or a value of the wrong kind, fails the start naming the key and the file: a policy
that is silently half read is worse than none.
"""

from __future__ import annotations

import json
import tomllib
from collections.abc import Mapping
from pathlib import Path

import attrs

from .confirm import ConfirmPolicy, rule_from
from .permissions import PermissionPolicy, permission_policy_from

__all__ = ["CONFIRM_TIMEOUT_MS", "DIALOG_ANSWERS", "OperatorPolicy", "load_policy", "policy_from"]

#: How long a confirm prompt waits for its person unless the policy says otherwise.
CONFIRM_TIMEOUT_MS = 120_000
#: The dialog policies a file may set (set_dialog_policy's values).
DIALOG_ANSWERS = ("accept", "dismiss", "ask", "ask-human")
_KEYS = ("confirm", "confirmTimeoutMs", "dialogs", "permissions")


@attrs.frozen
class OperatorPolicy:
    """What the operator set; None where the file says nothing (the agent may set it)."""

    confirm: ConfirmPolicy = attrs.field(factory=ConfirmPolicy)
    confirm_timeout_ms: int = CONFIRM_TIMEOUT_MS
    dialogs: str | None = None
    permissions: PermissionPolicy | None = None
    #: The file it came from (None: no file).
    source: str | None = None

    def check_tools(self, known: frozenset[str]) -> None:
        """ValueError naming the rule whose ``tools`` names no tool of ``known`` (the
        catalog's; this layer does not know the tools, so the server asks at start)."""
        for i, rule in enumerate(self.confirm.rules):
            strange = sorted((rule.tools or frozenset()) - known)
            if strange:
                raise ValueError(f"policy file {self.source!r}: confirm[{i}].tools: no tool named {strange[0]!r}")


def load_policy(path: Path, *, known_tools: frozenset[str] | None = None) -> OperatorPolicy:
    """Read and check the file; ValueError naming the file and the key. ``known_tools``
    (when given) are the names a rule's ``tools`` may use; the dispatch checks them
    against its catalog at start either way (this layer does not know the tools)."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as err:
        raise ValueError(f"policy file {str(path)!r}: {err.strerror or err}") from err
    try:
        if path.suffix == ".toml":
            raw: object = tomllib.loads(text)
        elif path.suffix == ".json":
            raw = json.loads(text)
        else:
            raise ValueError("the file's extension must be .toml or .json")
        return policy_from(raw, known_tools=known_tools, source=str(path))
    except (ValueError, tomllib.TOMLDecodeError) as err:
        raise ValueError(f"policy file {str(path)!r}: {err}") from err


def policy_from(raw: object, *, known_tools: frozenset[str] | None = None,
                source: str | None = None) -> OperatorPolicy:
    """The policy a parsed file describes; ValueError naming the key."""
    if not isinstance(raw, Mapping):
        raise ValueError("the policy is a table of " + ", ".join(_KEYS))
    unknown = sorted(set(raw) - set(_KEYS))
    if unknown:
        raise ValueError(f"{unknown[0]}: unknown key (a policy has {', '.join(_KEYS)})")
    rules = raw.get("confirm", [])
    if not isinstance(rules, list):
        raise ValueError("confirm: a list of rules ([[confirm]] tables)")
    confirm = ConfirmPolicy(tuple(rule_from(rule, f"confirm[{i}]", known_tools=known_tools)
                                  for i, rule in enumerate(rules)))
    timeout = raw.get("confirmTimeoutMs", CONFIRM_TIMEOUT_MS)
    if isinstance(timeout, bool) or not isinstance(timeout, int) or not 1_000 <= timeout <= 3_600_000:
        raise ValueError("confirmTimeoutMs: milliseconds, from 1000 to 3600000")
    dialogs = raw.get("dialogs")
    if dialogs is not None and dialogs not in DIALOG_ANSWERS:
        raise ValueError(f"dialogs: one of {', '.join(DIALOG_ANSWERS)}, got {dialogs!r}")
    table = raw.get("permissions")
    granted = None
    if table is not None:
        if not isinstance(table, Mapping) or set(table) - {"default", "perPermission"}:
            raise ValueError("permissions: a table of default and perPermission")
        granted = permission_policy_from(table.get("default"), table.get("perPermission"), "permissions")
    return OperatorPolicy(confirm, timeout, dialogs, granted, source)
