"""The native provider: NativeNode trees (by hand and from the real Pixel launcher dump) as
raw nodes, their payloads, and the provider's capture and actions."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from browx_actors.devices.nodes import NativeNode, Rect
from browx_actors.devices.uiautomator import parse_dump
from browx_actors.errors import ToolError
from browx_actors.tools import Reply
from browx_actors.visualtree.model import (
    NATIVE_FORMAT,
    ROLES,
    Action,
    CaptureOptions,
    Point,
    RawNode,
    RawTree,
    unsupported_action,
)
from browx_actors.visualtree.native_provider import (
    NATIVE_ROLES,
    NativeProvider,
    moved,
    native_actions,
    native_path,
    node_id,
    same_node,
    to_raw_tree,
)
from browx_actors.visualtree.payload import TreeLimits, inspect_payload, tree_payload
from browx_actors.visualtree.provider import Provider
from browx_actors.visualtree.query import NodeQuery, select
from browx_actors.visualtree.snapshots import Capture
from fakes.testdata import PIXEL_LAUNCHER_DUMP
from visualtree.contract_schema import check_inspection, check_tree, nodes_of
from visualtree.trees import ANDROID, WEB, Identity, capture

PIXEL_DUMP = PIXEL_LAUNCHER_DUMP


def sign_in() -> NativeNode:
    """A hand-built sign-in screen, as the android-app engine reads one."""
    return NativeNode(
        "generic", "android.widget.FrameLayout", bounds=Rect(0, 0, 1080, 1920),
        children=(
            NativeNode("text", "android.widget.TextView", text="Sign in", bounds=Rect(0, 0, 1080, 120)),
            NativeNode(
                "textbox", "android.widget.EditText", name="Email", text="ann@example.com", value="ann@example.com",
                test_id="com.example.shop:id/email", clickable=True, focusable=True, focused=True,
                bounds=Rect(40, 200, 1000, 120),
            ),
            NativeNode(
                "textbox", "android.widget.EditText", name="Password", text="hunter2", value="hunter2",
                test_id="password", clickable=True, focusable=True, password=True, bounds=Rect(40, 340, 1000, 120),
            ),
            NativeNode(
                "checkbox", "android.widget.CheckBox", text="Remember me", clickable=True, checkable=True,
                checked=True, bounds=Rect(40, 480, 500, 80),
            ),
            NativeNode(
                "button", "android.widget.Button", text="Sign in", test_id="signin", clickable=True, focusable=True,
                bounds=Rect(40, 600, 1000, 140),
                children=(NativeNode("image", "ImageView", name="Arrow", bounds=Rect(960, 640, 60, 60)),),
            ),
            NativeNode("button", "android.widget.Button", text="Help", clickable=True, enabled=False),
            NativeNode("toolbar", "androidx.appcompat.widget.Toolbar"),
        ),
    )  # fmt: skip


def raw(tree: NativeNode, **options: bool) -> RawNode:
    return to_raw_tree(tree, **options)


def by_id(root: RawNode) -> dict[str, RawNode]:
    found: dict[str, RawNode] = {}
    stack = [root]
    while stack:
        node = stack.pop()
        found[node.id] = node
        stack.extend(node.children)
    return found


def test_ids_are_paths_from_the_root() -> None:
    nodes = by_id(raw(sign_in()))
    assert set(nodes) == {"root", *(f"root.{index}" for index in range(7)), "root.4.0"}
    assert nodes["root.4.0"] is nodes["root.4"].children[0]


@given(st.lists(st.integers(0, 10_000), max_size=12).map(tuple))
def test_an_id_and_its_path_round_trip(path: tuple[int, ...]) -> None:
    assert native_path(node_id(path)) == path


@pytest.mark.parametrize("bad", ["", "root.", "root.a", "node.0", "root.-1", "root.0..1", "root.\u0661"])
def test_a_malformed_native_id_is_refused(bad: str) -> None:
    with pytest.raises(ValueError):
        native_path(bad)


@pytest.mark.parametrize(
    ("engine_role", "neutral"),
    [
        ("button", "button"), ("link", "link"), ("text", "text"), ("textbox", "input"), ("searchbox", "input"),
        ("image", "image"), ("checkbox", "checkbox"), ("switch", "switch"), ("radio", "radio"),
        ("slider", "slider"), ("combobox", "picker"), ("listbox", "picker"), ("spinbutton", "picker"),
        ("list", "list"), ("listitem", "listitem"), ("tab", "tab"), ("alertdialog", "dialog"),
        ("progressbar", "progress"), ("webview", "webview"), ("document", "webview"), ("menubar", "menu"),
        ("generic", "container"), ("group", "container"), ("window", "container"), ("scrollview", "container"),
        ("radiogroup", "container"), ("tablist", "container"), ("toolbar", "container"), ("navigation", "container"),
        ("something-new", "container"),
    ],
)  # fmt: skip
def test_engine_roles_fold_into_neutral_roles(engine_role: str, neutral: str) -> None:
    assert raw(NativeNode(engine_role, "Tag")).role == neutral


def test_every_mapped_role_is_a_contract_role() -> None:
    assert set(NATIVE_ROLES.values()) <= ROLES


@pytest.mark.parametrize(
    ("flags", "actions"),
    [
        ({}, ()),
        ({"clickable": True}, ("tap",)),
        ({"focusable": True}, ()),  # a tap would press it: no native engine can only focus it
        ({"checkable": True}, ("toggle",)),
        ({"role": "textbox"}, ("focus", "setValue", "typeText")),
        (
            {"role": "searchbox", "clickable": True, "focusable": True},
            ("tap", "focus", "setValue", "typeText"),
        ),
        ({"long_clickable": True, "scrollable": True}, ()),
    ],
)
def test_supported_actions_come_from_the_flags(flags: dict[str, object], actions: tuple[Action, ...]) -> None:
    fields: dict[str, object] = {"role": "generic", "tag": "View", **flags}
    node = NativeNode(**fields)  # type: ignore[arg-type]
    assert native_actions(node) == actions == raw(node).supported_actions


def test_labels_texts_and_values() -> None:
    nodes = by_id(raw(sign_in()))
    assert nodes["root.0"].label == "Sign in" and nodes["root.0"].visual.text == "Sign in"
    assert nodes["root.1"].label == "Email"  # an input's label is never its typed text
    assert nodes["root.1"].visual.value == "ann@example.com"
    assert nodes["root.4"].label == "Sign in" and nodes["root.4"].automation_id == "signin"
    assert nodes["root.4.0"].label == "Arrow"
    assert nodes["root.6"].label is None and nodes["root.6"].automation_id is None


def test_a_password_field_is_secure_and_its_secret_is_not_copied() -> None:
    field = by_id(raw(sign_in()))["root.2"]
    assert field.secure and field.label == "Password"
    assert (field.visual.text, field.visual.value) == (None, None)
    unlabelled = raw(NativeNode("textbox", "EditText", text="hunter2", value="hunter2", password=True))
    assert unlabelled.label is None and unlabelled.visual.text is None


def test_state_flags_and_bounds_carry_over() -> None:
    nodes = by_id(raw(sign_in()))
    email = nodes["root.1"]
    assert (email.visible, email.enabled, email.focusable, email.focused) == (True, True, True, True)
    assert email.bounds is not None and (email.bounds.x, email.bounds.width) == (40, 1000)
    assert nodes["root.5"].enabled is False and nodes["root.5"].bounds is None
    assert email.visual.opacity == 1 and email.visual.foreground is None and email.z == 0


def test_properties_only_when_asked_for() -> None:
    assert all(node.properties is None for node in by_id(raw(sign_in())).values())
    remember = by_id(raw(sign_in(), include_properties=True))["root.3"]
    assert remember.properties == {
        "nativeRole": "checkbox", "clickable": True, "longClickable": False, "scrollable": False,
        "checkable": True, "checked": True, "selected": False,
    }  # fmt: skip


def test_the_sign_in_payload_keeps_the_contract() -> None:
    payload = check_tree(tree_payload(capture(raw(sign_in()))))
    nodes = {node["id"]: node for node in nodes_of(payload["root"])}
    assert nodes["root.2"]["visual"] == {"opacity": 1}
    assert nodes["root.2"]["supportedActions"] == ["tap", "focus", "setValue", "typeText"]
    assert nodes["root.5"]["interactable"] is False  # disabled
    assert nodes["root.4"]["interactable"] is True and nodes["root.4"]["focused"] is False
    assert payload["types"][nodes["root.6"]["typeId"]] == "androidx.appcompat.widget.Toolbar"
    assert "hunter2" not in str(payload)


# -- the real Pixel launcher dump ----------------------------------------------------


@pytest.fixture(scope="module")
def launcher() -> RawNode:
    return to_raw_tree(parse_dump(PIXEL_DUMP.read_bytes()))


def test_the_launcher_dump_as_a_payload(launcher: RawNode) -> None:
    payload = check_tree(tree_payload(capture(launcher)))
    nodes = list(nodes_of(payload["root"]))
    assert len(nodes) == 26  # the hierarchy element and the 25 views it holds
    assert payload["types"][0] == "hierarchy"
    assert len(payload["types"]) == 10
    labelled = {node["label"]: node for node in nodes if "label" in node}
    assert {"Fri, Apr 21", "Home", "Messages", "Chrome", "Search", "Voice search"} <= set(labelled)
    chrome = labelled["Chrome"]
    assert (chrome["role"], chrome["supportedActions"], chrome["interactable"]) == (
        "text", ["tap"], True,
    )  # fmt: skip
    assert chrome["bounds"] == {"x": 641, "y": 1382, "width": 202, "height": 166}
    assert payload["types"][chrome["typeId"]] == "android.widget.TextView"


def test_the_launcher_ids_are_the_parser_paths(launcher: RawNode) -> None:
    # The engine acts by path: an id must name the path the parser gave the same node.
    parsed = parse_dump(PIXEL_DUMP.read_bytes())
    assert [node_id(node.path) for node in parsed.walk()] == [node.id for node in capture(launcher).nodes()]


def test_the_launcher_dump_truncates_and_inspects(launcher: RawNode) -> None:
    cap = capture(launcher)
    top = check_tree(tree_payload(cap, limits=TreeLimits(max_depth=2)))
    assert all(node.get("truncated") for node in top["root"]["children"][0]["children"][0]["children"])
    mic = select(cap, NodeQuery(text="voice search", action="tap")).references
    assert len(mic) == 1
    inspected = check_inspection(inspect_payload(cap, mic[0].node_id))
    assert [ancestor["id"] for ancestor in inspected["ancestors"]][:2] == ["root", "root.0"]
    assert inspected["node"]["label"] == "Voice search"


def test_the_launcher_dump_answers_queries(launcher: RawNode) -> None:
    cap = capture(launcher)
    workspace = select(cap, NodeQuery(automation_id="workspace")).nodes
    assert [node.automation_id for node in workspace] == ["com.google.android.apps.nexuslauncher:id/workspace"]
    tappable = [node.label for node in select(cap, NodeQuery(action="tap", visible=True)).nodes]
    assert tappable == [None, "Messages", "Chrome", "Search", "Voice search"]
    at_chrome = select(cap, NodeQuery(contains=Point(700, 1400), role="text"))
    assert [node.label for node in at_chrome.nodes] == ["Chrome"]


# -- the provider --------------------------------------------------------------------


class Engine:
    """An engine's primitives, recording what they were asked."""

    def __init__(self, screen: NativeNode) -> None:
        self.screen = screen
        self.done: list[tuple[str, tuple[int, ...], str | None]] = []

    async def read(self) -> NativeNode:
        return self.screen

    async def tap(self, shot: Capture, node: RawNode, value: str | None) -> Reply:
        path = native_path(node.id)
        self.done.append(("tap", path, value))
        return Reply.of(tapped=list(path))

    async def set_value(self, shot: Capture, node: RawNode, value: str | None) -> Reply:
        self.done.append(("setValue", native_path(node.id), value))
        return Reply.of()


