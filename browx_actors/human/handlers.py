"""The ``await_human`` tool (capability ``human``).

A runtime tool, not an ordinary session tool, for two reasons. A prompt may wait up to
the one-hour cap, so it asks the session with a call timeout derived from its own
``timeoutMs`` instead of the usual two minutes; and it picks the channel (the operator
daemon when operator-channel is on, else the session's isolated world) before it
reaches the session. The prompt text leaves the server (on stderr, or to the daemon),
so its parameters are declared ``secrets="mask"``: the dispatch masks registered
secrets in them instead of substituting aliases, as it would in any result.
"""

from __future__ import annotations

import functools

from ..tools.context import RuntimeContext
from ..tools.human import AwaitHumanArgs, parse_request
from . import await_human as human

__all__ = ["await_human"]

#: Beyond the prompt's own timeout, for the session to answer after it fired.
_CALL_GRACE = 30.0


async def await_human(runtime: RuntimeContext, args: AwaitHumanArgs) -> object:
    spec = parse_request(args.kind, args.prompt, args.choices, args.timeout_ms)
    fn = functools.partial(human.in_session, operator=runtime.operator_ref())
    return await runtime.call_session(args.session, "await_human", fn, spec, timeout=spec.timeout_s + _CALL_GRACE)


