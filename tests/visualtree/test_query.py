"""Node selection by every criterion, combined with AND, and the ui.wait conditions."""

from __future__ import annotations

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from browx_actors.visualtree.model import Bounds, Point, RawNode, Visual
from browx_actors.visualtree.payload import tree_payload
from browx_actors.visualtree.query import (
    NodeQuery,
    QueryResult,
    matching,
    normalise_text,
    select,
    wait_satisfied,
)
from browx_actors.visualtree.snapshots import Capture
from visualtree.contract_schema import check_tree, nodes_of
from visualtree.trees import capture, leaf

EDIT = "android.widget.EditText"
BUTTON = "android.widget.Button"
TEXT = "android.widget.TextView"
FIELD_ACTIONS = ("focus", "unfocus", "setValue", "typeText")


def screen() -> RawNode:
    return leaf(
        "root",
        "android.widget.FrameLayout",
        bounds=Bounds(0, 0, 1080, 1920),
        children=(
            leaf(
                "root.0", TEXT, "heading", label="Checkout", visual=Visual(text="Checkout"),
                bounds=Bounds(0, 0, 1080, 100),
            ),
            leaf(
                "root.1", EDIT, "input", automation_id="com.example.shop:id/email", label="Email",
                supported_actions=FIELD_ACTIONS, visual=Visual(value="ann@example.com"),
                bounds=Bounds(0, 100, 1080, 100),
            ),
            leaf(
                "root.2", EDIT, "input", automation_id="password", label="Password", secure=True,
                supported_actions=FIELD_ACTIONS, visual=Visual(text="hunter2", value="hunter2"),
                bounds=Bounds(0, 200, 1080, 100),
            ),
            leaf(
                "root.3", BUTTON, "button", automation_id="checkout.submit", label="Pay now",
                supported_actions=("tap",), visual=Visual(text="Pay now"), bounds=Bounds(24, 640, 320, 48),
            ),
            leaf(
                "root.4", BUTTON, "button", label="Pay\u200b later", supported_actions=("tap",), enabled=False,
                bounds=Bounds(400, 640, 320, 48),
            ),
            leaf(
                "root.5", visible=False,
                children=(leaf("root.5.0", TEXT, "text", visible=False, visual=Visual(text="Terms  and\nconditions")),),
            ),
        ),
    )  # fmt: skip


@pytest.fixture
def shot() -> Capture:
    return capture(screen())


def ids(capture_: Capture, **criteria: object) -> list[str]:
    return [node.id for node in select(capture_, NodeQuery(**criteria)).nodes]  # type: ignore[arg-type]


ALL = ["root", "root.0", "root.1", "root.2", "root.3", "root.4", "root.5", "root.5.0"]


@pytest.mark.parametrize(
    ("criteria", "expected"),
    [
        ({}, ALL),
        ({"node_id": "root.3"}, ["root.3"]),
        ({"node_id": "root.9"}, []),
        ({"automation_id": "checkout.submit"}, ["root.3"]),
        ({"automation_id": "com.example.shop:id/email"}, ["root.1"]),
        ({"automation_id": "email"}, ["root.1"]),
        ({"automation_id": "mail"}, []),
        ({"automation_id": "checkout"}, []),
        ({"role": "button"}, ["root.3", "root.4"]),
        ({"role": "input"}, ["root.1", "root.2"]),
        ({"type_name": BUTTON}, ["root.3", "root.4"]),
        ({"type_name": "EditText"}, ["root.1", "root.2"]),
        ({"type_name": "widget.EditText"}, []),
        ({"action": "setValue"}, ["root.1", "root.2"]),
        ({"action": "tap"}, ["root.3", "root.4"]),
        ({"action": "toggle"}, []),
        ({"visible": False}, ["root.5", "root.5.0"]),
        ({"enabled": False}, ["root.4"]),
        ({"role": "button", "enabled": True}, ["root.3"]),
        ({"role": "input", "automation_id": "password", "action": "typeText"}, ["root.2"]),
        ({"role": "button", "visible": False}, []),
    ],
)
def test_each_criterion_and_their_conjunction(shot: Capture, criteria: dict[str, object], expected: list[str]) -> None:
    assert ids(shot, **criteria) == expected


@pytest.mark.parametrize(
    ("text", "match", "expected"),
    [
        ("pay", "contains", ["root.3", "root.4"]),
        ("PAY NOW", "contains", ["root.3"]),
        ("Pay now", "exact", ["root.3"]),
        ("pay now", "exact", []),
        ("Pay", "exact", []),
        ("Pay later", "exact", ["root.4"]),  # a zero-width space in the label is not seen
        ("  Pay   later ", "exact", ["root.4"]),
        ("Terms and conditions", "exact", ["root.5.0"]),  # runs of whitespace collapse
        ("ann@example", "contains", ["root.1"]),  # the value
        ("checkout", "contains", ["root.0"]),  # the label and text, never the automation id
        ("Password", "exact", ["root.2"]),  # a secure field's label is searchable...
        ("hunter2", "contains", []),  # ...its text and value are not
    ],
)
def test_text_matching(shot: Capture, text: str, match: str, expected: list[str]) -> None:
    assert ids(shot, text=text, text_match=match) == expected


