"""JavaScript dialogs (alert, confirm, prompt, beforeunload): answered by the agent, never
swallowed.

Playwright owns them. It hears ``Page.javascriptDialogOpening`` on its own CDP session
and dismisses any dialog nobody listens for (accepting a beforeunload), which is how a
``confirm()`` used to be answered "Cancel" behind the agent's back. The session
listens on every tab (:meth:`DialogBook.on_dialog`, on the Playwright thread), so
Playwright never answers by itself, and the :class:`DialogBook` decides by the
session's policy:

* ``ask`` (the default): the dialog stays open. The page is blocked inside it (its
  scripts wait for the answer), so whatever the session was doing in that tab is
  interrupted at once: the innermost :meth:`DialogBook.interruptible` scope of the tab
  is cancelled, and the call answers with ``dialog: {type, message, defaultValue}``.
  Until ``handle_dialog`` answers it, every other tool on that tab answers
  ``dialog-open`` naming the way out, so nothing waits on a page that cannot answer.
* ``accept`` / ``dismiss``: answered at once, and listed in the next result
  (``dialogs: [...]``), so the agent still learns what the page asked.

The book is shared by two threads: Playwright's calls :meth:`on_dialog` and the
answers; Trio's registers scopes and reads. Each field is written by one side only,
or is a dict / deque operation that the GIL keeps whole; cancelling a scope is
handed to the Trio thread through its token.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
from collections import deque
from collections.abc import Iterator

import attrs
import trio
from playwright.async_api import Dialog, Page

from ....errors import ToolError
from ....tools import Reply
from ....tools.actions import DIALOG_POLICIES, DialogPolicy

__all__ = ["DIALOG_POLICIES", "DialogBook", "DialogPolicy", "OpenDialog", "dialog_refusal", "dialog_warning",
           "interrupted_reply"]


#: Auto-answered dialogs kept until a result lists them.
_LOG_MAX = 50


@attrs.frozen
class OpenDialog:
    """A dialog waiting for the agent's answer, and the Playwright object that answers it."""

    type: str
    message: str
    default_value: str
    page: Page | None = attrs.field(eq=False, repr=False)
    dialog: Dialog = attrs.field(eq=False, repr=False)

    def describe(self) -> dict[str, str]:
        return {"type": self.type, "message": self.message, "defaultValue": self.default_value}


def _described(dialog: Dialog) -> dict[str, str]:
    return {"type": dialog.type, "message": dialog.message, "defaultValue": dialog.default_value}


