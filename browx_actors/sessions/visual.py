"""The ``ui.*`` tools' table lines, the same on every engine but for their provider.

Every engine's session keeps the :class:`~browx_actors.visualtree.snapshots.SnapshotBook`
of its captures (the base session's), and every engine has a visual-tree
:class:`~browx_actors.visualtree.provider.Provider` over a session (a page's DOM on
chromium, the hierarchy read on android-app and ios-app). An engine's table takes the
five lines from :func:`lines`, naming its provider; the session actor never names it, so
the provider (which acts through the engine's handlers) sits above the session and not
beside it. Each handler is one line over :mod:`browx_actors.visualtree.operations`;
``ui.wait`` answers later, as every long wait does, so the session keeps serving while it
polls.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Generic, Protocol, TypeVar

import attrs

from .. import tools
from ..kernel.actor import Later
from ..tools import Reply, Runs, runs
from ..tools.visual import InspectNodeArgs, PerformActionArgs, QueryNodesArgs, VisualTreeArgs, WaitNodesArgs
from ..visualtree import operations
from ..visualtree.provider import Provider
from ..visualtree.snapshots import SnapshotBook

__all__ = ["VisualSession", "VisualTools", "lines"]


class VisualSession(Protocol):
    """What the ``ui.*`` handlers need of a session: the book of its captures."""

    @property
    def visual_snapshots(self) -> SnapshotBook: ...


S = TypeVar("S", bound=VisualSession)


@attrs.frozen
class VisualTools(Generic[S]):
    """The ``ui.*`` handlers over ``provider``, which an engine builds from its session."""

    provider: Callable[[S], Provider]

    async def get_visual_tree(self, session: S, args: VisualTreeArgs) -> Reply:
        return await operations.get_tree(self.provider(session), session.visual_snapshots, args)

    async def query_nodes(self, session: S, args: QueryNodesArgs) -> Reply:
        return await operations.query_nodes(self.provider(session), session.visual_snapshots, args)

    async def inspect_node(self, session: S, args: InspectNodeArgs) -> Reply:
        return operations.inspect_node(session.visual_snapshots, args)

    async def perform_action(self, session: S, args: PerformActionArgs) -> Reply:
        return await operations.perform_action(self.provider(session), session.visual_snapshots, args)

    async def wait(self, session: S, args: WaitNodesArgs) -> Later:
        return Later.of(operations.wait_for_nodes, self.provider(session), session.visual_snapshots, args)


def lines(provider: Callable[[S], Provider]) -> tuple[Runs[S, VisualTreeArgs], Runs[S, QueryNodesArgs],
                                                      Runs[S, InspectNodeArgs], Runs[S, PerformActionArgs],
                                                      Runs[S, WaitNodesArgs]]:
    """An engine table's five ``ui.*`` lines, over the provider it names."""
    visual = VisualTools(provider)
    return (
        runs(tools.GET_VISUAL_TREE, visual.get_visual_tree),
        runs(tools.QUERY_NODES, visual.query_nodes),
        runs(tools.INSPECT_NODE, visual.inspect_node),
        runs(tools.PERFORM_ACTION, visual.perform_action),
        runs(tools.WAIT_NODES, visual.wait),
    )
