"""Putting a session's isolated world into one target, in as few round trips as it allows.

The bridge (:mod:`.bridge`) owns the world's name, its binding and the targets; this is
what it sends to each target it wires: the world in every new document and in the
frames that already exist, the binding in that world only, the main world's display
helper, and (on a flat session of the bridge's own) the auto-attach that announces
out-of-process frames. Commands that do not depend on each other go out together
(:func:`together`): the session's own page costs three round trips, any other target
five.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable

import attrs
import trio

from ..cdp.connection import TargetLink
from ..cdp.protocol import CdpError, CdpFailure
from ..jsonsafe import JsonObject
from .scripts import MAIN_HELPER, world_helper

__all__ = ["WorldSetup", "together"]

log = logging.getLogger("browx_actors.human.bridge")


@attrs.frozen
class WorldSetup:
    """A world's name, the binding its helper calls, and whether the targets' flat
    sessions are the bridge's own (a shared session's owner sets their auto-attach)."""

    world: str
    binding: str
    own_sessions: bool
    helper: str = attrs.field(init=False)

    @helper.default
    def _helper(self) -> str:
        return world_helper(self.binding)

    async def install(self, cdp: TargetLink, *, fresh: bool = False) -> None:
        """Set up one target.

        A ``fresh`` target is the session's own new page: nothing navigates it while
        the session starts and it has no subframes, so its world goes out with the
        batch (three round trips in all: ``Runtime.enable``, the batch, the helper). Any
        other target may be committing a document while we work, so the new-document
        script goes first and only then do we look at its frames: a document that
        commits after the script is in place gets the world from it, one that committed
        before gets it from ``createIsolatedWorld``.
        """
        # Runtime.enable goes first, on its own: a world context created after
        # Runtime.addBinding but before Runtime.enable never gets the binding (checked
        # on Chromium 156; the other orders are fine).
        await cdp.send("Runtime.enable")
        setup = [
            # New-document scripts only run on a session with the Page domain enabled.
            lambda: cdp.send("Page.enable"),
            lambda: cdp.send("Runtime.addBinding", {"name": self.binding, "executionContextName": self.world}),
            lambda: cdp.send("Page.addScriptToEvaluateOnNewDocument",
                             {"source": self.helper, "worldName": self.world}),
            lambda: cdp.send("Page.addScriptToEvaluateOnNewDocument", {"source": MAIN_HELPER}),
        ]
        if self.own_sessions:
            # Only on a session of our own: a shared session's owner has set its
            # auto-attach, which announces frames to us too, and a second call here would
            # replace its settings (it holds dedicated workers at their start).
            setup.append(lambda: cdp.send("Target.setAutoAttach", {
                "autoAttach": True, "waitForDebuggerOnStart": False, "flatten": True,
                "filter": [{"type": "iframe"}],
            }))
        current_document = [lambda: cdp.send("Runtime.evaluate", {"expression": MAIN_HELPER})]
        if fresh:
            await together(*setup, *current_document, lambda: self.in_frame(cdp, cdp.target_id))
            return
        await together(*setup)
        tree = await cdp.send("Page.getFrameTree")
        await together(*current_document, *(
            (lambda frame_id=frame_id: self.in_frame(cdp, frame_id))
            for frame_id in _frame_ids(tree.get("frameTree") or {})
        ))

    async def in_frame(self, cdp: TargetLink, frame_id: str) -> None:
        """The world in a frame that already has its document."""
        try:
            created = await cdp.send("Page.createIsolatedWorld", {
                "frameId": frame_id, "worldName": self.world, "grantUniveralAccess": False,
            })
            await cdp.send("Runtime.evaluate", {"expression": self.helper, "contextId": created["executionContextId"]})
        except CdpError as exc:
            # The frame was removed or replaced meanwhile; its next document gets the
            # world from the new-document script.
            log.debug("bridge %s: no world in frame %s: %s", self.world, frame_id, exc)


async def together(*thunks: Callable[[], Awaitable[object]]) -> None:
    """Run the calls concurrently (pipelined on the socket); raise the first CDP failure.

    Unwrapped, so callers can catch :class:`CdpFailure` instead of exception groups.
    """
    failures: list[CdpFailure] = []

    async def one(thunk: Callable[[], Awaitable[object]]) -> None:
        try:
            await thunk()
        except CdpFailure as exc:
            failures.append(exc)

    async with trio.open_nursery() as nursery:
        for thunk in thunks:
            nursery.start_soon(one, thunk)
    if failures:
        raise failures[0]


def _frame_ids(tree: JsonObject) -> list[str]:
    frame_id = (tree.get("frame") or {}).get("id")
    ids = [frame_id] if isinstance(frame_id, str) else []
    for child in tree.get("childFrames") or ():
        ids.extend(_frame_ids(child))
    return ids
