"""The ui.* flows over a provider: revisions, reuse, stale references, actions, and the timing
of ui.wait under ``MockClock(autojump_threshold=0)`` (the ``autojump_clock`` fixture).

The provider here is a scripted screen that changes at given moments of Trio's clock, so
a wait's captures can be counted and timed exactly; every answer passes the contract
schema.
"""

from __future__ import annotations

from typing import Any, TypeVar

import attrs
import pytest
import trio

from browx_actors.errors import ToolError
from browx_actors.tools import Arguments, Reply, validate_args
from browx_actors.tools.shapes import NodeReferenceJson
from browx_actors.tools.visual import InspectNodeArgs, PerformActionArgs, QueryNodesArgs, VisualTreeArgs, WaitNodesArgs
from browx_actors.visualtree import operations
from browx_actors.visualtree.model import (
    DOM_FORMAT,
    Action,
    Bounds,
    CaptureOptions,
    Point,
    RawNode,
    RawTree,
    not_offered,
)
from browx_actors.visualtree.payload import TreeLimits
from browx_actors.visualtree.query import NodeQuery
from browx_actors.visualtree.requests import limits_of, query_of, reference_of
from browx_actors.visualtree.snapshots import Capture, NodeReference, SnapshotBook
from visualtree.contract_schema import check_inspection, check_matches, check_tree, payload_of
from visualtree.trees import CAPTURED_AT, leaf


def page(*, receipt: bool = False, pay_enabled: bool = False) -> RawNode:
    children = [
        leaf("n2", "input", "checkbox", automation_id="terms", supported_actions=("tap", "toggle")),
        leaf("n3", "button", "button", automation_id="pay", label="Pay now", supported_actions=("tap",),
             enabled=pay_enabled),
    ]
    if receipt:
        children.append(leaf("n4", "p", "text", automation_id="receipt", label="Paid"))
    return leaf("n1", "body", children=tuple(children))


@attrs.define
class Screens:
    """A DOM-like provider whose screen changes at given moments of the Trio clock."""

    timeline: list[tuple[float, RawNode]]
    source: Any = "dom"
    platform: Any = "web"
    format: str = DOM_FORMAT
    captures: list[float] = attrs.Factory(list)
    done: list[tuple[str, str, str | None, str | None]] = attrs.Factory(list)

    async def capture(self, options: CaptureOptions) -> RawTree:
        now = trio.current_time()
        self.captures.append(now)
        screen = [root for at, root in self.timeline if at <= now][-1]
        return RawTree(screen, scope="document-1")

    async def perform(self, capture: Capture, node: RawNode, action: Action, value: str | None = None) -> Reply:
        if action not in node.supported_actions:
            raise not_offered(node, action)
        self.done.append((action, node.id, value, capture.scope))
        return Reply.of(action="click", target={"id": node.id}, warnings=["acted"])


A = TypeVar("A", bound=Arguments)


def args_of(kind: type[A], **given: Any) -> A:
    """``given`` (by JSON name) as the dispatch hands them over: checked, defaults filled in."""
    return kind.of(validate_args(kind.params(), given))


def fixed_clock() -> Any:
    return CAPTURED_AT


async def query(screens: Screens, book: SnapshotBook, **given: Any) -> dict[str, Any]:
    reply = await operations.query_nodes(screens, book, args_of(QueryNodesArgs, **given), clock=fixed_clock)
    return check_matches(payload_of(reply.envelope()))


def test_the_checked_arguments_become_a_query_limits_and_a_reference() -> None:
    given = {"role": "button", "type": "Button", "text": "Pay", "textMatch": "exact",
             "intersects": {"x": 0, "y": 0, "width": 10, "height": 10}, "contains": {"x": 5, "y": 5}}
    args = args_of(QueryNodesArgs, **given)
    assert (args.role, args.type, args.text_match, args.limit, args.reuse) == ("button", "Button", "exact", 50, False)
    assert QueryNodesArgs.of(args.json()) == args and args.json()["automationId"] is None  # by JSON name too
    assert query_of(args) == NodeQuery(role="button", type_name="Button", text="Pay", text_match="exact",
                                       intersects=Bounds(0, 0, 10, 10), contains=Point(5, 5))
    # contains is a point {x, y} or a whole rectangle; ui.wait selects as ui.query_nodes does.
    rectangle = {"x": 1, "y": 2, "width": 3, "height": 4}
    assert query_of(args_of(QueryNodesArgs, contains=rectangle)).contains == Bounds(1, 2, 3, 4)
    assert query_of(args_of(WaitNodesArgs, automationId="pay")) == NodeQuery(automation_id="pay")
    reference: NodeReferenceJson = {"source": "dom", "snapshotId": "s1", "revision": 3, "nodeId": "n2"}
    assert reference_of(reference) == NodeReference("dom", "s1", 3, "n2")
    assert limits_of(args_of(VisualTreeArgs)) == TreeLimits(max_depth=None, max_nodes=2000)
    assert limits_of(args_of(InspectNodeArgs, reference=reference, maxDepth=2)) == TreeLimits(max_depth=2,
                                                                                            max_nodes=200)


