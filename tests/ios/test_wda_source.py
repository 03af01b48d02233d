"""WDA's JSON source into NativeNode: roles, names, values, placeholders, secure fields, paths."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from browx_actors.devices.nodes import Rect
from browx_actors.devices.wda_source import MalformedSource, parse_source, short_type, type_info
from browx_actors.errors import ToolError


def wda_node(type_: str, *, label: str | None = None, identifier: str | None = None, value: str | None = None,
             rect: tuple[float, float, float, float] = (0, 0, 10, 10), children: list[dict[str, Any]] | None = None,
             **extra: Any) -> dict[str, Any]:
    """One node as WDA writes it (appium/WebDriverAgent, XCUIApplication+FBHelpers)."""
    x, y, width, height = rect
    node: dict[str, Any] = {
        "type": type_, "rawIdentifier": identifier, "name": identifier or label, "value": value, "label": label,
        "rect": {"x": x, "y": y, "width": width, "height": height}, "customActions": None,
        "frame": f"{{{{{x:g}, {y:g}}}, {{{width:g}, {height:g}}}}}", "isEnabled": "1", "isVisible": "1",
        "isAccessible": "0", "isFocused": "0", "traits": "",
    }
    node.update(extra)
    if children:
        node["children"] = children
    return node


#: A checkout screen of a React Native app, shaped like a real `GET /source?format=json` value.
CHECKOUT = wda_node("Application", label="Shop", rect=(0, 0, 393, 852), children=[
    wda_node("Window", rect=(0, 0, 393, 852), children=[
        wda_node("Other", rect=(0, 0, 393, 852), children=[
            wda_node("NavigationBar", label="Checkout", identifier="Checkout", rect=(0, 54, 393, 44), children=[
                wda_node("Button", label="Back", identifier="BackButton", rect=(8, 60, 70, 32), isAccessible="1",
                         traits="Button"),
                wda_node("StaticText", label="Checkout", value="Checkout", rect=(156, 65, 80, 22), isAccessible="1",
                         traits="StaticText, Header"),
            ]),
            wda_node("Other", rect=(0, 98, 393, 700), children=[
                wda_node("StaticText", label="Total: $51.00", value="Total: $51.00", identifier="order-total",
                         rect=(24, 110, 345, 28), isAccessible="1", traits="StaticText"),
                wda_node("TextField", label="", identifier="checkout-email", value="me@example.com",
                         rect=(24, 150, 345, 44), placeholderValue="Email", isAccessible="1", isFocused="1"),
                wda_node("TextField", label="", identifier="checkout-coupon", value=None, rect=(24, 206, 345, 44),
                         placeholderValue="Coupon code", isAccessible="1"),
                wda_node("SecureTextField", label="", identifier="checkout-cvv", value="\u2022\u2022\u2022",
                         rect=(24, 262, 160, 44), placeholderValue="CVV", isAccessible="1"),
                wda_node("SecureTextField", label="PIN", identifier="checkout-pin", value="PIN code",
                         rect=(200, 262, 169, 44), placeholderValue="PIN code", isAccessible="1"),
                wda_node("TextView", label="", identifier="order-notes", value=None, rect=(24, 318, 345, 100),
                         placeholderValue="Delivery notes", isAccessible="1"),
                wda_node("Switch", label="Gift wrap", identifier="gift-wrap", value="1", rect=(24, 430, 345, 31),
                         isAccessible="1", traits="Button, ToggleButton"),
                wda_node("Slider", label="Tip", identifier="tip", value="10%", rect=(24, 473, 345, 31),
                         isAccessible="1", traits="Adjustable", minValue=0, maxValue=1),
                wda_node("Other", label=None, rect=(24, 516, 345, 50), children=[
                    wda_node("Button", label="Place order", identifier="checkout-submit", rect=(24, 516, 345, 50),
                             isAccessible="1", isEnabled="0", traits="Button, NotEnabled"),
                ]),
                wda_node("Button", label="Apply", rect=(24, 578, 100, 44), isAccessible="1", traits="Button"),
                wda_node("Link", label="Terms of sale", rect=(24, 634, 120, 20), isAccessible="1", traits="Link"),
                wda_node("Image", label="Espresso beans", rect=(300, 110, 69, 69), isAccessible="1",
                         isVisible="0", traits="Image"),
            ]),
            wda_node("TabBar", rect=(0, 769, 393, 83), children=[
                wda_node("Button", label="Shop", value="1", rect=(0, 770, 196, 49), isAccessible="1",
                         traits="Button, Selected"),
                wda_node("Button", label="Account", rect=(196, 770, 197, 49), isAccessible="1", traits="Button"),
            ]),
        ]),
    ]),
])


def by_id(root: Any, test_id: str) -> Any:
    return next(node for node in root.walk() if node.test_id == test_id)


def test_the_tree_keeps_its_shape_types_and_child_index_paths() -> None:
    root = parse_source(CHECKOUT)
    assert (root.role, root.tag, root.name, root.path) == ("application", "XCUIElementTypeApplication", "Shop", ())
    window = root.children[0]
    assert (window.role, window.path) == ("window", (0,))
    content = window.children[0].children[1]
    assert (content.role, content.tag, content.path) == ("generic", "XCUIElementTypeOther", (0, 0, 1))
    submit = by_id(root, "checkout-submit")
    assert submit.path == (0, 0, 1, 8, 0)
    assert [node.path for node in root.walk()][:4] == [(), (0,), (0, 0), (0, 0, 0)]
    assert sum(1 for _ in root.walk()) == 23


def test_label_is_the_name_and_value_the_value_exactly() -> None:
    root = parse_source(CHECKOUT)
    total = by_id(root, "order-total")
    assert (total.role, total.name, total.value, total.text) == ("text", "Total: $51.00", "Total: $51.00",
                                                                 "Total: $51.00")
    email = by_id(root, "checkout-email")
    assert (email.role, email.name, email.value) == ("textbox", "", "me@example.com")
    assert by_id(root, "tip").value == "10%"


def test_a_placeholder_rides_on_value_only_when_there_is_none() -> None:
    root = parse_source(CHECKOUT)
    assert by_id(root, "checkout-coupon").value == "Coupon code"
    assert by_id(root, "order-notes").value == "Delivery notes"
    assert by_id(root, "checkout-email").value == "me@example.com"  # its placeholder "Email" is not shown


@pytest.mark.parametrize(("value", "placeholder", "shown"), [
    (None, "Search", "Search"), ("", "Search", "Search"), ("kettle", "Search", "kettle"), (None, None, None),
    (None, "", None), ("  padded  ", "x", "  padded  "),
])
def test_placeholder_rule(value: str | None, placeholder: str | None, shown: str | None) -> None:
    node = parse_source(wda_node("SearchField", value=value, placeholderValue=placeholder))
    assert node.value == shown


def test_a_secure_field_is_a_password_whose_content_is_never_carried() -> None:
    root = parse_source(CHECKOUT)
    cvv = by_id(root, "checkout-cvv")
    assert (cvv.role, cvv.tag, cvv.password) == ("textbox", "XCUIElementTypeSecureTextField", True)
    # The typed bullets become the mask (not even their count is kept); no placeholder stands in.
    assert (cvv.value, cvv.text) == ("********", "")
    pin = by_id(root, "checkout-pin")  # empty: WDA reports the placeholder as its value
    assert (pin.name, pin.value, pin.password) == ("PIN", "PIN code", True)
    empty = parse_source(wda_node("SecureTextField", value=None, placeholderValue="Password"))
    assert (empty.value, empty.password) == ("Password", True)
    assert not by_id(root, "checkout-email").password


def test_raw_identifier_is_the_test_id_and_null_or_empty_means_none() -> None:
    root = parse_source(CHECKOUT)
    assert by_id(root, "checkout-submit").name == "Place order"
    apply = next(node for node in root.walk() if node.name == "Apply")
    assert apply.test_id is None
    assert parse_source(wda_node("Button", identifier="")).test_id is None


def test_flags_are_the_strings_one_and_zero() -> None:
    root = parse_source(CHECKOUT)
    submit = by_id(root, "checkout-submit")
    assert (submit.enabled, submit.visible, submit.clickable) == (False, True, True)
    image = next(node for node in root.walk() if node.role == "image")
    assert (image.visible, image.name) == (False, "Espresso beans")
    email = by_id(root, "checkout-email")
    assert (email.focused, email.focusable) == (True, True)
    bare = parse_source({"type": "Button"})
    assert (bare.enabled, bare.visible, bare.focused, bare.bounds) == (True, True, False, None)


def test_switches_check_and_selected_traits_select() -> None:
    root = parse_source(CHECKOUT)
    gift = by_id(root, "gift-wrap")
    assert (gift.role, gift.checkable, gift.checked, gift.value) == ("switch", True, True, "1")
    off = parse_source(wda_node("Switch", value="0"))
    assert (off.checkable, off.checked) == (True, False)
    tabs = root.children[0].children[0].children[2]
    assert [(tab.name, tab.selected) for tab in tabs.children] == [("Shop", True), ("Account", False)]
    assert parse_source(wda_node("Button", value="1")).selected  # no traits: WDA's "1" for a selected button


def test_rect_is_bounds_in_points() -> None:
    submit = by_id(parse_source(CHECKOUT), "checkout-submit")
    assert submit.bounds == Rect(24, 516, 345, 50)
    assert submit.bounds.center == (196.5, 541)


def test_buttons_and_links_draw_their_label_and_containers_draw_nothing() -> None:
    root = parse_source(CHECKOUT)
    link = next(node for node in root.walk() if node.role == "link")
    assert (link.name, link.text, link.clickable) == ("Terms of sale", "Terms of sale", True)
    assert by_id(root, "checkout-submit").text == "Place order"
    assert root.children[0].text == ""
    assert parse_source(wda_node("StaticText", value="only a value")).text == "only a value"


ROLES = [
    ("Application", "application"), ("Window", "window"), ("Other", "generic"), ("Group", "group"),
    ("Button", "button"), ("StaticText", "text"), ("TextField", "textbox"), ("SecureTextField", "textbox"),
    ("SearchField", "textbox"), ("TextView", "textbox"), ("Switch", "switch"), ("Toggle", "switch"),
    ("Slider", "slider"), ("Image", "image"), ("Icon", "image"), ("Cell", "listitem"), ("Table", "list"),
    ("CollectionView", "list"), ("Link", "link"), ("NavigationBar", "navigation"), ("TabBar", "tablist"),
    ("Tab", "tab"), ("Toolbar", "toolbar"), ("Alert", "alertdialog"), ("Sheet", "dialog"), ("CheckBox", "checkbox"),
    ("RadioButton", "radio"), ("SegmentedControl", "radiogroup"), ("ProgressIndicator", "progressbar"),
    ("ActivityIndicator", "progressbar"), ("ScrollView", "group"), ("WebView", "document"), ("Key", "button"),
    ("Keyboard", "group"), ("Stepper", "spinbutton"), ("PickerWheel", "listbox"), ("MenuItem", "menuitem"),
    ("StatusBar", "status"), ("Map", "generic"), ("SomethingNewInXcode27", "generic"),
]


@pytest.mark.parametrize(("short", "role"), ROLES)
def test_every_type_maps_to_its_role_in_either_spelling_and_tag_is_the_raw_xcuitest_type(short: str, role: str) -> None:
    for sent in (short, f"XCUIElementType{short}"):
        node = parse_source(wda_node(sent))
        assert (node.role, node.tag) == (role, f"XCUIElementType{short}")
        assert short_type(sent) == short
    assert type_info(short).role == role


def test_scrollers_are_scrollable_and_text_inputs_editable() -> None:
    assert parse_source(wda_node("Table")).scrollable
    assert parse_source(wda_node("ScrollView")).scrollable
    assert not parse_source(wda_node("Other")).scrollable
    assert parse_source(wda_node("TextView")).focusable
    assert not parse_source(wda_node("StaticText")).focusable


def test_a_text_view_whose_traits_say_static_text_is_read_not_typed_into() -> None:
    """A footer or terms text view: UIKit gives a non-editable one the static-text trait."""
    footer = parse_source(wda_node("TextView", label=None, value="Your data stays on this device.",
                                   isAccessible="1", traits="StaticText"))
    assert (footer.role, footer.focusable, footer.text) == ("text", False, "Your data stays on this device.")
    assert footer.tag == "XCUIElementTypeTextView"  # the raw type, kept
    editable = parse_source(wda_node("TextView", label=None, value="draft", isAccessible="1", traits=""))
    assert (editable.role, editable.focusable) == ("textbox", True)


@pytest.mark.parametrize(("mutate", "message"), [
    (lambda tree: tree.pop("type"), "has no type"),
    (lambda tree: tree.update(isEnabled="true"), "isEnabled='true'"),
    (lambda tree: tree.update(children={"type": "Other"}), "children that are not a list"),
    (lambda tree: tree.update(rect={"x": 0, "y": 0, "width": "wide", "height": 1}), "rect.width='wide'"),
    (lambda tree: tree.update(rect=[0, 0, 1, 1]), "rect that is not an object"),
    (lambda tree: tree.update(label=True), "label that is a boolean"),
    (lambda tree: tree.update(label={"text": "x"}), "label that is not a string"),
    (lambda tree: tree["children"].append("Button"), "node 0 is str"),
])
def test_a_tree_wda_could_not_have_sent_is_refused(mutate: Any, message: str) -> None:
    tree = copy.deepcopy(wda_node("Other", children=[]))
    tree["children"] = []
    mutate(tree)
    with pytest.raises(MalformedSource, match=message):
        parse_source(tree)


def test_refuses_a_non_object_and_an_absurdly_deep_tree() -> None:
    with pytest.raises(MalformedSource, match="not an object"):
        parse_source([CHECKOUT])
    deep: dict[str, Any] = {"type": "Other"}
    for _ in range(300):
        deep = {"type": "Other", "children": [deep]}
    with pytest.raises(ToolError, match="deeper than 256 levels") as refused:
        parse_source(deep)
    assert refused.value.code == "too-large" and refused.value.details == {"source": "WebDriverAgent source",
                                                                           "limit": 256}


_TYPES = st.sampled_from([short for short, _ in ROLES])
_TEXT = st.none() | st.text(max_size=12)


def _trees(depth: int) -> st.SearchStrategy[dict[str, Any]]:
    leaf = st.builds(lambda type_, label, value: wda_node(type_, label=label, value=value), _TYPES, _TEXT, _TEXT)
    if depth == 0:
        return leaf
    return leaf | st.builds(lambda type_, kids: wda_node(type_, children=kids), _TYPES,
                            st.lists(_trees(depth - 1), max_size=4))


@given(_trees(3))
def test_any_wda_shaped_tree_parses_node_for_node_with_index_paths(tree: dict[str, Any]) -> None:
    def count(raw: dict[str, Any]) -> int:
        return 1 + sum(count(child) for child in raw.get("children", []))

    root = parse_source(tree)
    nodes = list(root.walk())
    assert len(nodes) == count(tree)
    for node in nodes:
        raw = tree
        for index in node.path:
            raw = raw["children"][index]
        assert node.tag == "XCUIElementType" + raw["type"].removeprefix("XCUIElementType")
        assert node.name == (raw["label"] or "")
        if not node.password:
            assert node.value == (raw["value"] or raw.get("placeholderValue") or None)
