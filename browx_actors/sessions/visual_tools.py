"""The ``ui.*`` tools for another engine: its handlers, from its provider and its book.

The ``ui.*`` tools are declared once, beside the chromium engine's handlers
(``sessions/chromium/visual.py``). Every handler is the same one line over
:mod:`browx_actors.visualtree.operations`, with the engine's own provider and the
session's :class:`~browx_actors.visualtree.snapshots.SnapshotBook`, so an engine adds
all five with::

    implementations("android-app", provider=provider, book=lambda session: session.visual_snapshots)

in its ``IMPLEMENTATIONS`` list, which ``server/catalog.py`` assembles. The native
engines do exactly this: ``sessions/native/visual.py`` builds the provider over the
session's hierarchy read and its actions, and ``android/tools.py`` and
``ios/tools.py`` add its handlers. ``ui.wait`` answers
later, as on every engine, so the session keeps serving while it polls.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..kernel.actor import Later
from ..tools import Args, Implementation, Reply
from ..visualtree import operations
from ..visualtree.provider import Provider
from ..visualtree.snapshots import SnapshotBook

__all__ = ["implementations"]


def implementations(
    engine: str, *, provider: Callable[[Any], Provider], book: Callable[[Any], SnapshotBook]
) -> list[Implementation]:
    """``engine``'s handlers of the five ``ui.*`` tools."""

    async def get_visual_tree(session: Any, args: Args) -> Reply:
        return await operations.get_tree(provider(session), book(session), args)

    async def query_nodes(session: Any, args: Args) -> Reply:
        return await operations.query_nodes(provider(session), book(session), args)

    async def inspect_node(session: Any, args: Args) -> Reply:
        return operations.inspect_node(book(session), args)

    async def perform_action(session: Any, args: Args) -> Reply:
        return await operations.perform_action(provider(session), book(session), args)

    async def wait(session: Any, args: Args) -> Later:
        return Later.of(operations.wait_for_nodes, provider(session), book(session), args)

    return [
        Implementation("ui.get_visual_tree", engine, get_visual_tree),
        Implementation("ui.query_nodes", engine, query_nodes),
        Implementation("ui.inspect_node", engine, inspect_node),
        Implementation("ui.perform_action", engine, perform_action),
        Implementation("ui.wait", engine, wait),
    ]
