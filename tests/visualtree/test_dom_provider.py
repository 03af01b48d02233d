"""The DOM provider's side in Python: the page agent's node JSON as raw nodes.

What the agent reads from a real page is tested on real Chromium
(``test_e2e_visual.py``); here, the translation: defaults for what the agent leaves out,
flags, the provider's own limit in ``childCount``, a password never reaching a payload,
a page nested deeper than Python's recursion limit, and one nested deeper than the MCP
SDK's JSON parser takes (the payload's depth limit is what lets it through).
"""

from __future__ import annotations

import json
import sys
from typing import Any

import mcp.types as types
import pydantic
import pytest

from browx_actors.sessions.chromium.reading.dom_provider import DomProvider, raw_tree
from browx_actors.visualtree.model import DOM_FORMAT, Bounds, RawNode, Visual
from browx_actors.visualtree.payload import DEPTH_LIMIT, TreeLimits, tree_payload
from visualtree.contract_schema import check_tree, nodes_of
from visualtree.trees import WEB, capture

PAGE: dict[str, Any] = {
    "id": "n1", "tag": "html", "role": "container", "b": [0, 0, 1280, 720],
    "kids": [{
        "id": "n2", "tag": "body", "role": "container", "b": [0, 0, 1280, 720], "bg": "rgb(250, 250, 250)",
        "kids": [
            {"id": "n3", "tag": "button", "role": "button", "aid": "checkout.submit", "label": "Pay now",
             "acts": ["focus", "tap", "unfocus"], "fcb": 1, "fcd": 1, "b": [24.5, 640, 320, 48],
             "fg": "rgb(255, 255, 255)", "bg": "rgb(0, 102, 204)", "text": "Pay now", "z": 2},
            {"id": "n4", "tag": "input", "role": "input", "label": "Password", "sec": 1,
             "acts": ["tap", "focus", "unfocus", "setValue", "typeText"], "fcb": 1, "b": [0, 100, 200, 20]},
            {"id": "n5", "tag": "div", "role": "container", "hid": 1, "dis": 1, "op": 0.5,
             "kids": [{"id": "n6", "tag": "span", "role": "text", "hid": 1, "text": "Secret panel"}]},
            {"id": "n7", "tag": "ul", "role": "list", "b": [0, 200, 100, 100], "more": 40,
             "kids": [{"id": "n8", "tag": "li", "role": "listitem", "b": [0, 200, 100, 10], "text": "first"}]},
        ],
    }],
}  # fmt: skip


def by_id(root: RawNode) -> dict[str, RawNode]:
    return {node.id: node for node in nodes_of_raw(root)}


def nodes_of_raw(root: RawNode) -> list[RawNode]:
    out, stack = [], [root]
    while stack:
        node = stack.pop()
        out.append(node)
        stack.extend(reversed(node.children))
    return out


def test_the_agent_json_becomes_raw_nodes_with_its_defaults() -> None:
    nodes = by_id(raw_tree(PAGE))
    assert [node.id for node in nodes_of_raw(raw_tree(PAGE))] == ["n1", "n2", "n3", "n4", "n5", "n6", "n7", "n8"]
    assert nodes["n3"] == RawNode(
        id="n3", type_name="button", role="button", automation_id="checkout.submit", label="Pay now",
        supported_actions=("tap", "focus", "unfocus"), visible=True, enabled=True, focusable=True, focused=True,
        bounds=Bounds(24.5, 640, 320, 48),
        visual=Visual(foreground="rgb(255, 255, 255)", background="rgb(0, 102, 204)", text="Pay now"), z=2,
    )  # fmt: skip
    # The agent leaves out what is default: visible, enabled, not focusable, opacity 1.
    assert (nodes["n1"].visible, nodes["n1"].enabled, nodes["n1"].focusable, nodes["n1"].focused) == (
        True, True, False, False,
    )  # fmt: skip
    assert nodes["n1"].visual == Visual() and nodes["n1"].bounds == Bounds(0, 0, 1280, 720)
    assert (nodes["n5"].visible, nodes["n5"].enabled, nodes["n5"].visual.opacity) == (False, False, 0.5)
    assert nodes["n6"].bounds is None  # under display:none: no box
    assert nodes["n7"].omitted_children == 40 and len(nodes["n7"].children) == 1


def test_every_field_the_agent_sends_lands_in_its_own() -> None:
    child = {"id": "n2", "tag": "i", "role": "image"}
    sent = {
        "id": "n1", "tag": "input", "role": "input", "aid": "pin", "label": "PIN", "acts": ["typeText", "tap"],
        "hid": 1, "dis": 1, "fcb": 1, "fcd": 1, "b": [1, 2.5, 3, 4], "fg": "red", "bg": "blue", "op": 0.5,
        "text": "shown", "value": "typed", "sec": 1, "z": 7, "props": {"inputType": "password"}, "more": 9,
        "kids": [child],
    }
    assert raw_tree(sent) == RawNode(
        id="n1", type_name="input", role="input", automation_id="pin", label="PIN",
        supported_actions=("tap", "typeText"), visible=False, enabled=False, focusable=True, focused=True,
        bounds=Bounds(1, 2.5, 3, 4), visual=Visual("red", "blue", 0.5, "shown", "typed"), secure=True, z=7,
        properties={"inputType": "password"}, children=(raw_tree(child),), omitted_children=9,
    )  # fmt: skip