def provider_over(engine: Engine) -> NativeProvider:
    return NativeProvider("android", engine.read, {"tap": engine.tap, "setValue": engine.set_value})


async def test_the_provider_captures_the_engine_hierarchy() -> None:
    provider: Provider = provider_over(Engine(sign_in()))  # a NativeProvider is a Provider
    assert (provider.source, provider.platform, provider.format) == ("native", "android", NATIVE_FORMAT)
    captured = await provider.capture(CaptureOptions())
    assert captured == RawTree(to_raw_tree(sign_in()))
    assert captured.scope is None  # paths are re-resolved by every action
    detailed = await provider.capture(CaptureOptions(include_properties=True))
    assert detailed.root.children[3].properties is not None


async def test_the_provider_acts_by_path() -> None:
    engine = Engine(sign_in())
    provider = provider_over(engine)
    shot = capture((await provider.capture(CaptureOptions())).root)
    nodes = by_id(shot.root)
    assert (await provider.perform(shot, nodes["root.4"], "tap")).fields == {"tapped": [4]}
    await provider.perform(shot, nodes["root.1"], "setValue", "bob@example.com")
    assert engine.done == [("tap", (4,), None), ("setValue", (1,), "bob@example.com")]


async def test_an_action_the_engine_lacks_is_refused_naming_the_provider() -> None:
    engine = Engine(sign_in())
    provider = provider_over(engine)
    shot = capture((await provider.capture(CaptureOptions())).root)
    with pytest.raises(ToolError) as caught:
        await provider.perform(shot, by_id(shot.root)["root.3"], "toggle")
    error = caught.value
    assert error.code == "not-supported"
    assert (error.details["engine"], error.details["provider"], error.details["action"]) == (
        "android-app", NATIVE_FORMAT, "toggle",
    )  # fmt: skip
    assert NATIVE_FORMAT in error.message and "android-app" in error.message
    assert engine.done == []


