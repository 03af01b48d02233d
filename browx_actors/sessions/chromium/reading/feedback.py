"""``find_feedback``: what the page showed in response, in one call.

After an action an agent wants to know what the page said: a toast, an alert, a status
line, the message under a field that failed validation. ``find_feedback`` reads them
all at once through the page agent (``agent/feedback.js``): ARIA live regions and the
roles that are live (``alert``, ``alertdialog``, ``status``, ``log``, ``<output>``),
toasts and snackbars by the class names their libraries use, fields the browser holds
invalid after the user touched them (``:user-invalid``, with the browser's own
``validationMessage``) and fields marked ``aria-invalid`` (with the text their
``aria-errormessage`` or ``aria-describedby`` points at). Each item has a ref and says
whether it is ``new``: not on the page, or with another text, when the last action
began. The firefox engine runs this same handler (its agent is the same script); the
engines that read a native hierarchy implement the same name over it.
"""

from __future__ import annotations

from ....tools import Reply
from ....tools.reading import FindFeedbackArgs
from ..agent.calls import AgentHost, agent_call

__all__ = ["find_feedback"]


async def find_feedback(session: AgentHost, args: FindFeedbackArgs) -> Reply:
    found = await agent_call(session, "findFeedback", {"limit": 10_000 if args.new_only else args.limit})
    items = found["items"]
    count = found["count"]
    if args.new_only:
        items = [item for item in items if item["new"]]
        count = len(items)
        items = items[: args.limit]
    return Reply.of(items=items, count=count, truncated=count > len(items), sinceAction=found["baseline"])


