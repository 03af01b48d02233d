"""``set_confirm_policy``: the confirm rules a session adds to the operator's.

A runtime tool, because the rules are the dispatch's (it asks the person before the
call reaches the session), kept in the runtime's :class:`~browx_actors.policy.book.PolicyBook`.
The operator's rules always apply; this replaces only what the session added before.
"""

from __future__ import annotations

from .. import tools
from ..clients import named
from ..errors import ToolError
from ..policy.confirm import ConfirmPolicy, rule_from
from ..tools import Reply
from ..tools.context import RuntimeContext
from ..tools.policy import SetConfirmPolicyArgs

__all__ = ["set_confirm_policy"]


async def set_confirm_policy(runtime: RuntimeContext, args: SetConfirmPolicyArgs) -> Reply:
    session = args.session
    if named(session) != "default" and session not in await runtime.session_ids():
        raise ToolError("unknown-session", f"no open session {named(session)!r}; open it with open_session first",
                        session=named(session))
    known = frozenset(tool.name for tool in tools.ALL)
    try:
        rules = ConfirmPolicy(tuple(rule_from(rule, f"rules[{i}]", known_tools=known)
                                    for i, rule in enumerate(args.rules)))
    except ValueError as err:
        raise ToolError("bad-arg", str(err), field=str(err).split(":", 1)[0]) from err
    runtime.policy.set_own(session, rules)
    return Reply.of(rules=[rule.text for rule in rules.rules],
                    operatorRules=[rule.text for rule in runtime.policy.operator.confirm.rules])
