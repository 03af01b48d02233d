"""What policy is in force for each session, and what a tool call may not change.

The runtime keeps one :class:`PolicyBook`. The operator's policy (the file) applies to
every session and cannot be lifted: a session's own confirm rules (``set_confirm_policy``)
are added to the operator's, never put in their place, and a dialog or permission
policy the file set refuses the tool that would change it (``policy-locked``). The tools
that change policy are further off unless the operator enables the ``policy``
capability.
"""

from __future__ import annotations

import attrs

from ..errors import ToolError
from .confirm import ConfirmPolicy
from .file import OperatorPolicy

__all__ = ["LOCKING", "PolicyBook"]

#: The tools that change a policy the operator's file may have set, and what they change.
LOCKING = {"set_dialog_policy": "dialogs", "set_permission_policy": "permissions"}


@attrs.define
class PolicyBook:
    operator: OperatorPolicy = attrs.field(factory=OperatorPolicy)
    #: Confirm rules a session added with set_confirm_policy, by session id.
    _own: dict[str, ConfirmPolicy] = attrs.field(factory=dict)
    #: Origins off the allow list a person let a session reach, by session id.
    _admitted: dict[str, frozenset[str]] = attrs.field(factory=dict)

    def confirm_for(self, session: str) -> ConfirmPolicy:
        own = self._own.get(session)
        return self.operator.confirm if own is None else self.operator.confirm + own

    def set_own(self, session: str, rules: ConfirmPolicy) -> None:
        if rules.rules:
            self._own[session] = rules
        else:
            self._own.pop(session, None)

    def own(self, session: str) -> ConfirmPolicy:
        return self._own.get(session, ConfirmPolicy())

    def forget(self, session: str) -> None:
        self._own.pop(session, None)
        self._admitted.pop(session, None)

    def admit(self, session: str, origin: str) -> None:
        self._admitted[session] = self.admitted(session) | {origin}

    def admitted(self, session: str) -> frozenset[str]:
        return self._admitted.get(session, frozenset())

    def asks_off_list(self, session: str, tool: str) -> bool:
        """Would a rule ask about ``tool`` loading an origin off the allow list?"""
        return any(rule.on == "off-allow-list" for rule in self.confirm_for(session).covering(tool))

    def refuse_if_locked(self, tool: str) -> None:
        """``policy-locked`` for a tool that would change what the operator's file set."""
        what = LOCKING.get(tool)
        if what is None:
            return
        if getattr(self.operator, what) is not None:
            raise ToolError("policy-locked", f"{tool}: the operator's policy file ({self.operator.source}) sets "
                            f"the {what} policy, and no tool call can change it", tool=tool, policy=what)
