"""The ``ui.*`` tools' handlers, the same on every engine: its provider and its book.

Every engine's session has a visual-tree :class:`~browx_actors.visualtree.provider.Provider`
(a page's DOM on chromium, the hierarchy read on android-app and ios-app) and the
:class:`~browx_actors.visualtree.snapshots.SnapshotBook` of its captures; each handler
is one line over :mod:`browx_actors.visualtree.operations`. ``ui.wait`` answers later, as
every long wait does, so the session keeps serving while it polls.
"""

from __future__ import annotations

from typing import Protocol

from ..kernel.actor import Later
from ..tools import Reply
from ..tools.visual import InspectNodeArgs, PerformActionArgs, QueryNodesArgs, VisualTreeArgs, WaitNodesArgs
from ..visualtree import operations
from ..visualtree.provider import Provider
from ..visualtree.snapshots import SnapshotBook

__all__ = ["VisualSession", "get_visual_tree", "inspect_node", "perform_action", "query_nodes", "wait"]


class VisualSession(Protocol):
    """What the ``ui.*`` handlers need of a session."""

    @property
    def visual_snapshots(self) -> SnapshotBook: ...

    def visual_provider(self) -> Provider:
        """The session's source of visual-tree captures and actions."""


async def get_visual_tree(session: VisualSession, args: VisualTreeArgs) -> Reply:
    return await operations.get_tree(session.visual_provider(), session.visual_snapshots, args)


async def query_nodes(session: VisualSession, args: QueryNodesArgs) -> Reply:
    return await operations.query_nodes(session.visual_provider(), session.visual_snapshots, args)


async def inspect_node(session: VisualSession, args: InspectNodeArgs) -> Reply:
    return operations.inspect_node(session.visual_snapshots, args)


async def perform_action(session: VisualSession, args: PerformActionArgs) -> Reply:
    return await operations.perform_action(session.visual_provider(), session.visual_snapshots, args)


async def wait(session: VisualSession, args: WaitNodesArgs) -> Later:
    return Later.of(operations.wait_for_nodes, session.visual_provider(), session.visual_snapshots, args)