async def test_every_capture_is_a_new_revision_of_the_source() -> None:
    screens, book = Screens([(0, page())]), SnapshotBook()
    tree = payload_of((await operations.get_tree(screens, book, args_of(VisualTreeArgs), clock=fixed_clock)).envelope())
    check_tree(tree)
    assert (tree["revision"], tree["source"], tree["format"]) == (1, "dom", DOM_FORMAT)
    assert (await query(screens, book, role="button"))["revision"] == 2
    assert book.latest("dom").scope == "document-1"  # type: ignore[union-attr]


async def test_reuse_selects_in_the_latest_capture_and_keeps_its_references() -> None:
    screens, book = Screens([(0, page())]), SnapshotBook()
    first = await query(screens, book, automationId="pay")
    again = await query(screens, book, automationId="terms", reuse=True)
    assert again["snapshotId"] == first["snapshotId"] and len(screens.captures) == 1
    reference = first["matches"][0]["reference"]
    inspected = operations.inspect_node(book, args_of(InspectNodeArgs, reference=reference))
    check_inspection(payload_of(inspected.envelope()))
    fresh = await query(screens, book, automationId="terms")
    assert fresh["revision"] == 2 and len(screens.captures) == 2


async def test_reuse_with_no_capture_yet_captures() -> None:
    screens, book = Screens([(0, page())]), SnapshotBook()
    assert (await query(screens, book, reuse=True))["revision"] == 1


async def test_a_reference_older_than_the_latest_capture_is_stale_everywhere() -> None:
    screens, book = Screens([(0, page())]), SnapshotBook()
    old = (await query(screens, book, automationId="pay"))["matches"][0]["reference"]
    await query(screens, book, automationId="pay")
    with pytest.raises(ToolError) as inspected:
        operations.inspect_node(book, args_of(InspectNodeArgs, reference=old))
    with pytest.raises(ToolError) as acted:
        await operations.perform_action(screens, book, args_of(PerformActionArgs, reference=old, action="tap"))
    for caught in (inspected, acted):
        assert caught.value.code == "stale_node_reference"
        assert caught.value.details["refreshWith"] == "ui.query_nodes"
        assert (caught.value.details["revision"], caught.value.details["latestRevision"]) == (1, 2)
    assert screens.done == []


async def test_an_action_answers_as_the_engine_action_did_with_the_reference() -> None:
    screens, book = Screens([(0, page())]), SnapshotBook()
    reference = (await query(screens, book, automationId="terms"))["matches"][0]["reference"]
    reply = await operations.perform_action(screens, book, args_of(PerformActionArgs, reference=reference,
                                                                   action="toggle"))
    assert reply.envelope() == {"ok": True, "action": "toggle", "reference": reference, "performedWith": "click",
                                "target": {"id": "n2"}, "warnings": ["acted"]}
    assert screens.done == [("toggle", "n2", None, "document-1")]
    with pytest.raises(ToolError) as caught:
        await operations.perform_action(screens, book, args_of(PerformActionArgs, reference=reference,
                                                               action="setValue", value="x"))
    assert caught.value.code == "action-failed" and caught.value.details["supportedActions"] == ["tap", "toggle"]


async def test_properties_are_captured_only_when_asked_and_inspection_says_so() -> None:
    screens, book = Screens([(0, page())]), SnapshotBook()
    reference = (await query(screens, book, automationId="pay"))["matches"][0]["reference"]
    reply = operations.inspect_node(book, args_of(InspectNodeArgs, reference=reference, properties=True))
    assert reply.warnings and "without properties" in reply.warnings[0]
    await query(screens, book, automationId="pay", properties=True, reuse=True)
    assert book.latest("dom").with_properties and len(screens.captures) == 2  # type: ignore[union-attr]


