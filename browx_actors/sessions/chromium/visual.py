"""The ``ui.*`` tools, declared here with the chromium engine's handlers.

The declarations (names, parameters, rules) are the engine-neutral ones of
:mod:`browx_actors.visualtree.params`, and each handler is one line over the
engine-neutral flows of :mod:`browx_actors.visualtree.operations`: this engine's part is
its provider (:class:`~.dom_provider.DomProvider`) and its session's
:class:`~browx_actors.visualtree.snapshots.SnapshotBook`. Another engine adds the same
five one-line handlers over its own provider (``NativeProvider`` for the native
engines) with :func:`browx_actors.sessions.visual_tools.implementations`.

``ui.wait`` answers later (:class:`~browx_actors.kernel.actor.Later`): its polling runs in the
session's nursery, so the session keeps serving other calls while it waits.
"""

from __future__ import annotations

from ...kernel.actor import Later
from ...tools import Args, Reply, session_tool
from ...visualtree import operations
from ...visualtree.params import (
    INSPECT_PARAMS,
    PERFORM_PARAMS,
    PERFORM_RULES,
    QUERY_PARAMS,
    QUERY_RULES,
    TREE_PARAMS,
    WAIT_PARAMS,
)
from .dom_provider import DomProvider
from .session import ChromiumSession

__all__ = ["TOOLS", "get_visual_tree", "inspect_node", "perform_action", "query_nodes", "wait"]

READ, ACTION = "read", "action"


@session_tool(
    "ui.get_visual_tree", READ,
    "The page (or app screen) as the compact v2 visual tree: one capture with a new revision, a type registry and "
    "nodes with role, automation id, label, supported actions, states, bounds and #AARRGGBB colours; a page's "
    "frames hang under their iframe nodes (ids f2n5). maxDepth, maxNodes and rootNodeId truncate; childCount "
    "counts what was left out.",
    params=TREE_PARAMS,
)
async def get_visual_tree(session: ChromiumSession, args: Args) -> Reply:
    return await operations.get_tree(DomProvider(session), session.visual_snapshots, args)


@session_tool(
    "ui.query_nodes", READ,
    "Capture (or reuse the latest capture) and select nodes by node id, automation id, role, type, text, action, "
    "visibility, enabled state or bounds; every criterion given must hold. Each match is a full reference "
    "{source, snapshotId, revision, nodeId} for ui.inspect_node and ui.perform_action, with its node.",
    params=QUERY_PARAMS, rules=QUERY_RULES,
)
async def query_nodes(session: ChromiumSession, args: Args) -> Reply:
    return await operations.query_nodes(DomProvider(session), session.visual_snapshots, args)


@session_tool(
    "ui.inspect_node", READ,
    "A node of the latest capture with its ancestors (root first) and descendants, in the same compact shape and "
    "type registry. A reference from an older capture answers stale_node_reference.",
    params=INSPECT_PARAMS,
)
async def inspect_node(session: ChromiumSession, args: Args) -> Reply:
    return operations.inspect_node(session.visual_snapshots, args)


@session_tool(
    "ui.perform_action", ACTION,
    "Do a node's action: tap, focus, unfocus, setValue, typeText or toggle, as the node's supportedActions offer. "
    "On a page this takes the path click and fill take (actionability checks, trusted input) and answers as they "
    "do; on android-app and ios-app the screen is read afresh and the node must still be at its place, then click "
    "and fill's input. A reference from an older capture, or to a node the screen has replaced, answers "
    "stale_node_reference.",
    params=PERFORM_PARAMS, rules=PERFORM_RULES,
)
async def perform_action(session: ChromiumSession, args: Args) -> Reply:
    return await operations.perform_action(DomProvider(session), session.visual_snapshots, args)


def _wait_timeout(args: Args) -> float:
    """The session call outlives the wait by the time its last capture may take."""
    return args["timeoutMs"] / 1000 + 60


@session_tool(
    "ui.wait", READ,
    "Re-query until a condition holds: exists, notExists, visible or enabled, for the nodes the criteria select "
    "(those of ui.query_nodes). Captures every intervalMs until timeoutMs; answers the matches of the capture "
    "that satisfied it, or timeout.",
    params=WAIT_PARAMS, rules=QUERY_RULES, call_timeout=_wait_timeout,
)
async def wait(session: ChromiumSession, args: Args) -> Later:
    return Later.of(operations.wait_for_nodes, DomProvider(session), session.visual_snapshots, args)


TOOLS = [get_visual_tree, query_nodes, inspect_node, perform_action, wait]
