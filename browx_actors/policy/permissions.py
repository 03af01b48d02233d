"""Permission policies: how a page's request for a permission is answered. Pure, no I/O.

``set_permission_policy {default, perPermission}`` or the policy file's ``[permissions]``
table: each permission is ``allow``, ``deny`` or ``ask-human`` (a person answers through
the session's human channel, as a confirm prompt). What is not named takes ``default``;
with no policy at all the browser's own answer stands (headless: a prompt nobody
answers, so the page's request waits or is denied, as the engine does).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Literal, cast

import attrs

__all__ = ["ANSWERS", "PERMISSION_NAMES", "Answer", "PermissionPolicy", "permission_policy_from"]

Answer = Literal["allow", "deny", "ask-human"]
ANSWERS: tuple[Answer, ...] = ("allow", "deny", "ask-human")
#: The permissions a policy (and emulate, and open_session) may name, as Chromium calls them.
PERMISSION_NAMES = ("geolocation", "notifications", "camera", "microphone", "clipboard-read", "clipboard-write",
                    "midi", "midi-sysex", "background-sync", "payment-handler", "storage-access", "local-fonts",
                    "idle-detection", "screen-wake-lock", "accelerometer", "gyroscope", "magnetometer",
                    "ambient-light-sensor", "window-management")


@attrs.frozen
class PermissionPolicy:
    """``default`` for every permission, ``per`` for the ones named."""

    default: Answer | None = None
    per: Mapping[str, Answer] = attrs.field(factory=dict)

    @property
    def active(self) -> bool:
        return self.default is not None or bool(self.per)

    def answer(self, permission: str) -> Answer | None:
        """How a request for ``permission`` is answered (None: the policy says nothing)."""
        return self.per.get(permission, self.default)

    def asks(self) -> bool:
        """Does any permission go to a person?"""
        return self.default == "ask-human" or "ask-human" in self.per.values()

    def describe(self) -> dict[str, object]:
        return {"default": self.default, "perPermission": dict(self.per)}


def permission_policy_from(default: object, per: object, where: str, *,
                           names: tuple[str, ...] = PERMISSION_NAMES) -> PermissionPolicy:
    """A policy from its fields; ValueError naming ``where`` and the field."""
    if default is not None and default not in ANSWERS:
        raise ValueError(f"{where}.default: one of {', '.join(ANSWERS)}, got {default!r}")
    table: dict[str, Answer] = {}
    if per is not None:
        if not isinstance(per, dict):
            raise ValueError(f"{where}.perPermission: a table of permission = answer")
        for name, answer in per.items():
            if name not in names:
                raise ValueError(f"{where}.perPermission.{name}: not a permission ({', '.join(names)})")
            if answer not in ANSWERS:
                raise ValueError(f"{where}.perPermission.{name}: one of {', '.join(ANSWERS)}, got {answer!r}")
            table[name] = cast(Answer, answer)
    return PermissionPolicy(default, table)