async def test_an_action_the_node_does_not_offer_is_refused() -> None:
    engine = Engine(sign_in())
    provider = provider_over(engine)
    shot = capture((await provider.capture(CaptureOptions())).root)
    with pytest.raises(ToolError) as caught:
        await provider.perform(shot, by_id(shot.root)["root.0"], "tap")
    assert caught.value.code == "action-failed" and caught.value.details["supportedActions"] == []
    assert engine.done == []


@pytest.mark.parametrize(
    ("identity", "engine"),
    [(ANDROID, "android-app"), (Identity(platform="ios"), "ios-app"), (WEB, "chromium")],
)
def test_refusals_name_each_engine(identity: Identity, engine: str) -> None:
    error = unsupported_action(identity, "typeText")
    assert error.code == "not-supported"
    assert (error.details["engine"], error.details["provider"]) == (engine, identity.format)


# -- the node at a captured place, read again -----------------------------------------


def test_a_node_read_again_at_its_place_is_the_same_node() -> None:
    captured = by_id(raw(sign_in()))
    again = sign_in()
    assert same_node(again.children[1], captured["root.1"])
    typed = again.children[1]._replace(text="bob@example.com", value="bob@example.com", focused=True)
    assert same_node(typed, captured["root.1"]), "typing into a field leaves it the same field"
    ticked = again.children[3]._replace(checked=False)
    assert same_node(ticked, captured["root.3"]), "a toggled checkbox is the same checkbox"
    assert not same_node(again.children[4], captured["root.0"]), "another control in the slot is not"
    assert not same_node(again.children[0]._replace(name="Sign up"), captured["root.0"])
    assert not same_node(again.children[4]._replace(test_id="other"), captured["root.4"])


def test_a_moved_node_is_a_stale_reference() -> None:
    shot = capture(raw(sign_in()))
    error = moved(shot, by_id(shot.root)["root.4"])
    assert error.code == "stale_node_reference"
    assert error.details == {"source": "native", "nodeId": "root.4", "revision": shot.revision,
                             "refreshWith": "ui.query_nodes"}
    assert shot.snapshot_id in error.message
