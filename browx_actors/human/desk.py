"""The waiting room for prompts: tickets in, answers matched, timeouts as cancel scopes.

Both channels (the isolated-world bridge and the operator socket) keep their open
prompts on a :class:`PromptDesk`. The desk does no I/O: a channel calls :meth:`offer`
when an answer arrives and :meth:`end` when its transport dies, and the tool's task
awaits :meth:`PromptDesk.wait`, whose deadline is a ``trio.move_on_after`` around one
event. So the whole timing contract (default, cap, denial at the timeout, answers after
the end dropped) runs under ``trio.testing.MockClock`` without a browser or a socket.

One prompt per session at a time: a human answers *the* current ticket, and a second
prompt on top of a waiting one would leave them guessing which is which.
"""

from __future__ import annotations

import hmac
from collections.abc import Awaitable, Callable

import attrs
import trio

from ..errors import ToolError
from ..jsonsafe import JsonValue
from .prompts import (
    Aborted,
    Accepted,
    Dropped,
    Outcome,
    PromptSpec,
    check_answer,
    new_ticket,
)

__all__ = ["OpenPrompt", "PromptDesk"]


@attrs.define(eq=False)
class OpenPrompt:
    """A prompt that is waiting. Settled once; later settles are ignored."""

    session: str
    ticket: str
    spec: PromptSpec
    #: Set by a channel that handed the prompt to a transport (the operator link it was
    #: written on), so a drop of that transport can end exactly its prompts.
    delivered_on: object = None
    done: trio.Event = attrs.Factory(trio.Event)
    outcome: Outcome | None = None

    def settle(self, outcome: Outcome) -> bool:
        if self.outcome is not None:
            return False
        self.outcome = outcome
        self.done.set()
        return True


class PromptDesk:
    """Open prompts by session and by ticket."""

    def __init__(self, *, tickets: Callable[[], str] = new_ticket, aborted_code: str = "human-aborted") -> None:
        self._by_session: dict[str, OpenPrompt] = {}
        self._by_ticket: dict[str, OpenPrompt] = {}
        self._tickets = tickets
        self._aborted_code = aborted_code

    def open(self, session: str, spec: PromptSpec, ticket: str | None = None) -> OpenPrompt:
        """Register a prompt; ``human-busy`` if the session already has one waiting."""
        waiting = self._by_session.get(session)
        if waiting is not None:
            raise ToolError(
                "human-busy",
                f"session {session!r} already waits for the human on ticket {waiting.ticket}; "
                "one prompt at a time",
                session=session, ticket=waiting.ticket,
            )
        ticket = ticket or self._tickets()
        while ticket in self._by_ticket:
            ticket = self._tickets()
        prompt = OpenPrompt(session, ticket, spec)
        self._by_session[session] = prompt
        self._by_ticket[ticket] = prompt
        return prompt

    def get(self, ticket: str) -> OpenPrompt | None:
        for known, prompt in self._by_ticket.items():
            if hmac.compare_digest(known.encode(), ticket.encode()):
                return prompt
        return None

    def prompts(self) -> list[OpenPrompt]:
        return list(self._by_ticket.values())

    def offer(self, ticket: str | None, method: str, value: JsonValue) -> Accepted | Aborted | Dropped:
        """An answer arrived: settle its prompt if the ticket and the value fit."""
        if not isinstance(ticket, str) or not ticket:
            return Dropped("no-ticket", "an answer needs the prompt's ticket as its last argument")
        prompt = self.get(ticket)
        if prompt is None or prompt.outcome is not None:
            return Dropped("unknown-ticket", "no prompt with that ticket is waiting (wrong, or already ended)")
        verdict = check_answer(prompt.spec, method, value)
        if isinstance(verdict, Accepted):
            prompt.settle(Outcome(value=verdict.value))
        elif isinstance(verdict, Aborted):
            prompt.settle(Outcome(code=self._aborted_code, error=verdict.reason or "no reason given"))
        return verdict

    def end(self, prompt: OpenPrompt, outcome: Outcome) -> None:
        """End a prompt without an answer (its transport died, its caller went away)."""
        prompt.settle(outcome)

    def close(self, prompt: OpenPrompt) -> None:
        self._by_ticket.pop(prompt.ticket, None)
        if self._by_session.get(prompt.session) is prompt:
            del self._by_session[prompt.session]

    async def wait(
        self,
        prompt: OpenPrompt,
        deliver: Callable[[OpenPrompt], Awaitable[None]] | None = None,
    ) -> Outcome:
        """Wait for the prompt's outcome until its timeout; always closes the prompt.

        ``deliver`` (if any) runs first, inside the same deadline: a prompt that could
        not even be delivered in time is just as unanswered. At the deadline the prompt
        is denied (``timedOut: true``); an answer that arrives afterwards finds no
        ticket and is dropped.
        """
        try:
            with trio.move_on_after(prompt.spec.timeout_s):
                if deliver is not None:
                    await deliver(prompt)
                await prompt.done.wait()
            prompt.settle(Outcome(timed_out=True))
        finally:
            self.close(prompt)
        assert prompt.outcome is not None
        return prompt.outcome
