"""The body of ``await_human``: it runs inside the session actor and picks the channel.

The tool is a runtime tool whose body runs inside the session actor (ordered with the
session's other calls; ``handlers.py``), but a prompt may wait up to an hour, so the
body returns :class:`~browx_actors.kernel.actor.Later` at once: the wait is a task in
the session's nursery, the mailbox keeps serving the session's other tools meanwhile,
and closing the session cancels the wait with it.

Which channel answers:

* operator-channel on: the host daemon, through the runtime's ``OperatorChannel``
  actor. No CDP is involved, so this works for any engine, and DevTools answers do
  not count (the bridge has no prompt open, so it drops them).
* otherwise the session's isolated-world bridge (``session.human``). A session
  without one (an engine with no isolated world) answers at once with
  ``no-human-channel``: that attribute is the whole seam an engine needs.
"""

from __future__ import annotations

import contextlib
from typing import Protocol

import trio

from ..errors import ToolError
from ..jsonsafe import JsonObject
from ..kernel.actor import Later
from ..kernel.actor_ref import ActorRef, ActorUnavailable
from .operator import CancelPrompt, OperatorPrompt
from .prompts import Outcome, PromptSpec, result_envelope

__all__ = ["Asking", "ask_operator", "ask_person", "in_session"]

#: Added to the prompt's own timeout for the call to the operator actor, which
#: enforces the timeout itself; this only bounds a wedged actor.
_CALL_GRACE = 10.0


class Asking(Protocol):
    """What asking a human needs of the session: its id, its engine, and (read by name,
    since only a chromium session has one) its isolated-world ``human`` bridge."""

    @property
    def session_id(self) -> str: ...

    @property
    def engine(self) -> str: ...


async def in_session(session: Asking, spec: PromptSpec, *, operator: ActorRef | None = None) -> JsonObject | Later:
    """``fn(session, args)`` for the session actor, whose arguments are the request,
    already validated."""
    if spec.kind == "pick_element":
        return result_envelope(spec.kind, Outcome(
            code="not-available",
            error="pick_element (the in-page hover-pick overlay) is not yet available: it needs "
                  "the shadow-DOM banner UI; use kind confirm, choose or input",
        ))
    if operator is not None:
        return Later.of(ask_operator, operator, session.session_id, spec)
    bridge = getattr(session, "human", None)
    if bridge is None:
        return result_envelope(spec.kind, Outcome(code="no-human-channel", error=_no_channel(session.engine)))
    return Later.of(bridge.ask, spec)


async def ask_person(session: Asking, spec: PromptSpec, *, operator: ActorRef | None = None) -> JsonObject:
    """Ask through the session's channel and wait for the end: what a policy needs (an
    ask-human dialog or permission), where the tool returns :class:`Later` instead.
    ``no-human-channel`` in the envelope when there is none: the caller fails closed."""
    if operator is not None:
        return await ask_operator(operator, session.session_id, spec)
    bridge = getattr(session, "human", None)
    if bridge is None:
        return result_envelope(spec.kind, Outcome(code="no-human-channel", error=_no_channel(session.engine)))
    answer: JsonObject = await bridge.ask(spec)
    return answer


def _no_channel(engine: str) -> str:
    return (f"the {engine} engine has no isolated world for a human to answer from; start the server with the "
            "operator-channel capability to send prompts to the host daemon")


async def ask_operator(operator: ActorRef, session_id: str, spec: PromptSpec) -> JsonObject:
    """Ask through the operator actor; if our caller goes away first, withdraw the prompt."""
    ended = False
    try:
        outcome = await operator.call(OperatorPrompt(session_id, spec), timeout=spec.timeout_s + _CALL_GRACE)
        ended = True
    except ToolError:
        ended = True
        raise
    except ActorUnavailable as gone:
        ended = True
        outcome = Outcome(code="operator-channel-down", error=f"the operator channel stopped ({gone.reason})")
    finally:
        if not ended:
            with trio.CancelScope(shield=True), trio.move_on_after(1), contextlib.suppress(ActorUnavailable):
                await operator.cast(CancelPrompt(session_id))
    return result_envelope(spec.kind, outcome)
