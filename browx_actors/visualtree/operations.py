"""The ``ui.*`` operations over any provider: an engine's handlers are a provider and a book.

Each ``ui.*`` tool does the same thing on every engine: capture through the engine's
:class:`~.provider.Provider`, record the capture in the session's
:class:`~.snapshots.SnapshotBook` (its revision, its ``snapshotId``, what makes older
references stale), and answer with a payload built by :mod:`.payload`. Written once here,
an engine's handler is one line: ``operations.get_tree(provider, session.visual_snapshots,
args)``. The arguments are the checked ones the dispatch hands over (see :mod:`.requests`).

Unlike the rest of the package this module awaits: the provider does the I/O, and
:func:`wait_for_nodes` reads Trio's clock, so its timing is tested under ``MockClock``.
Only a capture whose nodes are handed out is recorded: :func:`wait_for_nodes` polls with
captures it keeps to itself until one satisfies it, so the references another call holds
stay valid while a wait runs beside it (a session keeps serving during ``ui.wait``).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from typing import cast

import trio

from ..errors import ToolError
from ..jsonsafe import JsonObject
from ..tools.reply import Reply
from ..tools.visual import (
    Action,
    InspectNodeArgs,
    PerformActionArgs,
    QueryNodesArgs,
    VisualTreeArgs,
    WaitCondition,
    WaitNodesArgs,
)
from .model import CaptureOptions, RawTree
from .payload import inspect_payload, matches_payload, tree_payload
from .provider import Provider
from .query import matching, select, wait_satisfied
from .requests import limits_of, query_of, reference_of
from .snapshots import Capture, SnapshotBook

__all__ = ["capture", "get_tree", "inspect_node", "perform_action", "query_nodes", "utc_now", "wait_for_nodes"]

Clock = Callable[[], datetime]


def utc_now() -> datetime:
    return datetime.now(UTC)


def _capture_warnings(reply: Reply, tree: RawTree | None) -> None:
    """What the provider could not capture, said beside the answer built from it."""
    if tree is None:
        return
    if tree.omitted:
        reply.warn(f"the provider stopped capturing at its node limit: {tree.omitted:,} nodes are left out "
                   "(childCount counts them); read a subtree with rootNodeId")
    for warning in tree.warnings:
        reply.warn(warning)


async def capture(
    provider: Provider, book: SnapshotBook, *, properties: bool = False, clock: Clock = utc_now
) -> tuple[Capture, RawTree]:
    """A fresh capture, recorded as the source's latest, and what the provider handed over."""
    tree = await provider.capture(CaptureOptions(include_properties=properties))
    recorded = book.record(provider, tree.root, clock(), scope=tree.scope, with_properties=properties,
                           content_hash=tree.fingerprint)
    return recorded, tree


async def get_tree(provider: Provider, book: SnapshotBook, args: VisualTreeArgs, *,
                   clock: Clock = utc_now) -> Reply:
    """``ui.get_visual_tree``: a fresh capture as the compact v2 payload."""
    shot, tree = await capture(provider, book, properties=args.properties, clock=clock)
    payload = tree_payload(shot, limits=limits_of(args), root_node_id=args.root_node_id,
                           include_properties=args.properties)
    reply = Reply(payload)
    _capture_warnings(reply, tree)
    return reply


async def query_nodes(provider: Provider, book: SnapshotBook, args: QueryNodesArgs, *,
                      clock: Clock = utc_now) -> Reply:
    """``ui.query_nodes``: the matches of a fresh capture (or, with ``reuse``, of the latest)."""
    properties = args.properties
    shot = book.latest(provider.source) if args.reuse else None
    if shot is not None and properties and not shot.with_properties:
        shot = None  # the latest capture has no properties to show: take one that has
    tree = None
    if shot is None:
        shot, tree = await capture(provider, book, properties=properties, clock=clock)
    found = select(shot, query_of(args))
    reply = Reply(matches_payload(shot, found.nodes, limit=args.limit, include_properties=properties))
    _capture_warnings(reply, tree)
    return reply


def inspect_node(book: SnapshotBook, args: InspectNodeArgs) -> Reply:
    """``ui.inspect_node``: a node of the latest capture with its ancestors and descendants."""
    shot, node = book.resolve(reference_of(args.reference))
    reply = Reply(inspect_payload(shot, node.id, limits=limits_of(args), include_properties=args.properties))
    if args.properties and not shot.with_properties:
        reply.warn("this capture was taken without properties; capture with properties: true (ui.query_nodes or "
                   "ui.get_visual_tree) to see them")
    return reply


async def perform_action(provider: Provider, book: SnapshotBook, args: PerformActionArgs) -> Reply:
    """``ui.perform_action``: the provider's action on a node of the latest capture.

    The answer is what the engine's own action answered (a DOM tap answers as ``click``
    does), with ``action`` the semantic action, ``performedWith`` the engine's action
    where it names one, and the ``reference`` acted on.
    """
    reference = reference_of(args.reference)
    shot, node = book.resolve(reference)
    done = await provider.perform(shot, node, cast(Action, args.action), args.value)
    fields: JsonObject = {"action": args.action, "reference": reference.to_json()}
    for key, value in done.fields.items():
        fields["performedWith" if key == "action" else key] = value
    return Reply(fields, done.warnings, done.images)


async def wait_for_nodes(provider: Provider, book: SnapshotBook, args: WaitNodesArgs, *,
                         clock: Clock = utc_now) -> Reply:
    """``ui.wait``: re-capture and re-select every ``intervalMs`` until ``condition`` holds.

    The first capture is taken at once; after that one capture per interval, the last
    one at the deadline itself, so ``timeoutMs: 0`` checks once and a condition that
    comes true just before the deadline is seen. The capture that satisfies the
    condition is recorded and answered like ``ui.query_nodes``; if none does in time,
    ``timeout`` says how many captures were taken and how many nodes the last matched.
    """
    query, condition = query_of(args), cast(WaitCondition, args.condition)
    started = trio.current_time()
    deadline = started + args.timeout_ms / 1000
    interval = args.interval_ms / 1000
    attempts = 0
    while True:
        tree = await provider.capture(CaptureOptions())
        attempts += 1
        found = matching(tree.root, query)
        if wait_satisfied(condition, found):
            break
        now = trio.current_time()
        if now >= deadline:
            raise ToolError(
                "timeout",
                f"ui.wait: {condition} did not hold within {args.timeout_ms} ms ({attempts} captures; the last "
                f"matched {len(found)} nodes)",
                condition=condition, attempts=attempts, matched=len(found),
                waitedMs=round((now - started) * 1000, 1),
            )
        await trio.sleep(min(interval, deadline - now))
    shot = book.record(provider, tree.root, clock(), scope=tree.scope, content_hash=tree.fingerprint)
    reply = Reply(matches_payload(shot, found, limit=args.limit))
    reply["condition"] = condition
    reply["attempts"] = attempts
    reply["waitedMs"] = round((trio.current_time() - started) * 1000, 1)
    _capture_warnings(reply, tree)
    return reply
