"""Input to the current tab over raw CDP, and letting go of it when a dialog interrupts.

Every pointer, touch and key tool ends here: the commands are written back to back
(``TargetLink.send_sequence``) and noted in the tab's input state
(:class:`~.state.InputState`), so the session knows what is held down whatever
the page does meanwhile. A dialog the input opens blocks the page, and the browser acks
input only once the dialog is answered; so what a gesture must let go of (a button up,
a touchcancel) is written at once and acked beside the mailbox, and ``handle_dialog``
waits for those acks before it reports (:func:`releases_applied`).
"""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING

import trio

from ....cdp import CdpError, CdpFailure, CdpTimeout, TargetLinkLost
from ....errors import ToolError
from ....tools.targets import Element
from .commands import Command

if TYPE_CHECKING:
    from ..session import ChromiumSession

__all__ = ["ACTION_TIMEOUT_MS", "release_input", "releases_applied", "send_input", "target_label"]

#: How long an action's input and waits may take before it answers ``timeout``.
ACTION_TIMEOUT_MS = 10_000


def target_label(target: Element | None) -> str:
    """How an error names what the call aimed at (``coords`` for a point, or points)."""
    if target is not None and target.ref:
        return f"ref {target.ref}"
    if target is not None and target.selector:
        return f"selector {target.selector!r}"
    return "coords"


async def send_input(session: ChromiumSession, action: str, commands: list[Command], *,
                     target: Element | None = None) -> None:
    """Send input to the current tab, back to back, and note it in the tab's input state.

    The commands are written before any reply is awaited, so a call cut short while it
    waits still sent them: a dialog the input opened (a ``mousedown`` that alerts) holds
    the replies until it is answered, and the browser has the button or finger down all
    the same. The state notes them then too, so ``mouse_up`` / ``touch_end`` after
    ``handle_dialog`` let go of what is down."""
    tab = session.tabs.current
    await trio.lowlevel.checkpoint_if_cancelled()  # past this, the commands are written
    try:
        await session.cdp.send_sequence(commands, timeout=ACTION_TIMEOUT_MS / 1000)
    except trio.Cancelled:
        if tab is not None:
            tab.input.track(commands)
        raise
    except TargetLinkLost:
        pass  # the page closed itself under the input (window.close()): settle says so
    except CdpTimeout as err:
        raise ToolError("timeout", f"{action} on {target_label(target)}: {err}") from err
    except CdpError as err:
        raise ToolError("action-failed", f"{action} on {target_label(target)}: {err.message}") from err
    if tab is not None:
        tab.input.track(commands)


async def release_input(session: ChromiumSession, action: str, commands: list[Command], *,
                        target: Element | None = None) -> None:
    """The input that lets go of an interrupted gesture (a button up, a touchcancel).

    When a dialog the gesture opened blocks the page, the browser acks that input only
    once the dialog is answered, and waiting for it would hold the call (and the
    dialog's report) for as long as the release may take. So the input is written now
    and noted now, as a hand lets go whatever the screen shows, and its acks are awaited
    beside the mailbox, in the session's nursery: the browser applies it before any
    later input, once the page goes on."""
    if session.dialogs.open_on(session.page) is None:
        await send_input(session, action, commands, target=target)
        return
    cdp, tab = session.cdp, session.tabs.current
    if cdp is None:
        return

    acked = trio.Event()

    async def written_then_acked(task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED) -> None:
        session.releases_in_flight.add(acked)
        task_status.started()
        try:
            with contextlib.suppress(CdpFailure):
                await cdp.send_sequence(commands, timeout=ACTION_TIMEOUT_MS / 1000)
        finally:
            session.releases_in_flight.discard(acked)
            acked.set()

    await session.nursery.start(written_then_acked)
    if tab is not None:
        tab.input.track(commands)


async def releases_applied(session: ChromiumSession) -> None:
    """Wait until the browser acked every release :func:`release_input` wrote under a
    dialog (it does once the dialog is answered and the page has run the handlers):
    what the page does about being let go is then part of what the caller sees."""
    for acked in list(session.releases_in_flight):
        await acked.wait()  # each ends by ACTION_TIMEOUT_MS at the latest