@pytest.mark.parametrize(
    ("criteria", "expected"),
    [
        ({"intersects": Bounds(300, 650, 200, 10)}, ["root", "root.3", "root.4"]),
        ({"intersects": Bounds(344, 640, 10, 10)}, ["root"]),  # touching root.3's right edge is not overlap
        ({"intersects": Bounds(2000, 0, 10, 10)}, []),
        ({"contains": Bounds(30, 645, 10, 10)}, ["root", "root.3"]),
        ({"contains": Bounds(30, 645, 400, 10)}, ["root"]),
        ({"contains": Point(343.9, 650)}, ["root", "root.3"]),
        ({"contains": Point(344, 650)}, ["root"]),  # edges are half-open
        ({"contains": Point(24, 640)}, ["root", "root.3"]),
        ({"contains": Point(50, 150), "role": "input"}, ["root.1"]),
    ],
)
def test_bounds_criteria(shot: Capture, criteria: dict[str, object], expected: list[str]) -> None:
    # root.5 and root.5.0 have no bounds: no geometric criterion matches them.
    assert ids(shot, **criteria) == expected


def test_matches_are_full_references_in_document_order(shot: Capture) -> None:
    result = select(shot, NodeQuery(role="button"))
    assert [reference.to_json() for reference in result.references] == [
        {"source": "native", "snapshotId": shot.snapshot_id, "revision": shot.revision, "nodeId": node_id}
        for node_id in ("root.3", "root.4")
    ]


def test_every_match_is_a_node_of_the_capture_payload(shot: Capture) -> None:
    payload = check_tree(tree_payload(shot))
    shown = {node["id"] for node in nodes_of(payload["root"])}
    assert {reference.node_id for reference in select(shot, NodeQuery()).references} == shown


@pytest.mark.parametrize(
    "criteria",
    [
        {"role": "textbox"},
        {"action": "click"},
        {"text": ""},
        {"text": " \u200b\n"},
        {"text": "x", "text_match": "regex"},
    ],
)
def test_a_query_that_cannot_mean_anything_is_refused(criteria: dict[str, object]) -> None:
    with pytest.raises(ValueError):
        NodeQuery(**criteria)  # type: ignore[arg-type]


# Letters whose case folding changes length (sharp s, dotted I, sigma), whitespace and
# invisible format characters.
letters = st.text(st.sampled_from("aAbB\u00df\u0130\u03c3\u03a3 \t\n\u200b\u200d\ufeffxyz"), min_size=1, max_size=30)


@given(letters, st.data())
def test_any_piece_of_a_label_finds_its_node(label: str, data: st.DataObject) -> None:
    start = data.draw(st.integers(0, len(label) - 1))
    end = data.draw(st.integers(start + 1, len(label)))
    piece = label[start:end]
    assume(normalise_text(piece))
    node = leaf("root", label=label)
    assert [found.id for found in select(capture(node), NodeQuery(text=piece.upper())).nodes] == ["root"]
    assert select(capture(node), NodeQuery(text=label, text_match="exact")).nodes == (node,)


# -- ui.wait conditions --------------------------------------------------------------


def result_of(*nodes: RawNode) -> tuple[RawNode, ...]:
    cap = capture(leaf("root", children=nodes))
    return QueryResult(cap, tuple(cap.node(node.id) for node in nodes)).nodes  # type: ignore[misc]


SHOWN = leaf("a")
HIDDEN = leaf("b", visible=False)
DISABLED = leaf("c", enabled=False)


@pytest.mark.parametrize(
    ("condition", "nodes", "satisfied"),
    [
        ("exists", (), False),
        ("exists", (HIDDEN,), True),
        ("notExists", (), True),
        ("notExists", (SHOWN,), False),
        ("visible", (), False),
        ("visible", (HIDDEN,), False),
        ("visible", (HIDDEN, SHOWN), True),
        ("enabled", (), False),
        ("enabled", (DISABLED,), False),
        ("enabled", (DISABLED, SHOWN), True),
        ("enabled", (DISABLED._replace(id="d", enabled=True, visible=False),), True),
    ],
)
def test_wait_conditions(condition: str, nodes: tuple[RawNode, ...], satisfied: bool) -> None:
    assert wait_satisfied(condition, result_of(*nodes)) is satisfied  # type: ignore[arg-type]


def test_an_unknown_wait_condition_is_a_bug() -> None:
    with pytest.raises(ValueError):
        wait_satisfied("gone", result_of())  # type: ignore[arg-type]


def test_waiting_for_a_button_to_enable_across_captures(shot: Capture) -> None:
    later = screen()._replace(children=tuple(
        child._replace(enabled=True) if child.id == "root.4" else child for child in screen().children
    ))  # fmt: skip
    query = NodeQuery(text="pay later")
    assert not wait_satisfied("enabled", select(shot, query).nodes)
    assert wait_satisfied("enabled", select(capture(later), query).nodes)


def test_matching_an_unrecorded_tree_is_selecting_in_its_capture(shot: Capture) -> None:
    for query in (NodeQuery(), NodeQuery(role="button"), NodeQuery(text="pay"), NodeQuery(visible=False)):
        assert matching(screen(), query) == select(shot, query).nodes


def test_a_type_matches_in_full_or_in_its_short_form_on_either_platform() -> None:
    from browx_actors.visualtree.query import _type_matches

    assert _type_matches("XCUIElementTypeButton", "Button") and _type_matches("XCUIElementTypeButton",
                                                                                "XCUIElementTypeButton")
    assert _type_matches("android.widget.Button", "Button")
    assert not _type_matches("XCUIElementTypeButton", "ElementTypeButton")
