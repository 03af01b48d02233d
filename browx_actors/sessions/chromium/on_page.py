"""What a call on the current tab's page goes through, and what its result says of the page.

A dialog open on the tab refuses the call (:data:`DIALOG_EXEMPT` aside); one that opens
meanwhile interrupts it. Whatever the call answered, its result then lists what the page
did around it that the agent would otherwise not hear of: downloads begun, dialogs a
policy answered, permissions a page asked for, a dialog that opened as the call ended.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from ...tools import Reply
from ..session import Work
from .agent.pageagent import highest_ref
from .dialogs.book import dialog_warning
from .host import SessionHost
from .page.saves import list_new_downloads

if TYPE_CHECKING:
    from .page.permissions import Permissions

__all__ = ["DIALOG_EXEMPT", "PageCalls", "run_on_page"]

#: Tools that still answer while a dialog blocks the current tab: the way out, and
#: what does not touch the page.
DIALOG_EXEMPT = frozenset({"handle_dialog", "set_dialog_policy", "list_tabs", "select_tab", "close_tab"})


class PageCalls(SessionHost, Protocol):
    """What a call on the page needs of the session, beyond any helper's."""

    refs_shown: int
    permissions: Permissions

    def refuse_if_dialog(self, tool: str) -> None: ...

    def interrupted_by_dialog(self, tool: str) -> Reply: ...


async def run_on_page(session: PageCalls, tool: str, work: Work, args: object) -> object:
    """The call on the current tab's page (module notes)."""
    await session.tab_lifecycle.attach_current()
    page = session.page
    exempt = tool in DIALOG_EXEMPT
    if not exempt:
        session.refuse_if_dialog(tool)
    downloads, begun = session.downloads.last_id, session.events.downloads_begun
    with session.dialogs.interruptible(page, open_already=not exempt) as scope:
        result = await work(session, args)
    if scope.cancelled_caught:
        result = session.interrupted_by_dialog(tool)
    if not isinstance(result, Reply):
        return result
    if session.downloads.last_id != downloads or session.events.downloads_begun != begun:
        await list_new_downloads(session, result, tool, downloads, begun)
    session.refs_shown = max(session.refs_shown, highest_ref(result.fields))
    answered = session.dialogs.take_answered()
    if answered:
        result["dialogs"] = answered
    requests = session.permissions.take_requests()
    if requests:
        result["permissionRequests"] = requests
    pending = session.dialogs.open_on(page)
    if pending is not None and "dialog" not in result.fields:  # opened as the call ended
        result["dialog"] = pending.describe()
        result.warn(dialog_warning(result["dialog"], tool))
    return result
