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

Whatever the policy, the way out of a page is never blocked by it: while ``navigate``
leaves a page (:meth:`DialogBook.leaving`), a dialog open on it and each one it opens
meanwhile is answered as a person closing it would (dismissed; a beforeunload
accepted, so the page may go) and listed. A page whose dialog comes back, the same one,
within :data:`LOOP_GAP` seconds of its answer, :data:`LOOP_RUN` times in a row, is
*looping* (:meth:`DialogBook.looping`): an interval or a ``for(;;)`` of alerts, which
answering one by one never ends; the refusals and the way out say so. (A run is
counted from answers, not by the second: while one is open, a page's interval cannot
open the next, so under ``ask`` the agent's own pace sets the rate.)

The book is shared by two threads: Playwright's calls :meth:`on_dialog` and the
answers; Trio's registers scopes and reads. Each field is written by one side only,
or is a dict / deque operation that the GIL keeps whole; cancelling a scope is
handed to the Trio thread through its token.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import time
from collections import deque
from collections.abc import Callable, Iterator
from typing import Protocol

import attrs
import trio
from playwright.async_api import Dialog, Page

from ....errors import ToolError
from ....tools import Reply
from ....tools.actions import DIALOG_POLICIES, DialogPolicy

__all__ = ["DIALOG_POLICIES", "DialogBook", "DialogPolicy", "OpenDialog", "Pending", "dialog_refusal", "dialog_warning",
           "interrupted_reply"]


#: Auto-answered dialogs kept until a result lists them.
_LOG_MAX = 50
#: The same dialog opening again this soon after its answer continues a run; a run of
#: LOOP_RUN is a loop. Faster than any agent's round trip, and different dialogs never
#: make one: an agent confirming three deletions in a row is not a loop.
#: Measured from when the answer reached the page (the stamp is renewed once it did), so
#: a busy host's slow round trip does not hide a loop; 0.5 s is still far below an
#: agent's own pace (a clean-clone run on a host at load 13 saw 0.25 s miss one).
LOOP_GAP = 0.5
LOOP_RUN = 3


class Pending(Protocol):
    """A dialog waiting for its answer, as a refusal names it (on any engine)."""

    @property
    def type(self) -> str: ...

    @property
    def message(self) -> str: ...

    def describe(self) -> dict[str, str]: ...


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

    def __init__(self, on_ask: Callable[[Page | None], None] | None = None) -> None:
        self.policy: DialogPolicy = "ask"
        #: Trio side: called with the page when a dialog opens under ``ask-human`` (the
        #: session starts asking its person; ``asking.py``).
        self._on_ask = on_ask
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
        #: Pages being left (Trio side writes): their dialogs are answered whatever the policy.
        self._leaving: set[Page | None] = set()
        #: Per page (Playwright side writes), for :meth:`looping`: when its last dialog
        #: was answered, what it said, and how many times it came back at once in a row.
        self._ended: dict[Page | None, float] = {}
        self._last: dict[Page | None, str] = {}
        self._runs: dict[Page | None, int] = {}

    # -- the Playwright thread ---------------------------------------------------------

    def on_dialog(self, dialog: Dialog) -> None:
        """Playwright's ``dialog`` event: keep it open for the agent, or answer by policy."""
        page, said = dialog.page, f"{dialog.type}\0{dialog.message}"
        again = said == self._last.get(page) and time.monotonic() - self._ended.get(page, float("-inf")) < LOOP_GAP
        self._runs[page] = self._runs.get(page, 0) + 1 if again and dialog.type != "beforeunload" else 1
        self._last[page] = said
        if dialog.page in self._leaving:
            self._answer_now(dialog, dialog.type == "beforeunload")
            return
        if self.policy in ("ask", "ask-human"):
            self._open[dialog.page] = OpenDialog(dialog.type, dialog.message, dialog.default_value,
                                                 dialog.page, dialog)
            if self._token is not None:
                with contextlib.suppress(trio.RunFinishedError):
                    self._token.run_sync_soon(self._interrupt, dialog.page)
                    if self.policy == "ask-human" and self._on_ask is not None:
                        self._token.run_sync_soon(self._on_ask, dialog.page)
            return
        self._answer_now(dialog, self.policy == "accept")

    def _answer_now(self, dialog: Dialog, accept: bool) -> None:
        self._ended[dialog.page] = time.monotonic()
        task = asyncio.get_running_loop().create_task(_answer(dialog, accept, None))
        self._answers.add(task)
        task.add_done_callback(self._answers.discard)
        self._answered.append((next(self._seq), {**_described(dialog),
                                                 "answer": "accepted" if accept else "dismissed"}))

    async def answer_open(self, page: Page | None, accept: bool | None = None, *, prompt_text: str | None = None,
                          by: str | None = None, only: OpenDialog | None = None) -> None:
        """Answer the dialog open on ``page`` (if it is ``only``, when given), listed with
        the auto-answered ones: ``accept`` as given, or (None) as a person leaving the
        page would: dismissed, a beforeunload accepted. ``by`` says who decided."""
        if only is not None and self._open.get(page) is not only:
            return
        pending = self._open.pop(page, None)
        if pending is not None:
            self._ended[page] = time.monotonic()
            accept = pending.type == "beforeunload" if accept is None else accept
            entry = {**pending.describe(), "answer": "accepted" if accept else "dismissed"}
            if by is not None:
                entry["by"] = by
            self._answered.append((next(self._seq), entry))
            await _answer(pending.dialog, accept, prompt_text)
            self._ended[page] = time.monotonic()  # from the page's release (see LOOP_GAP)

    async def answer(self, page: Page | None, accept: bool, prompt_text: str | None) -> OpenDialog | None:
        """Answer the dialog open on ``page``; the one answered, or None if none was open."""
        pending = self._open.pop(page, None)
        if pending is not None:
            self._ended[page] = time.monotonic()
            await _answer(pending.dialog, accept, prompt_text)
            self._ended[page] = time.monotonic()  # from the page's release (see LOOP_GAP)
        return pending

    def forget(self, page: Page) -> None:
        """The tab closed: its dialog went with it."""
        self._open.pop(page, None)
        self._ended.pop(page, None)
        self._last.pop(page, None)
        self._runs.pop(page, None)

    # -- the Trio thread ---------------------------------------------------------------

    def bind(self) -> None:
        """Learn the Trio run's token (from the Trio thread, before any tab is adopted)."""
        self._token = trio.lowlevel.current_trio_token()

    def open_on(self, page: Page | None) -> OpenDialog | None:
        return self._open.get(page)

    def looping(self, page: Page | None) -> int:
        """How many times in a row ``page`` opened the same dialog within :data:`LOOP_GAP`
        of its answer, when that is a loop (:data:`LOOP_RUN` or more); 0 otherwise."""
        run = self._runs.get(page, 0)
        return run if run >= LOOP_RUN else 0

    @contextlib.contextmanager
    def leaving(self, page: Page | None) -> Iterator[None]:
        """While the caller leaves ``page``, every dialog on it is answered (module notes)."""
        self._leaving.add(page)
        try:
            yield
        finally:
            self._leaving.discard(page)

    def take_answered(self) -> list[dict[str, str | int]]:
        """Auto-answered dialogs no result has listed yet, oldest first (then they are).
        A run of the same dialog answered the same way is one entry with its ``count``:
        a page that alerts in a loop would fill the result with copies."""
        fresh = [entry for seq, entry in list(self._answered) if seq > self._reported]
        if self._answered:
            self._reported = self._answered[-1][0]
        runs: list[dict[str, str | int]] = []
        for entry in fresh:
            if runs and {k: v for k, v in runs[-1].items() if k != "count"} == entry:
                runs[-1]["count"] = int(runs[-1].get("count", 1)) + 1
            else:
                runs.append(dict(entry))
        return runs

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


def dialog_refusal(pending: Pending, tab: int | None, tool: str, looping: int = 0, *,
                   asking: bool = False) -> ToolError:
    """``dialog-open`` for a call on a tab a dialog blocks, naming the way out (for a
    page that opens dialogs in a loop, leaving it: answering brings the next one)."""
    where = f"a {pending.type} dialog is open on tab {tab if tab is not None else '?'} ({pending.message!r})"
    if looping:
        return ToolError(
            "dialog-open", f"{where} and the page opens dialogs in a loop ({looping} in a row, each at once), so "
            f"{tool} cannot run and answering one brings the next: navigate or close_tab leaves the page",
            dialog=pending.describe(), tool=tool, looping=looping)
    if asking:
        return ToolError(
            "dialog-open", f"{where} and blocks the page, so {tool} cannot run: the ask-human dialog policy has a "
            "person answer it (navigate or close_tab leaves the page)", dialog=pending.describe(), tool=tool)
    prompt = " (promptText fills the prompt)" if pending.type == "prompt" else ""
    return ToolError(
        "dialog-open",
        f"{where} and blocks the page, so {tool} cannot run: answer it with handle_dialog {{accept: true}} or "
        f"{{accept: false}}{prompt}",
        dialog=pending.describe(), tool=tool,
    )


def interrupted_reply(pending: Pending | None, tool: str, url: str | None) -> Reply:
    """What a call answers when a dialog opened under it and blocked the page."""
    described = pending.describe() if pending is not None else None
    reply = Reply.of(tool=tool, dialog=described, url=url, settled={"by": "dialog"}, warnings=[])
    reply.warn(dialog_warning(described, tool))
    return reply
