"""The dialog tools of the chromium engine: ``handle_dialog`` and ``set_dialog_policy``.

A dialog the session keeps open (policy ``ask``, :mod:`.dialogs.book`) blocks its page, and
every other tool on that tab answers ``dialog-open`` until ``handle_dialog`` answers
it. The answer lets the page go on from where it stopped (``confirm()`` returns, a
prompt's text arrives, a beforeunload lets the navigation proceed), so
``handle_dialog`` settles and reports like an action: what the page did next, from
the mark of the action that opened the dialog.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ....errors import ToolError
from ....tools import Reply
from ....tools.actions import HandleDialogArgs, SetDialogPolicyArgs
from ..input.brief import brief
from ..input.send import releases_applied
from ..input.settle import Before, settle
from .asking import ask_about_dialog
from .book import dialog_warning

if TYPE_CHECKING:
    from ..session import ChromiumSession

__all__ = ["handle_dialog", "set_dialog_policy"]



async def handle_dialog(session: ChromiumSession, args: HandleDialogArgs) -> Reply:
    page = session.page
    pending = session.dialogs.open_on(page)
    if pending is None:
        raise ToolError("no-dialog", "no dialog is open on the current tab; nothing to answer")
    if session.dialogs.policy == "ask-human" and session.options.policy.dialogs is not None:
        raise ToolError("policy-locked", "the operator's policy has a person answer every dialog (ask-human); "
                        "the agent cannot answer it", policy="dialogs")
    before = Before.of(session)
    reply = Reply(warnings=[])
    answered = await session.pw(session.dialogs.answer, page, args.accept, args.prompt_text)
    if answered is None:  # answered or gone meanwhile (the tab closed)
        raise ToolError("no-dialog", "the dialog was gone before it could be answered")
    await releases_applied(session)
    with session.dialogs.interruptible(page) as another:
        await session.pw(settle, session, "handle_dialog", before, None, reply)
    reply["answered"] = {**answered.describe(), "answer": "accepted" if args.accept else "dismissed"}
    if another.cancelled_caught:  # the page opened the next dialog at once
        described = session.dialogs.open_on(page)
        reply.fields.update(dialog=None if described is None else described.describe(),
                            settled={"by": "dialog"})
        reply.warn(dialog_warning(reply["dialog"], "handle_dialog"))
    reply.fields = brief(reply.fields)
    return reply


async def set_dialog_policy(session: ChromiumSession, args: SetDialogPolicyArgs) -> Reply:
    if args.policy == "ask-human" and session.options.operator() is None:
        raise ToolError("no-human-channel", "a page in a dialog is blocked in every world, the isolated one "
                        "DevTools answers from included, so a person can answer dialogs only through the operator "
                        f"channel, which is off; the dialog policy stays {session.dialogs.policy}")
    previous = session.dialogs.policy
    session.dialogs.policy = args.policy
    # The dialog open now is answered by the new policy too (listed in dialogs).
    if args.policy in ("accept", "dismiss"):
        await session.pw(session.dialogs.answer_open, session.page, args.policy == "accept")
    elif args.policy == "ask-human" and previous != "ask-human" and session.dialogs.open_on(session.page):
        session.nursery.start_soon(ask_about_dialog, session, session.page)
    return Reply.of(policy=args.policy, previous=previous)


