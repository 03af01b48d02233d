"""The ``await_human`` declaration (capability ``human``).

Declared apart from the web tools because its call is not an ordinary session call:
it may legitimately wait up to the one-hour cap, so it asks the session with a call
timeout derived from its own ``timeoutMs`` instead of the usual two minutes, and it
picks the channel (the operator daemon when operator-channel is on, else the session's
isolated world) before it reaches the session. The prompt text leaves the server (on
stderr, or to the daemon), so registered secrets are masked in it first, as they would
be in any result.
"""

from __future__ import annotations

import functools
from typing import Any

import attrs

from ..human import await_human
from ..human.prompts import DEFAULT_TIMEOUT_MS, KINDS, MAX_TIMEOUT_MS, parse_request
from .registry import Tool, session_param
from .schema import Param
from .secrets import mask_deep

__all__ = ["human_tools"]

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


async def _await_human(runtime: Any, args: dict[str, Any]) -> Any:
    spec = parse_request(args)
    secrets: dict[str, str] = {}
    for registered in runtime.secrets.values():
        secrets.update(registered)
    if secrets:
        masked = mask_deep({"prompt": spec.prompt, "choices": list(spec.choices or ())}, secrets)
        spec = attrs.evolve(spec, prompt=masked["prompt"],
                            choices=tuple(masked["choices"]) if spec.choices is not None else None)
    fn = functools.partial(await_human.in_session, spec=spec, operator=runtime.operator_ref())
    return await runtime.call_session(args["session"], "await_human", fn, args,
                                      timeout=spec.timeout_s + _CALL_GRACE)


def human_tools() -> list[Tool]:
    return [
        Tool("await_human", "human", DESCRIPTION, (
            Param("kind", "string", "What kind of answer to wait for.", default="acknowledge", enum=KINDS),
            Param("prompt", "string", "What to ask the human.", required=True),
            Param("choices", "array", "The options for kind choose; the answer is an index.", items="string"),
            Param("timeoutMs", "integer", f"How long to wait (capped at {MAX_TIMEOUT_MS}).",
                  default=DEFAULT_TIMEOUT_MS, minimum=0),
            session_param(),
        ), _await_human),
    ]