class DialogBook:
    """The session's dialogs: the policy, the open ones per tab, the auto-answered log."""

    def __init__(self) -> None:
        self.policy: DialogPolicy = "ask"
        #: The Trio run's token, for handing a cancellation over (bound on first use).
        self._token: trio.lowlevel.TrioToken | None = None
        #: The open dialog of each page (Playwright names a dialog's page None when it has none).
        self._open: dict[Page | None, OpenDialog] = {}
        #: Auto-answered dialogs not yet listed in a result: (seq, description).
        self._answered: deque[tuple[int, dict[str, str]]] = deque(maxlen=_LOG_MAX)
        self._seq = itertools.count(1)
        self._reported = 0
        #: Trio side: the interruptible scopes per page, with their tasks, innermost last.
        self._scopes: dict[Page | None, list[tuple[trio.lowlevel.Task, trio.CancelScope]]] = {}
        self._answers: set[asyncio.Task[None]] = set()

    # -- the Playwright thread ---------------------------------------------------------

    def on_dialog(self, dialog: Dialog) -> None:
        """Playwright's ``dialog`` event: keep it open for the agent, or answer by policy."""
        if self.policy == "ask":
            self._open[dialog.page] = OpenDialog(dialog.type, dialog.message, dialog.default_value,
                                                 dialog.page, dialog)
            if self._token is not None:
                with contextlib.suppress(trio.RunFinishedError):
                    self._token.run_sync_soon(self._interrupt, dialog.page)
            return
        accept = self.policy == "accept"
        task = asyncio.get_running_loop().create_task(_answer(dialog, accept, None))
        self._answers.add(task)
        task.add_done_callback(self._answers.discard)
        self._answered.append((next(self._seq), {**_described(dialog),
                                                 "answer": "accepted" if accept else "dismissed"}))

    async def answer(self, page: Page | None, accept: bool, prompt_text: str | None) -> OpenDialog | None:
        """Answer the dialog open on ``page``; the one answered, or None if none was open."""
        pending = self._open.pop(page, None)
        if pending is not None:
            await _answer(pending.dialog, accept, prompt_text)
        return pending

    def forget(self, page: Page) -> None:
        """The tab closed: its dialog went with it."""
        self._open.pop(page, None)

    # -- the Trio thread ---------------------------------------------------------------

    def bind(self) -> None:
        """Learn the Trio run's token (from the Trio thread, before any tab is adopted)."""
        self._token = trio.lowlevel.current_trio_token()

    def open_on(self, page: Page | None) -> OpenDialog | None:
        return self._open.get(page)

    def take_answered(self) -> list[dict[str, str]]:
        """Auto-answered dialogs no result has listed yet, oldest first (then they are)."""
        fresh = [entry for seq, entry in list(self._answered) if seq > self._reported]
        if self._answered:
            self._reported = self._answered[-1][0]
        return fresh

    @contextlib.contextmanager
    def interruptible(self, page: Page | None, *, open_already: bool = True) -> Iterator[trio.CancelScope]:
        """A scope that a dialog opening on ``page`` cancels (``cancelled_caught`` then
        says so). Registered before the check, so a dialog that opens in between is
        either seen here or cancels the scope; ``open_already=False`` lets the call in
        spite of the dialog open now (the call that answers it)."""
        if self._token is None:
            self.bind()
        scope = trio.CancelScope()
        entry = (trio.lowlevel.current_task(), scope)
        stack = self._scopes.setdefault(page, [])
        stack.append(entry)
        try:
            if open_already and page in self._open:
                scope.cancel()
            with scope:
                yield scope
        finally:
            stack.remove(entry)
            if not stack:
                self._scopes.pop(page, None)

    def _interrupt(self, page: Page | None) -> None:
        # The innermost scope of each task waiting on the page: it answers for its call,
        # the scopes around it go on. A wait running beside the mailbox is its own task.
        if page not in self._open:
            return
        innermost: dict[trio.lowlevel.Task, trio.CancelScope] = {}
        for task, scope in self._scopes.get(page, ()):
            innermost[task] = scope
        for scope in innermost.values():
            scope.cancel()


async def _answer(dialog: Dialog, accept: bool, prompt_text: str | None) -> None:
    # OK on a prompt nobody typed into answers what it showed, as a person's OK would.
    if accept and prompt_text is None and dialog.type == "prompt":
        prompt_text = dialog.default_value
    try:
        if accept:
            await (dialog.accept(prompt_text) if prompt_text is not None else dialog.accept())
        else:
            await dialog.dismiss()
    except Exception:  # the page closed or navigated meanwhile: the dialog is gone anyway
        pass


def dialog_warning(dialog: dict[str, str] | None, tool: str) -> str:
    """The warning a call gets when a dialog opened under it."""
    if dialog is None:
        return f"a dialog opened during {tool} and was answered meanwhile"
    return (f"a {dialog['type']} dialog opened during {tool} and is still open; the page is blocked until "
            "handle_dialog {accept: true|false} answers it")


def dialog_refusal(pending: OpenDialog, tab: int | None, tool: str) -> ToolError:
    """``dialog-open`` for a call on a tab a dialog blocks, naming the way out."""
    prompt = " (promptText fills the prompt)" if pending.type == "prompt" else ""
    return ToolError(
        "dialog-open",
        f"a {pending.type} dialog is open on tab {tab if tab is not None else '?'} ({pending.message!r}) and "
        f"blocks the page, so {tool} cannot run: answer it with handle_dialog {{accept: true}} or "
        f"{{accept: false}}{prompt}",
        dialog=pending.describe(), tool=tool,
    )


def interrupted_reply(pending: OpenDialog | None, tool: str, url: str | None) -> Reply:
    """What a call answers when a dialog opened under it and blocked the page."""
    described = pending.describe() if pending is not None else None
    reply = Reply.of(tool=tool, dialog=described, url=url, settled={"by": "dialog"}, warnings=[])
    reply.warn(dialog_warning(described, tool))
    return reply
