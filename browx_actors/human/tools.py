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
from typing import Any

from ..tools import Args, Check, Param, runtime_tool, session_param
from ..tools.context import RuntimeContext
from ..tools.params import MAX_ID
from . import await_human as human
from .prompts import DEFAULT_TIMEOUT_MS, KINDS, MAX_TIMEOUT_MS, parse_request

__all__ = ["TOOLS", "await_human"]

#: Beyond the prompt's own timeout, for the session to answer after it fired.
_CALL_GRACE = 30.0

DESCRIPTION = (
    "Wait for the human and return their answer as {kind, value, timedOut}. kind: acknowledge "
    "(default; value is what was passed to __browx.proceed, often null), confirm (true/false), "
    "choose (an index into choices), input (a string); pick_element is not yet available. "
    "The prompt and a short ticket are written to the server's stderr: the human answers from "
    "DevTools in the session's browxai-<random> isolated world, or, with the operator-channel "
    "capability, through the host daemon (operator-aborted when it aborts). timeoutMs defaults "
    f"to {DEFAULT_TIMEOUT_MS} and is capped at {MAX_TIMEOUT_MS}; an unanswered prompt returns "
    "timedOut: true. Engines without an isolated world answer no-human-channel at once. The "
    "session's other tools keep working while it waits."
)


def _check(args: Args) -> None:
    parse_request(args)


def _prepare(args: Args) -> Args:
    return {**args, "spec": parse_request(args)}


@runtime_tool(
    "await_human", "human", DESCRIPTION,
    params=(
        Param("kind", "string", "What kind of answer to wait for.", default="acknowledge", enum=KINDS),
        Param("prompt", "string", "What to ask the human.", required=True, secrets="mask"),
        Param("choices", "array", "The options for kind choose; the answer is an index.", items="string",
              secrets="mask"),
        Param("timeoutMs", "integer", f"How long to wait (capped at {MAX_TIMEOUT_MS}).",
              default=DEFAULT_TIMEOUT_MS, minimum=0, maximum=MAX_ID),
        session_param(),
    ),
    rules=(Check(_check, "`choices` (2 or more) go with kind `choose` only; `prompt` is not blank"),),
    prepare=_prepare,
)
async def await_human(runtime: RuntimeContext, args: Args) -> Any:
    spec = args["spec"]
    fn = functools.partial(human.in_session, spec=spec, operator=runtime.operator_ref())
    return await runtime.call_session(args["session"], "await_human", fn, args,
                                      timeout=spec.timeout_s + _CALL_GRACE)


TOOLS = [await_human]