def test_the_payload_of_a_dom_capture_keeps_the_contract() -> None:
    payload = check_tree(tree_payload(capture(raw_tree(PAGE), WEB)))
    assert payload["format"] == DOM_FORMAT == DomProvider.format
    nodes = {node["id"]: node for node in nodes_of(payload["root"])}
    assert nodes["n3"]["visual"] == {"foreground": "#FFFFFFFF", "background": "#FF0066CC", "opacity": 1,
                                     "text": "Pay now"}
    assert nodes["n3"]["interactable"] is True and nodes["n3"]["z"] == 2
    assert nodes["n4"]["interactable"] is True and nodes["n4"]["visual"] == {"opacity": 1}
    assert nodes["n5"]["interactable"] is False and "bounds" not in nodes["n6"]
    # The list's provider-cut children still count: 1 shown + 40 the agent left out.
    assert nodes["n7"]["childCount"] == 41 and len(nodes["n7"]["children"]) == 1
    placeholder = check_tree(tree_payload(capture(raw_tree(PAGE), WEB), limits=TreeLimits(max_depth=1)))
    assert [child["id"] for child in placeholder["root"]["children"][0]["children"]] == ["n3", "n4", "n5", "n7"]


def test_a_password_value_never_reaches_a_payload_even_if_the_agent_sent_one() -> None:
    leaked = {"id": "n1", "tag": "input", "role": "input", "sec": 1, "value": "hunter2", "text": "hunter2"}
    payload = check_tree(tree_payload(capture(raw_tree(leaked), WEB)))
    assert "hunter2" not in json.dumps(payload)


def test_a_page_nested_deeper_than_the_recursion_limit() -> None:
    depth = sys.getrecursionlimit() * 2
    root: dict[str, Any] = {"id": "n0", "tag": "div", "role": "container"}
    node = root
    for index in range(1, depth):
        child = {"id": f"n{index}", "tag": "div", "role": "container"}
        node["kids"] = [child]
        node = child
    raw = raw_tree(root)
    assert len(nodes_of_raw(raw)) == depth
    payload = check_tree(tree_payload(capture(raw, WEB), limits=TreeLimits(max_nodes=10)))
    assert len(list(nodes_of(payload["root"]))) == 10


def _chain(depth: int) -> dict[str, Any]:
    root: dict[str, Any] = {"id": "n0", "tag": "div", "role": "container"}
    node = root
    for index in range(1, depth):
        child = {"id": f"n{index}", "tag": "div", "role": "container"}
        node["kids"] = [child]
        node = child
    return root


def _over_the_wire(structured: dict[str, Any]) -> None:
    """Serialise a tool result as the SDK's server does and parse it as its client does."""
    result = types.CallToolResult(content=[types.TextContent(type="text", text="{}")],
                                  structured_content=structured, is_error=False)
    message = types.JSONRPCResponse(jsonrpc="2.0", id=1, result=result.model_dump(by_alias=True, mode="json"))
    types.jsonrpc_message_adapter.validate_json(message.model_dump_json(by_alias=True), by_name=False)


def _in_a_batch_with_after(payload: dict[str, Any]) -> dict[str, Any]:
    """The deepest place a payload rides: an ``after`` capture of a call inside ``tool.batch``."""
    inner = {"ok": True, "after": {"visualTree": {"ok": True, **payload}}}
    return {"ok": True, "results": [{"tool": "click", "result": inner}], "completed": 1}


def test_a_deep_page_still_crosses_the_mcp_wire_inside_a_batch() -> None:
    payload = check_tree(tree_payload(capture(raw_tree(_chain(300)), WEB)))
    assert len(list(nodes_of(payload["root"]))) == DEPTH_LIMIT + 2  # 65 levels in full, a placeholder below
    _over_the_wire(_in_a_batch_with_after(payload))
    # The limit is what makes it cross: nested 40 levels deeper, the SDK's client refuses it.
    deeper = tree_payload(capture(raw_tree(_chain(300)), WEB))
    node = deeper["root"]
    while node["children"] and not node["children"][0].get("truncated"):
        node = node["children"][0]
    node["children"] = [tree_payload(capture(raw_tree(_chain(40)), WEB))["root"]]
    with pytest.raises(pydantic.ValidationError, match="recursion limit"):
        _over_the_wire(_in_a_batch_with_after(deeper))
