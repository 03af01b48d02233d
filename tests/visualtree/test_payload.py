"""The compact v2 payload: the contract's example, field rules, the type registry, truncation
and inspection. Every payload built here passes the contract schema."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from browx_actors.errors import ToolError
from browx_actors.visualtree.model import ACTIONS, Bounds, RawNode, Visual, canonical_actions
from browx_actors.visualtree.payload import TEXT_LIMIT, TreeLimits, inspect_payload, tree_payload
from visualtree.contract_schema import check_inspection, check_tree, nodes_of
from visualtree.trees import WEB, capture, checkout, leaf, wide


def tree(root: RawNode, **options: Any) -> dict[str, Any]:
    return check_tree(tree_payload(capture(root), **options))


def only_node(node: RawNode, **options: Any) -> dict[str, Any]:
    root: dict[str, Any] = tree(node, **options)["root"]
    return root


# -- the contract's example ----------------------------------------------------------


def test_the_spec_example_screen_reads_as_the_spec_shows_it() -> None:
    payload = tree(checkout())
    assert list(payload) == [
        "format", "platform", "source", "snapshotId", "revision", "nodeIdentity", "capturedAtUtc", "types", "root",
    ]  # fmt: skip
    assert payload["format"] == "ansight.native.visual-tree.compact.v2"
    assert (payload["platform"], payload["source"], payload["revision"]) == ("android", "native", 1)
    assert payload["snapshotId"].startswith("native:1:")
    assert payload["nodeIdentity"] == {"scope": "snapshot", "source": "native", "staleAfterRevision": 1}
    assert payload["capturedAtUtc"] == "2026-08-21T01:02:03.456Z"
    assert payload["types"] == ["android.widget.FrameLayout", "android.widget.Button"]
    assert payload["root"] == {
        "id": "root",
        "typeId": 0,
        "role": "container",
        "supportedActions": [],
        "interactable": False,
        "visible": True,
        "enabled": True,
        "focusable": False,
        "childCount": 1,
        "visual": {"opacity": 1},
        "children": [
            {
                "id": "root.0",
                "typeId": 1,
                "automationId": "checkout.submit",
                "label": "Pay now",
                "role": "button",
                "supportedActions": ["tap"],
                "interactable": True,
                "visible": True,
                "enabled": True,
                "focusable": True,
                "childCount": 0,
                "bounds": {"x": 24, "y": 640, "width": 320, "height": 48},
                "visual": {"foreground": "#FFFFFFFF", "background": "#FF0066CC", "opacity": 1, "text": "Pay now"},
                "children": [],
            }
        ],
    }


def test_a_dom_capture_names_its_own_format_platform_and_source() -> None:
    payload = check_tree(tree_payload(capture(leaf("e1", "div"), WEB)))
    assert (payload["format"], payload["platform"], payload["source"]) == (
        "ansight.dom.visual-tree.compact.v2", "web", "dom",
    )  # fmt: skip
    assert payload["snapshotId"].startswith("dom:1:")


# -- field rules ---------------------------------------------------------------------


def test_absent_optional_fields_are_left_out_never_null() -> None:
    payload = tree(leaf("root", automation_id="", label=""))
    assert payload["root"] == {
        "id": "root",
        "typeId": 0,
        "role": "container",
        "supportedActions": [],
        "interactable": False,
        "visible": True,
        "enabled": True,
        "childCount": 0,
        "visual": {"opacity": 1},
        "children": [],
    }
    assert "null" not in json.dumps(payload)


def test_every_field_of_a_node_lands_in_its_own_entry() -> None:
    node = RawNode(
        id="root", type_name="Edit", role="input", automation_id="pin", label="PIN",
        supported_actions=("tap", "typeText"), visible=False, enabled=True, focusable=True, focused=False,
        bounds=Bounds(1, 2.5, 3, 4.25), visual=Visual("red", "blue", 0.5, "shown", "typed"), secure=False, z=-1,
        properties={"k": "v"}, children=(leaf("root.0"),), omitted_children=2,
    )  # fmt: skip
    entry = tree(node, include_properties=True)["root"]
    del entry["children"]
    assert entry == {
        "id": "root", "typeId": 0, "automationId": "pin", "label": "PIN", "role": "input",
        "supportedActions": ["tap", "typeText"], "interactable": False, "visible": False, "enabled": True,
        "focusable": True, "focused": False, "childCount": 3, "bounds": {"x": 1, "y": 2.5, "width": 3, "height": 4.25},
        "visual": {"foreground": "#FFFF0000", "background": "#FF0000FF", "opacity": 0.5, "text": "shown",
                   "value": "typed"},
        "z": -1, "properties": {"k": "v"},
    }  # fmt: skip
    assert "text" not in tree(node._replace(secure=True))["root"]["visual"]


@pytest.mark.parametrize(
    ("visible", "enabled", "actions", "interactable"),
    [
        (True, True, ("tap",), True),
        (True, True, ("focus", "unfocus"), True),
        (False, True, ("tap",), False),
        (True, False, ("tap",), False),
        (True, True, (), False),
    ],
)
def test_interactable_is_visible_and_enabled_with_an_action(
    visible: bool, enabled: bool, actions: tuple[str, ...], interactable: bool
) -> None:
    node = only_node(leaf("root", visible=visible, enabled=enabled, supported_actions=actions))
    assert node["interactable"] is interactable


def test_supported_actions_are_listed_in_one_order() -> None:
    # A provider that gathers them in another order sorts them; a node that is not sorted
    # is a provider bug, refused before any payload is made from it.
    node = only_node(leaf("root", supported_actions=canonical_actions(("toggle", "tap", "setValue"))))
    assert node["supportedActions"] == ["tap", "setValue", "toggle"]
    with pytest.raises(ValueError, match="order"):
        only_node(leaf("root", supported_actions=("toggle", "tap", "setValue")))


def test_state_flags_appear_when_the_provider_reports_them() -> None:
    node = only_node(leaf("root", focusable=True, focused=False))
    assert (node["focusable"], node["focused"]) == (True, False)


def test_secure_text_and_value_are_omitted_and_the_label_kept() -> None:
    field = leaf(
        "root", "android.widget.EditText", "input", label="Password", secure=True,
        visual=Visual(text="hunter2", value="hunter2"),
    )  # fmt: skip
    node = only_node(field)
    assert node["label"] == "Password"
    assert node["visual"] == {"opacity": 1}
    assert "hunter2" not in json.dumps(tree(field))


def test_displayed_strings_are_bounded_and_say_so() -> None:
    long = "x" * (TEXT_LIMIT + 10)
    node = only_node(leaf("root", label=long, visual=Visual(text=long, value=long)))
    assert node["label"] == node["visual"]["text"] == node["visual"]["value"] == "x" * TEXT_LIMIT
    assert node["labelClipped"] is node["visual"]["textClipped"] is node["visual"]["valueClipped"] is True


def test_a_string_at_the_bound_is_whole() -> None:
    exact = "y" * TEXT_LIMIT
    node = only_node(leaf("root", label=exact, visual=Visual(text=exact)))
    assert node["label"] == node["visual"]["text"] == exact
    assert "labelClipped" not in node and "textClipped" not in node["visual"]


def test_an_empty_value_is_a_value_and_empty_text_is_none() -> None:
    node = only_node(leaf("root", visual=Visual(text="", value="")))
    assert node["visual"] == {"opacity": 1, "value": ""}


def test_unreadable_colours_are_left_out() -> None:
    node = only_node(leaf("root", visual=Visual(foreground="currentcolor", background="rgba(0, 0, 0, 0)")))
    assert node["visual"] == {"background": "#00000000", "opacity": 1}


def test_numbers_read_as_integers_when_whole() -> None:
    node = only_node(leaf("root", bounds=Bounds(10.0, 10.456, 0.5, 48.0), visual=Visual(opacity=0.25)))
    assert node["bounds"] == {"x": 10, "y": 10.46, "width": 0.5, "height": 48}
    assert node["visual"]["opacity"] == 0.25
    assert isinstance(node["bounds"]["x"], int)


@pytest.mark.parametrize(("z", "shown"), [(0, False), (3, True), (-1, True)])
def test_z_only_when_not_the_default(z: int, shown: bool) -> None:
    node = only_node(leaf("root", z=z))
    assert ("z" in node) is shown
    if shown:
        assert node["z"] == z


def test_properties_only_when_requested() -> None:
    node = leaf("root", properties={"display": "flex", "zIndex": "2"})
    assert "properties" not in only_node(node)
    assert only_node(node, include_properties=True)["properties"] == {"display": "flex", "zIndex": "2"}
    assert "properties" not in only_node(leaf("root", properties={}), include_properties=True)
    assert "properties" not in only_node(leaf("root"), include_properties=True)


# -- the type registry ---------------------------------------------------------------


def _two_types(first: str, second: str) -> RawNode:
    return leaf("root", first, children=(leaf("root.0", second), leaf("root.1", first)))


def test_the_registry_is_local_to_each_payload() -> None:
    one = tree(_two_types("Frame", "Button"))
    other = tree(_two_types("Button", "Frame"))
    assert one["types"] == ["Frame", "Button"] and other["types"] == ["Button", "Frame"]
    for payload, expected in ((one, ["Frame", "Button", "Frame"]), (other, ["Button", "Frame", "Button"])):
        nodes = list(nodes_of(payload["root"]))
        assert [payload["types"][node["typeId"]] for node in nodes] == expected


def test_the_registry_lists_each_type_in_the_payload_once_and_no_other() -> None:
    root = leaf("root", "A", children=(leaf("root.0", "B", children=(leaf("root.0.0", "C"),)), leaf("root.1", "B")))
    assert tree(root)["types"] == ["A", "B", "C"]
    assert tree(root, limits=TreeLimits(max_nodes=2))["types"] == ["A", "B"]


# -- truncation ----------------------------------------------------------------------


def test_max_depth_turns_the_next_level_into_placeholders() -> None:
    root = tree(wide(3, 3), limits=TreeLimits(max_depth=1))["root"]
    assert [child["id"] for child in root["children"]] == ["root.0", "root.1", "root.2"]
    for child in root["children"]:
        assert "truncated" not in child and child["childCount"] == 3
        for grandchild in child["children"]:
            assert grandchild == {**grandchild, "truncated": True, "childCount": 3}
            assert set(grandchild) == {"id", "typeId", "truncated", "childCount"}


def test_max_depth_zero_shows_the_root_and_placeholders() -> None:
    payload = tree(wide(2, 2), limits=TreeLimits(max_depth=0))
    assert [child["truncated"] for child in payload["root"]["children"]] == [True, True]
    assert payload["types"] == ["Level0", "Level1"]


def test_a_placeholder_keeps_its_stacking() -> None:
    root = leaf("root", children=(leaf("root.0", z=2, label="hidden"),))
    placeholder = tree(root, limits=TreeLimits(max_depth=0))["root"]["children"][0]
    assert placeholder == {"id": "root.0", "typeId": 0, "truncated": True, "childCount": 0, "z": 2}


def test_max_nodes_is_spent_breadth_first() -> None:
    payload = tree(wide(3, 2), limits=TreeLimits(max_nodes=5))
    root = payload["root"]
    assert len(list(nodes_of(root))) == 5
    assert [child["id"] for child in root["children"]] == ["root.0", "root.1", "root.2"]
    assert [len(child["children"]) for child in root["children"]] == [1, 0, 0]
    assert all(child["childCount"] == 3 for child in root["children"])


def test_max_nodes_of_one_is_the_root_alone() -> None:
    root = tree(wide(3, 2), limits=TreeLimits(max_nodes=1))["root"]
    assert (root["children"], root["childCount"]) == ([], 3)


def test_placeholders_count_against_max_nodes() -> None:
    root = tree(wide(4, 2), limits=TreeLimits(max_depth=0, max_nodes=3))["root"]
    assert [child["id"] for child in root["children"]] == ["root.0", "root.1"]
    assert root["childCount"] == 4


def test_root_node_id_answers_that_subtree_with_depth_counted_from_it() -> None:
    payload = tree(wide(2, 3), root_node_id="root.1", limits=TreeLimits(max_depth=0))
    assert payload["root"]["id"] == "root.1"
    assert [child["id"] for child in payload["root"]["children"]] == ["root.1.0", "root.1.1"]
    assert all(child["truncated"] for child in payload["root"]["children"])
    assert payload["types"] == ["Level1", "Level2"]


def test_an_unknown_root_node_id_is_not_found() -> None:
    with pytest.raises(ToolError) as caught:
        tree_payload(capture(wide(2, 1)), root_node_id="root.7")
    assert caught.value.code == "target-not-found"
    assert caught.value.details["field"] == "rootNodeId" and caught.value.details["nodeId"] == "root.7"


def test_limits_are_checked() -> None:
    with pytest.raises(ValueError):
        TreeLimits(max_depth=-1)
    with pytest.raises(ValueError):
        TreeLimits(max_nodes=0)


# -- inspection ----------------------------------------------------------------------


def test_inspect_gives_the_node_its_ancestors_and_descendants() -> None:
    cap = capture(wide(2, 3))
    payload = check_inspection(inspect_payload(cap, "root.1.0"))
    assert [ancestor["id"] for ancestor in payload["ancestors"]] == ["root", "root.1"]
    assert all("children" not in ancestor and ancestor["childCount"] == 2 for ancestor in payload["ancestors"])
    node = payload["node"]
    assert node["id"] == "root.1.0"
    assert [child["id"] for child in node["children"]] == ["root.1.0.0", "root.1.0.1"]
    assert payload["types"] == ["Level0", "Level1", "Level2", "Level3"]
    assert payload["snapshotId"] == cap.snapshot_id


def test_inspect_of_the_root_has_no_ancestors() -> None:
    payload = check_inspection(inspect_payload(capture(checkout()), "root"))
    assert payload["ancestors"] == [] and payload["node"]["children"][0]["id"] == "root.0"


def test_inspect_bounds_the_descendants() -> None:
    big = capture(wide(6, 4))  # 1,555 nodes
    payload = check_inspection(inspect_payload(big, "root"))
    assert len(list(nodes_of(payload["node"]))) == 200
    shallow = check_inspection(inspect_payload(big, "root.0", limits=TreeLimits(max_depth=0)))
    assert all(child["truncated"] for child in shallow["node"]["children"])


def test_inspect_applies_the_same_field_rules() -> None:
    field = leaf("root.0", "EditText", "input", secure=True, visual=Visual(value="hunter2"), properties={"k": 1})
    cap = capture(leaf("root", children=(field,)))
    assert check_inspection(inspect_payload(cap, "root.0"))["node"]["visual"] == {"opacity": 1}
    assert check_inspection(inspect_payload(cap, "root.0", include_properties=True))["node"]["properties"] == {"k": 1}


def test_inspect_of_an_unknown_node_is_not_found() -> None:
    with pytest.raises(ToolError) as caught:
        inspect_payload(capture(checkout()), "root.9")
    assert (caught.value.code, caught.value.details["field"]) == ("target-not-found", "nodeId")


# -- any tree, any limits ------------------------------------------------------------

shapes = st.recursive(st.just(()), lambda children: st.lists(children, max_size=4).map(tuple), max_leaves=40)
visuals = st.builds(
    Visual,
    foreground=st.sampled_from([None, "rgb(1, 2, 3)", "#abc", "nonsense", 0x7F000000]),
    background=st.sampled_from([None, "transparent", "rgba(9, 9, 9, 0.5)", -1]),
    opacity=st.floats(0, 1),
    text=st.none() | st.text(max_size=300),
    value=st.none() | st.text(max_size=300),
)
node_fields = st.fixed_dictionaries(
    {
        "type_name": st.sampled_from(["Frame", "Button", "Text", "Edit"]),
        "label": st.none() | st.text(max_size=300),
        "supported_actions": st.lists(st.sampled_from(ACTIONS), unique=True).map(canonical_actions),
        "visible": st.booleans(),
        "enabled": st.booleans(),
        "focused": st.none() | st.booleans(),
        "secure": st.booleans(),
        "z": st.integers(-2, 2),
        "visual": visuals,
        "properties": st.none() | st.just({"k": "v"}),
    }
)


@st.composite
def raw_trees(draw: st.DrawFn) -> RawNode:
    def build(shape: tuple[Any, ...], node_id: str) -> RawNode:
        children = tuple(build(child, f"{node_id}.{index}") for index, child in enumerate(shape))
        fields: dict[str, Any] = draw(node_fields)
        return RawNode(id=node_id, role="container", children=children, **fields)

    return build(draw(shapes), "root")


def _depths(root: RawNode) -> dict[str, tuple[int, RawNode]]:
    found: dict[str, tuple[int, RawNode]] = {}
    stack = [(root, 0)]
    while stack:
        node, depth = stack.pop()
        found[node.id] = (depth, node)
        stack.extend((child, depth + 1) for child in node.children)
    return found


# Each example builds, serialises and validates a whole tree: slow VMs need no deadline.
@settings(deadline=None)
@given(
    raw_trees(),
    st.none() | st.integers(0, 4),
    st.none() | st.integers(1, 30),
    st.booleans(),
)
def test_any_tree_under_any_limits_keeps_the_contract(
    root: RawNode, max_depth: int | None, max_nodes: int | None, include_properties: bool
) -> None:
    payload = tree(root, limits=TreeLimits(max_depth, max_nodes), include_properties=include_properties)
    raw = _depths(root)
    entries = list(nodes_of(payload["root"]))
    if max_nodes is not None:
        assert len(entries) <= max_nodes
    for entry in entries:
        depth, node = raw[entry["id"]]
        assert payload["types"][entry["typeId"]] == node.type_name
        assert entry["childCount"] == len(node.children)
        if entry.get("truncated"):
            assert max_depth is not None and depth == max_depth + 1
            continue
        assert max_depth is None or depth <= max_depth
        shown = [child["id"] for child in entry["children"]]
        assert shown == [child.id for child in node.children][: len(shown)]
        if node.secure:
            assert "text" not in entry["visual"] and "value" not in entry["visual"]
    if max_nodes is None:
        expected = {node_id for node_id, (depth, _) in raw.items() if max_depth is None or depth <= max_depth + 1}
        assert {entry["id"] for entry in entries} == expected
    assert sorted(set(payload["types"])) == sorted({payload["types"][entry["typeId"]] for entry in entries})

