"""The raw node's invariants: a provider bug fails loudly, before anything is answered from it.

An unknown role, an unknown or repeated supported action, and an opacity outside
``[0, 1]`` (or not a number at all) are refused by ``check_node``. Nodes are named tuples
and check nothing as they are made, so what matters is that no way from a provider to
an answer skips the check: recording a capture (every ``ui.*`` answer is built from a
recorded capture) and ``ui.wait``'s polls (which match trees they do not record).
"""

from __future__ import annotations

import math
from typing import Any

import pytest
import trio

from browx_actors.devices.nodes import NativeNode
from browx_actors.sessions.chromium.reading.dom_provider import raw_tree
from browx_actors.tools import Reply, validate_args
from browx_actors.tools.visual import QueryNodesArgs, VisualTreeArgs, WaitNodesArgs
from browx_actors.visualtree import operations
from browx_actors.visualtree.model import (
    ACTIONS,
    DOM_FORMAT,
    ROLES,
    Action,
    CaptureOptions,
    RawNode,
    RawTree,
    Visual,
    canonical_actions,
    check_node,
    not_offered,
)
from browx_actors.visualtree.native_provider import to_raw_tree
from browx_actors.visualtree.query import NodeQuery, matching
from browx_actors.visualtree.snapshots import Capture, SnapshotBook
from visualtree.trees import CAPTURED_AT, WEB, capture, leaf

BAD_OPACITIES = [-0.01, 1.01, 2, math.nan, math.inf, -math.inf]
BAD_NODES = {
    "an unknown role": leaf("bad", role="textbox"),
    "an unknown action": leaf("bad", supported_actions=("tap", "click")),
    "a repeated action": leaf("bad", supported_actions=("focus", "focus")),
    "actions out of order": leaf("bad", supported_actions=("toggle", "tap")),
    **{f"opacity {opacity}": leaf("bad", visual=Visual(opacity=opacity)) for opacity in BAD_OPACITIES},
}


def test_every_role_and_no_other() -> None:
    for role in ROLES:
        check_node(leaf("n1", role=role))
    for role in ("textbox", "Button", "", "generic"):
        with pytest.raises(ValueError, match="role"):
            check_node(leaf("n1", role=role))


def test_actions_are_checked_and_shown_in_contract_order() -> None:
    assert canonical_actions(["typeText", "tap", "focus"]) == ("tap", "focus", "typeText")
    assert canonical_actions(ACTIONS[::-1]) == ACTIONS
    with pytest.raises(ValueError, match="unknown actions"):
        check_node(leaf("n1", supported_actions=("tap", "click")))
    with pytest.raises(ValueError, match="twice"):
        check_node(leaf("n1", supported_actions=("tap", "tap")))
    # A node lists them in contract order, as payloads and refusals show them: a provider
    # that gathers them in another order sorts them (canonical_actions) or is refused.
    with pytest.raises(ValueError, match="order"):
        check_node(leaf("n1", supported_actions=("toggle", "tap")))
    listed = leaf("n1", supported_actions=("tap", "toggle"))
    check_node(listed)
    assert not_offered(listed, "focus").details["supportedActions"] == ["tap", "toggle"]


@pytest.mark.parametrize("opacity", [0, 0.0, 0.5, 1, 1.0])
def test_an_opacity_within_the_unit_interval(opacity: float) -> None:
    check_node(leaf("n1", visual=Visual(opacity=opacity)))


@pytest.mark.parametrize("opacity", BAD_OPACITIES)
def test_an_opacity_outside_the_unit_interval_is_a_bug(opacity: float) -> None:
    with pytest.raises(ValueError, match="opacity"):
        check_node(leaf("n1", visual=Visual("rgb(0, 0, 0)", None, opacity, "text", None)))


@pytest.mark.parametrize("bad", BAD_NODES.values(), ids=BAD_NODES.keys())
def test_a_bad_node_anywhere_is_refused_when_recorded_and_when_matched(bad: RawNode) -> None:
    root = leaf("root", children=(leaf("a"), leaf("b", children=(bad,))))
    book = SnapshotBook()
    with pytest.raises(ValueError):
        book.record(WEB, root, CAPTURED_AT)
    assert book.latest("dom") is None
    assert book.record(WEB, leaf("root"), CAPTURED_AT).revision == 1  # the refused one used none up
    with pytest.raises(ValueError):
        matching(root, NodeQuery(node_id="never"))


@pytest.mark.parametrize("bad", BAD_NODES.values(), ids=BAD_NODES.keys())
async def test_no_ui_flow_answers_from_a_providers_bad_node(bad: RawNode) -> None:
    class Provider:
        source: Any = "dom"
        platform: Any = "web"
        format = DOM_FORMAT

        async def capture(self, options: CaptureOptions) -> RawTree:
            return RawTree(leaf("root", children=(leaf("a"), bad)), scope="document-1")

        async def perform(self, capture: Capture, node: RawNode, action: Action, value: str | None = None) -> Reply:
            raise AssertionError("never reached")

    provider, book = Provider(), SnapshotBook()
    with pytest.raises(ValueError):
        await operations.get_tree(provider, book, VisualTreeArgs.of(validate_args(VisualTreeArgs.params(), {})))
    with pytest.raises(ValueError):
        await operations.query_nodes(provider, book, QueryNodesArgs.of(validate_args(QueryNodesArgs.params(),
                                                                                     {"text": "never"})))
    # A wait whose condition never holds fails on its first poll, not at its timeout.
    waiting = WaitNodesArgs.of(validate_args(WaitNodesArgs.params(), {"text": "never", "timeoutMs": 60_000}))
    with trio.fail_after(5), pytest.raises(ValueError):
        await operations.wait_for_nodes(provider, book, waiting)
    assert book.latest("dom") is None


def _page(**fields: Any) -> dict[str, Any]:
    """A page of two elements whose inner one has ``fields`` (as the agent spells them)."""
    inner = {"id": "n2", "tag": "span", "role": "text", "b": [0, 0, 10, 10], "text": "x", **fields}
    return {"id": "n1", "tag": "html", "role": "container", "kids": [inner]}


@pytest.mark.parametrize(
    "fields",
    [
        {"role": "textbox"},
        {"acts": ["tap", "click"]},
        {"acts": ["focus", "focus"]},
        *({"op": opacity} for opacity in BAD_OPACITIES),
    ],
)
def test_the_dom_providers_bad_node_is_refused(fields: dict[str, Any]) -> None:
    capture(raw_tree(_page()), WEB)
    with pytest.raises(ValueError):
        capture(raw_tree(_page(**fields)), WEB)


def test_the_dom_provider_orders_the_agents_actions() -> None:
    assert raw_tree(_page(acts=["unfocus", "tap"])).children[0].supported_actions == ("tap", "unfocus")


def test_the_native_provider_makes_only_contract_nodes() -> None:
    odd = NativeNode(role="no-such-role", tag="Odd", clickable=True, checkable=True)
    node = to_raw_tree(NativeNode(role="window", tag="Window", children=(odd,)))
    assert node.children[0].role == "container" and node.children[0].supported_actions == ("tap", "toggle")
    capture(node)
