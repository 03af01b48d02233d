"""Confirm rules ``on = "download"``: a person keeps or refuses what a page downloaded.

A download begins after the action that caused it, so it cannot be asked about before,
as a call is; it is asked about once its bytes have arrived, while they are still in
Playwright's own folder and before anything reaches the workspace (``saves.py`` waits
for the answer). Yes copies the file in as usual; no, no answer in time, or no human
channel leaves it out (``canceled``, with why in its ``failure``): it fails closed.
"""

from __future__ import annotations

from typing import Protocol

from ....errors import ToolError
from ....human.prompts import ending_of
from ....jsonsafe import JsonObject
from ....origins import origin_of
from ....policy.confirm import DOWNLOAD, CallFacts
from ....tools.human import PromptSpec
from ..options import SessionOptions

__all__ = ["Confirming", "refusal"]


class Confirming(Protocol):
    """What asking about a download needs of the session."""

    session_id: str
    options: SessionOptions

    @property
    def url(self) -> str: ...

    async def ask_person(self, spec: PromptSpec) -> JsonObject: ...


def wanted(options: SessionOptions) -> bool:
    """Does a rule in force ask about downloads at all? (Checked before anything waits.)"""
    return bool(options.confirm().covering(DOWNLOAD))


async def refusal(session: Confirming, url: str, name: str) -> str | None:
    """None when the download may go into the workspace, else why it may not."""
    origin = origin_of(session.url)
    rule = session.options.confirm().match(CallFacts(DOWNLOAD, origin=origin))
    if rule is None:
        return None
    spec = PromptSpec("confirm", f"The page at {origin or 'an unknown page'} downloaded {name!r} from {url}. Keep it "
                      f"in the workspace? (confirm rule: {rule.text}; session {session.session_id!r})", None,
                      session.options.policy.confirm_timeout_ms)
    try:
        answer = await session.ask_person(spec)
    except ToolError as err:  # the operator channel could not be reached
        return f"confirm rule {rule.text!r} needs a person, and none could be asked ({err.message})"
    ending = ending_of(answer)
    if ending == "answered" and answer.get("value") is True:
        return None
    if ending == "no-human-channel":
        return f"confirm rule {rule.text!r} needs a person, and the session has no human channel"
    if ending == "timeout":
        return f"confirm rule {rule.text!r}: no answer in time"
    return f"a person declined it (confirm rule {rule.text!r})"
