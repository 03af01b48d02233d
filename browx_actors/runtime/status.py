"""What the runtime reports: the tree as ``runtime_status`` shows it, and how an ended
session answers.

The report is built from what each child of the root says when asked (a pool its
browser, the registry its leases, the session supervisor its children) and from the
tree's own event log; it reads no actor's state from outside. A child that does not
answer within 5 s is reported with the error instead of holding up the report.

The stream supervisor is left out of it on purpose: nothing an agent can call may tell
whether a live view is running (``docs/operator-channel.md``), so the report names the
streams child with no statistics, and drops its restarts and events. The embedding program reads
views through ``Runtime.live_view_status`` instead.

A session whose actor ended answers its next call once with a code and a reason
(:func:`ended_code`, :func:`ended_reason`): ``browser-crashed`` when its browser died
under it, ``session-crashed`` when the actor itself failed, ``session-closed`` when it
stopped cleanly.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

import attrs

from ..devices.leases import ListLeases
from ..errors import ToolError
from ..human.operator import OperatorStatus
from ..jsonsafe import JsonObject
from ..kernel.actor_ref import ActorCrashed, ActorRef, ActorUnavailable
from ..kernel.supervision import ChildInfo, EventLog
from ..kernel.supervisor import Supervisor
from ..recorder import RecorderInbox
from ..sessions.chromium.losses import BrowserLost
from ..sessions.chromium.pool import PoolStatus
from ..sessions.firefox.pool import FirefoxStatus
from ..tools import Gates

__all__ = ["STREAMS", "StatusSource", "ask_status", "ended_code", "ended_reason", "tree_status"]

#: The stream supervisor's id in the root (and its name in supervisor events).
STREAMS = "streams"


@attrs.frozen
class StatusSource:
    """What the report reads of the runtime: its parts, and the questions it asks it."""

    root: Supervisor
    events: EventLog
    gates: Gates
    recorder_inbox: RecorderInbox
    recording: bool
    #: The operator channel's link while it runs, else None.
    operator_link: Callable[[], ActorRef | None]
    #: The session supervisor's live children.
    session_children: Callable[[], Awaitable[list[ChildInfo]]]
    #: Each open session's own description.
    describe_sessions: Callable[[], Awaitable[list[JsonObject]]]


async def tree_status(source: StatusSource) -> JsonObject:
    """The supervision tree, its sessions, restarts, recent events and capabilities."""
    root, events, gates = source.root, source.events, source.gates
    return {
        "tree": {
            "name": "runtime",
            "strategy": root.strategy.value,
            "statistics": root.ref.statistics().as_dict(),
            "children": [await _child_status(source, cid) for cid in root.child_ids()],
        },
        "sessions": await source.describe_sessions(),
        # A view's stream coming and going is no event an agent may see.
        "restarts": {key: count for key, count in events.restarts.items()
                     if not key.startswith(STREAMS + "/")},
        "events": [
            {"at": round(e.at, 3), "supervisor": e.supervisor, "child": e.child,
             "kind": e.kind, "reason": e.reason}
            for e in [e for e in events.events if e.supervisor != STREAMS][-20:]
        ],
        "capabilities": {"server": sorted(gates.server), "client": sorted(gates.client)},
        "capabilityDenials": gates.denied_total,
    }


async def _child_status(source: StatusSource, child_id: str) -> JsonObject:
    """One child of the root, in the order the tree started them, with what it knows."""
    ref = source.root.child_ref(child_id)
    node: JsonObject = {"id": child_id, "alive": ref is not None and ref.alive}
    if ref is None or not ref.alive or child_id == STREAMS:
        # The stream supervisor says nothing here, not even its mailbox counts: they
        # would tell an agent that a view runs (live_view_status is the embedder's).
        return node
    node["statistics"] = ref.statistics().as_dict()
    if child_id == "browser-pool":
        node.update(await ask_status(ref, PoolStatus()))
    if child_id == "firefox-pool":
        node.update(await ask_status(ref, FirefoxStatus()))
    elif child_id == "operator-channel":
        link = source.operator_link()
        node.update({"connected": False} if link is None else await ask_status(link, OperatorStatus()))
    elif child_id == "devices":
        try:
            node["leases"] = await ref.call(ListLeases(), timeout=5)
        except (ToolError, ActorUnavailable) as err:
            node["leases"] = {"error": str(err)}
    elif child_id == "recorder":
        inbox = source.recorder_inbox
        node.update({"recording": source.recording, "accepted": inbox.accepted, "handled": inbox.handled,
                     "dropped": inbox.dropped_total})
    elif child_id == "sessions":
        node["children"] = [
            {"id": c.id, "actor": c.name, "engine": c.meta.get("engine"),
             "statistics": None if c.statistics is None else c.statistics.as_dict()}
            for c in await source.session_children()
        ]
    return node


async def ask_status(ref: ActorRef, msg: object) -> JsonObject:
    """Ask ``ref`` for its status; an actor that fails to answer in 5 s reports the error."""
    try:
        answer: JsonObject = await ref.call(msg, timeout=5)
    except (ToolError, ActorUnavailable) as err:
        return {"error": str(err)}
    return answer


def ended_reason(failure: ActorUnavailable | None) -> str:
    """What an ended session's next call is told: how its browser was lost, else why
    its actor ended."""
    cause = None if failure is None else failure.__cause__
    if isinstance(cause, BrowserLost):
        return str(cause)
    return str(failure) if failure is not None else "the session ended"


def ended_code(failure: ActorUnavailable | None) -> str:
    """The error code an ended session's next call gets."""
    if failure is not None and isinstance(failure.__cause__, BrowserLost):
        return "browser-crashed"
    return "session-crashed" if isinstance(failure, ActorCrashed) else "session-closed"
