"""The raw node's invariants: a provider bug fails loudly, before it can reach a payload.

An unknown role, an unknown or repeated supported action, and an opacity outside
``[0, 1]`` (or not a number at all) are refused when the node is made, whichever way it
is made: by hand, by the DOM provider from the page agent's JSON, or by the native
provider from a ``NativeNode``.
"""

from __future__ import annotations

import math
from typing import Any

import pytest

from browx_actors.devices.nodes import NativeNode
from browx_actors.sessions.chromium.dom_provider import raw_tree
from browx_actors.visualtree.model import ACTIONS, ROLES, RawNode, Visual
from browx_actors.visualtree.native_provider import to_raw_tree

BAD_OPACITIES = [-0.01, 1.01, 2, math.nan, math.inf, -math.inf]


def test_every_role_and_no_other() -> None:
    for role in ROLES:
        assert RawNode(id="n1", type_name="div", role=role).role == role
    for role in ("textbox", "Button", "", "generic"):
        with pytest.raises(ValueError, match="role"):
            RawNode(id="n1", type_name="div", role=role)


def test_actions_are_put_in_contract_order_and_checked() -> None:
    node = RawNode(id="n1", type_name="input", role="input", supported_actions=["typeText", "tap", "focus"])
    assert node.supported_actions == ("tap", "focus", "typeText")
    assert RawNode(id="n1", type_name="div", role="container", supported_actions=ACTIONS[::-1]).supported_actions == (
        ACTIONS
    )
    with pytest.raises(ValueError, match="unknown actions"):
        RawNode(id="n1", type_name="div", role="button", supported_actions=("tap", "click"))
    with pytest.raises(ValueError, match="twice"):
        RawNode(id="n1", type_name="div", role="button", supported_actions=("tap", "tap"))


@pytest.mark.parametrize("opacity", [0, 0.0, 0.5, 1, 1.0])
def test_an_opacity_within_the_unit_interval(opacity: float) -> None:
    assert Visual(opacity=opacity).opacity == opacity


@pytest.mark.parametrize("opacity", BAD_OPACITIES)
def test_an_opacity_outside_the_unit_interval_is_a_bug(opacity: float) -> None:
    with pytest.raises(ValueError, match="opacity"):
        Visual(opacity=opacity)
    with pytest.raises(ValueError, match="opacity"):
        Visual("rgb(0, 0, 0)", None, opacity, "text", None)


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
def test_the_dom_provider_cannot_hand_over_a_bad_node(fields: dict[str, Any]) -> None:
    assert raw_tree(_page()).children[0].role == "text"
    with pytest.raises(ValueError):
        raw_tree(_page(**fields))


def test_the_dom_provider_orders_the_agents_actions() -> None:
    assert raw_tree(_page(acts=["unfocus", "tap"])).children[0].supported_actions == ("tap", "unfocus")


def test_the_native_provider_makes_only_contract_nodes() -> None:
    odd = NativeNode(role="no-such-role", tag="Odd", clickable=True, checkable=True)
    node = to_raw_tree(NativeNode(role="window", tag="Window", children=(odd,)))
    assert node.children[0].role == "container" and node.children[0].supported_actions == ("tap", "toggle")