# -- ui.wait -------------------------------------------------------------------------


def wait_args(**given: Any) -> WaitNodesArgs:
    return args_of(WaitNodesArgs, **given)


async def wait(screens: Screens, book: SnapshotBook, **given: Any) -> dict[str, Any]:
    reply = await operations.wait_for_nodes(screens, book, wait_args(**given), clock=fixed_clock)
    return reply.envelope()


async def test_wait_captures_every_interval_until_the_node_appears(autojump_clock: Any) -> None:
    screens, book = Screens([(0, page()), (0.35, page(receipt=True))]), SnapshotBook()
    start = trio.current_time()
    answer = await wait(screens, book, automationId="receipt", intervalMs=100, timeoutMs=2000)
    assert [round(at - start, 3) for at in screens.captures] == [0, 0.1, 0.2, 0.3, 0.4]
    assert (answer["attempts"], answer["waitedMs"], answer["condition"]) == (5, 400.0, "exists")
    check_matches(payload_of(answer, "condition", "attempts", "waitedMs"))
    assert [match["node"]["automationId"] for match in answer["matches"]] == ["receipt"]


async def test_only_the_capture_that_answers_is_recorded(autojump_clock: Any) -> None:
    screens, book = Screens([(0, page()), (0.35, page(receipt=True))]), SnapshotBook()
    held = (await query(screens, book, automationId="pay"))["matches"][0]["reference"]

    async def act_meanwhile() -> None:
        await trio.sleep(0.15)  # while the wait polls, the reference taken before it still works
        await operations.perform_action(screens, book, args_of(PerformActionArgs, reference=held, action="tap"))

    async with trio.open_nursery() as nursery:
        nursery.start_soon(act_meanwhile)
        answer = await wait(screens, book, automationId="receipt")
    assert screens.done == [("tap", "n3", None, "document-1")]
    assert answer["revision"] == 2 and book.latest("dom").revision == 2  # type: ignore[union-attr]


async def test_wait_times_out_with_a_last_capture_at_the_deadline(autojump_clock: Any) -> None:
    screens, book = Screens([(0, page())]), SnapshotBook()
    start = trio.current_time()
    with pytest.raises(ToolError) as caught:
        await wait(screens, book, automationId="receipt", intervalMs=100, timeoutMs=250)
    assert [round(at - start, 3) for at in screens.captures] == [0, 0.1, 0.2, 0.25]
    assert caught.value.code == "timeout"
    assert caught.value.details == {"condition": "exists", "attempts": 4, "matched": 0, "waitedMs": 250.0}
    assert book.latest("dom") is None  # nothing was handed out, nothing recorded


async def test_a_zero_timeout_checks_once(autojump_clock: Any) -> None:
    screens, book = Screens([(0, page())]), SnapshotBook()
    assert (await wait(screens, book, automationId="pay", timeoutMs=0))["attempts"] == 1
    with pytest.raises(ToolError):
        await wait(screens, book, automationId="receipt", timeoutMs=0)
    assert len(screens.captures) == 2


@pytest.mark.parametrize(
    ("given", "satisfied_at"),
    [
        ({"automationId": "receipt", "condition": "notExists"}, 0.0),
        ({"automationId": "pay", "condition": "notExists"}, None),
        ({"automationId": "pay", "condition": "enabled"}, 0.5),
        ({"automationId": "pay", "condition": "visible"}, 0.0),
        ({"role": "text", "text": "paid", "condition": "exists"}, 0.3),
    ],
)
async def test_each_condition(autojump_clock: Any, given: dict[str, Any], satisfied_at: float | None) -> None:
    timeline = [(0, page()), (0.3, page(receipt=True)), (0.5, page(receipt=True, pay_enabled=True))]
    screens, book = Screens(timeline), SnapshotBook()
    start = trio.current_time()
    if satisfied_at is None:
        with pytest.raises(ToolError):
            await wait(screens, book, timeoutMs=1000, **given)
        return
    answer = await wait(screens, book, timeoutMs=1000, **given)
    assert answer["waitedMs"] == satisfied_at * 1000
    assert round(screens.captures[-1] - start, 3) == satisfied_at
