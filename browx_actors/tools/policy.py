"""The policy tools: set_confirm_policy, set_permission_policy, permission_state.

All three have the ``policy`` capability, off by default: a tool that changes a policy
is one the operator hands the agent on purpose (docs/security.md). Whatever they set is
added to the operator's policy file, never put in its place (``policy/book.py``).
"""

from __future__ import annotations

from ..errors import ToolError
from ..jsonsafe import JsonObject
from ..policy.confirm import KINDS, rule_from
from ..policy.permissions import ANSWERS, permission_policy_from
from .arguments import arguments, param
from .contract import CHANGES, READS, SessionArgs, runtime_tool, session_tool
from .rules import Check, JsonArgs

__all__ = ["PERMISSION_STATE", "SET_CONFIRM_POLICY", "SET_PERMISSION_POLICY"]

#: Most confirm rules one session may add.
MAX_RULES = 20
_RULE = {
    "tools": {"type": "array"},
    "on": {"type": "string", "enum": list(KINDS)},
    "role": {"type": "string", "maxLength": 200},
    "name": {"type": "string", "maxLength": 200},
    "origins": {"type": "array"},
}


def _check_rules(args: JsonArgs) -> None:
    for i, rule in enumerate(args["rules"]):
        try:
            rule_from(rule, f"rules[{i}]")
        except ValueError as err:
            field = str(err).split(":", 1)[0]
            raise ToolError("bad-arg", str(err), field=field) from err


@arguments
class SetConfirmPolicyArgs(SessionArgs):
    """set_confirm_policy's arguments."""

    rules: list[JsonObject] = param("rules", "array", "Each {tools?, on?, role?, name?, origins?}; [] clears.",
                                    required=True, items="object", max_items=MAX_RULES, properties=_RULE)


SET_CONFIRM_POLICY = runtime_tool(
    "set_confirm_policy", SetConfirmPolicyArgs,
    title="Set confirm policy", capability="policy", hints=CHANGES,
    summary="Calls a person must approve before they run, for this session.",
    description="Replace the session's own confirm rules (the operator's always apply too). A matching call first "
        "asks a person (await_human confirm) and runs only on yes: confirmation-denied or confirmation-timeout "
        "otherwise, no-human-channel where none exists. A rule's fields narrow it: tools (names), on (submit, "
        "upload, eval, download, off-allow-list: navigate or new_tab off the operator's allowed origins, asked about "
        "instead of refused), role and name (case-insensitive regex on the target), origins (page origin patterns).",
    rules=(Check(_check_rules, "each rule is well formed and names something"),),
)


def _check_permissions(args: JsonArgs) -> None:
    try:
        permission_policy_from(args.get("default"), args.get("perPermission"), "")
    except ValueError as err:
        where = str(err).split(":", 1)[0].lstrip(".")
        raise ToolError("bad-arg", str(err).lstrip("."), field=where or "perPermission") from err


@arguments
class SetPermissionPolicyArgs(SessionArgs):
    """set_permission_policy's arguments."""

    default: str | None = param("default", "string", "For permissions not named.", enum=ANSWERS)
    per_permission: JsonObject | None = param("perPermission", "object",
                                              "{geolocation: deny, camera: ask-human, ...}: wins over default.")


SET_PERMISSION_POLICY = session_tool(
    "set_permission_policy", SetPermissionPolicyArgs,
    title="Set permission policy", capability="policy", hints=CHANGES,
    summary="Answer the pages' permission requests: allow, deny or ask-human, per permission.",
    description="How the session answers a page's permission requests: allow, deny, or ask-human (a person "
        "answers through the human channel; without one, or without an answer in time, it is denied). A person "
        "is asked when a page requests geolocation, notifications, camera, microphone or clipboard-read; any "
        "other permission under ask-human stays denied. Calls during which a page asked list it in "
        "permissionRequests. perPermission's names are emulate's permissions.",
    rules=(Check(_check_permissions, "answers are allow, deny or ask-human"),),
)


PERMISSION_STATE = session_tool(
    "permission_state", SessionArgs,
    title="Permission state", capability="policy", hints=READS,
    summary="The permission policy in force and what the current page's origin holds.",
    description="The session's permission policy (and whether the operator set it), and the state of each "
        "permission for the current page's origin (granted, denied or prompt), as the page would read it.",
)
