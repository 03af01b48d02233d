"""The ``ask-human`` dialog policy: a person answers the page's dialog, not the agent.

A dialog that opens under it stays open, as under ``ask`` (the call it interrupted
says so, and every other call on the tab answers ``dialog-open``), and the session asks
its person through the human channel, as ``await_human`` would: an alert is
acknowledged, a confirm or a beforeunload confirmed, a prompt's text typed. Their
answer answers the dialog, and the next result lists it (``by: person``).

Only the operator channel can carry the question: a page inside a dialog is blocked in
every world, the isolated one a person answers from in DevTools included, so that
route could never answer. It fails closed: no operator channel, no answer in time or
an abort dismisses the dialog (a page's "Are you sure?" is never accepted without a
person), and the entry says why.
If the dialog goes first (the agent navigated away, the tab closed), the question is
withdrawn.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import trio

from ....human.prompts import ending_of
from ....jsonsafe import JsonObject
from ....tools.human import PromptSpec
from .book import OpenDialog

if TYPE_CHECKING:
    from ..host import SessionHost

__all__ = ["ask_about_dialog", "verdict"]

#: How long the person has; after it the dialog is dismissed.
ASK_TIMEOUT_MS = 120_000
#: How often the asking task checks that its dialog is still the one open.
_GONE_POLL = 0.25
_KINDS = {"alert": "acknowledge", "confirm": "confirm", "beforeunload": "confirm", "prompt": "input"}


def question(pending: OpenDialog, url: str) -> PromptSpec:
    kind = _KINDS.get(pending.type, "confirm")
    what = {"acknowledge": "Acknowledge it to let the page go on.", "confirm": "Accept it (OK)?",
            "input": f"Type the answer (its default is {pending.default_value!r}), or abort to cancel."}[kind]
    return PromptSpec(kind, f"The page at {url or 'an unknown address'} opened a {pending.type} dialog: "
                      f"{pending.message!r}. {what}", None, ASK_TIMEOUT_MS)


def verdict(kind: str, answer: JsonObject) -> tuple[bool, str | None, str]:
    """(accept, prompt text, by) for a person's answer to a dialog question."""
    ending = ending_of(answer)
    if ending != "answered":  # an abort is the person cancelling
        return False, None, "person" if ending == "aborted" else ending
    value = answer.get("value")
    if kind == "input":
        return isinstance(value, str), value if isinstance(value, str) else None, "person"
    if kind == "confirm":
        return value is True, None, "person"
    return True, None, "person"  # acknowledged


# Any: a Playwright Page, or None for a dialog Playwright gives no page (the book's keys).
async def ask_about_dialog(session: SessionHost, page: Any) -> None:
    """Ask the person about the dialog open on ``page``, and answer it as they say."""
    pending = session.dialogs.open_on(page)
    if pending is None:
        return
    if session.options.operator() is None:
        await session.pw(session.dialogs.answer_open, page, False, by="no-human-channel", only=pending)
        return
    spec = question(pending, str(page.url) if page is not None else "")
    answer: JsonObject | None = None
    async with trio.open_nursery() as nursery:
        async def withdraw_when_gone() -> None:
            # The dialog ends on the Playwright thread (an answer, the tab closing): a
            # look at the book four times a second costs less than a hand-over per end.
            while session.dialogs.open_on(page) is pending:  # noqa: ASYNC110
                await trio.sleep(_GONE_POLL)
            nursery.cancel_scope.cancel()

        nursery.start_soon(withdraw_when_gone)
        try:
            answer = await session.ask_person(spec)
        except Exception as err:  # the channel could not be reached: nobody answered
            answer = {"code": "no-human-channel", "error": str(err)}
        nursery.cancel_scope.cancel()
    if answer is None:
        return  # the dialog went first
    accept, text, by = verdict(spec.kind, answer)
    await session.pw(session.dialogs.answer_open, page, accept, prompt_text=text, by=by, only=pending)
