"""``uiautomator dump`` parsing: the real Pixel launcher dump, the role table, idle failures."""

from __future__ import annotations

import pytest

from browx_actors.devices.nodes import NativeNode, Rect
from browx_actors.devices.uiautomator import IDLE_FAILURES, parse_bounds, parse_dump, parse_with_expat, role_of
from browx_actors.errors import CODES, ToolError
from browx_actors.sessions.native.refs import Hierarchy, RefBook
from browx_actors.sessions.native.snapshot import snapshot
from browx_actors.sessions.native.target import on_screen
from fakes.testdata import PIXEL_LAUNCHER_DUMP, TESTDATA
from uiautomator_support import dump, dump_node

PIXEL = PIXEL_LAUNCHER_DUMP
LAUNCHER = "com.google.android.apps.nexuslauncher"


@pytest.fixture(scope="module")
def pixel() -> NativeNode:
    return parse_dump(PIXEL.read_bytes())


def by_name(root: NativeNode, name: str) -> NativeNode:
    (node,) = [n for n in root.walk() if n.name == name]
    return node


def test_the_pixel_dump_becomes_a_tree_under_the_hierarchy_root(pixel: NativeNode) -> None:
    assert (pixel.tag, pixel.role, pixel.path) == ("hierarchy", "generic", ())
    assert pixel.bounds == Rect(0, 0, 1080, 1794)
    (window,) = pixel.children
    assert window.tag == "android.widget.FrameLayout" and window.path == (0,)
    assert len(list(pixel.walk())) == 26  # 25 <node> elements and the root
    # Paths are child positions from the root, all distinct.
    paths = [n.path for n in pixel.walk()]
    assert len(set(paths)) == len(paths)
    for node in pixel.walk():
        for index, child in enumerate(node.children):
            assert child.path == (*node.path, index)


def test_pixel_roles_names_texts_and_bounds(pixel: NativeNode) -> None:
    messages = by_name(pixel, "Messages")
    assert (messages.role, messages.tag, messages.text) == ("text", "android.widget.TextView", "Messages")
    assert messages.bounds == Rect(237, 1382, 202, 166)
    assert messages.clickable and messages.long_clickable and messages.focusable and messages.test_id is None
    mic = by_name(pixel, "Voice search")
    assert (mic.role, mic.test_id) == ("image", f"{LAUNCHER}:id/mic_icon")
    assert by_name(pixel, "Search").role == "generic"
    workspace = next(n for n in pixel.walk() if n.test_id == f"{LAUNCHER}:id/workspace")
    assert (workspace.role, workspace.scrollable) == ("scrollview", True)
    clock = next(n for n in pixel.walk() if n.test_id == f"{LAUNCHER}:id/clock")
    assert (clock.text, clock.name, clock.value) == ("Fri, Apr 21", "Fri, Apr 21", None)
    assert all(n.enabled and n.visible and not n.password for n in pixel.walk())


def test_the_launchers_tappable_icons_have_no_resource_id_so_their_refs_are_path_keyed(pixel: NativeNode) -> None:
    hierarchy = Hierarchy(pixel)
    for name in ("Messages", "Chrome", "Search"):
        key = hierarchy.key_for(by_name(pixel, name))
        assert not key.anchored and key.test_id is None and key.path
    # Those that do carry one (unique in the dump) are anchored on it.
    assert hierarchy.key_for(by_name(pixel, "Voice search")).anchored


def test_the_pixel_snapshot_and_its_thin_testid_warning(pixel: NativeNode) -> None:
    shot = snapshot(Hierarchy(pixel), RefBook())
    assert shot.text.splitlines() == [
        "scrollview [ref=e1]",
        "  generic [ref=e2]",
        '    generic "Fri, Apr 21" [ref=e3]',
        '      text "Fri, Apr 21" [ref=e4]',
        'generic "Home" [ref=e5]',
        'text "Messages" [ref=e6]',
        'text "Chrome" [ref=e7]',
        'generic "Search" [ref=e8]',
        '  image "Voice search" [ref=e9]',
    ]
    assert (shot.node_count, shot.interactive, shot.untagged) == (9, 7, 4)
    (warning,) = shot.warnings
    assert warning.startswith("thin on testIDs: 4 of 7 interactive elements have no testID")
    assert 'e6 text "Messages"' in warning and 'e8 generic "Search"' in warning


@pytest.mark.parametrize(("class_name", "role"), [
    ("android.widget.Button", "button"), ("android.widget.ImageButton", "button"),
    ("com.google.android.material.button.MaterialButton", "button"),
    ("androidx.appcompat.widget.AppCompatButton", "button"),
    ("android.widget.EditText", "textbox"), ("com.facebook.react.views.textinput.ReactEditText", "textbox"),
    ("android.widget.AutoCompleteTextView", "textbox"),
    ("android.widget.TextView", "text"), ("com.facebook.react.views.text.ReactTextView", "text"),
    ("android.widget.ImageView", "image"), ("com.facebook.react.views.image.ReactImageView", "image"),
    ("android.widget.CheckBox", "checkbox"), ("android.widget.CheckedTextView", "checkbox"),
    ("android.widget.Switch", "switch"), ("androidx.appcompat.widget.SwitchCompat", "switch"),
    ("android.widget.ToggleButton", "switch"), ("com.facebook.react.views.switchview.ReactSwitch", "switch"),
    ("android.widget.RadioButton", "radio"),
    ("android.widget.ScrollView", "scrollview"), ("com.facebook.react.views.scroll.ReactScrollView", "scrollview"),
    ("com.facebook.react.views.scroll.ReactHorizontalScrollView", "scrollview"),
    ("androidx.recyclerview.widget.RecyclerView", "list"), ("android.widget.ListView", "list"),
    ("android.widget.ProgressBar", "progressbar"), ("android.widget.SeekBar", "slider"),
    ("android.widget.Spinner", "combobox"), ("android.webkit.WebView", "webview"),
    ("com.google.android.material.tabs.TabLayout$TabView", "tab"),
    ("android.widget.FrameLayout", "generic"), ("android.view.ViewGroup", "generic"),
    ("com.facebook.react.views.view.ReactViewGroup", "generic"), ("android.view.View", "generic"),
])
def test_class_to_role(class_name: str, role: str) -> None:
    assert role_of(class_name) == role


def test_a_clickable_plain_view_with_a_label_is_a_button_as_react_native_and_compose_report_one() -> None:
    pressable = dump_node("android.view.ViewGroup", content_desc="Add to cart", clickable="true")
    compose = dump_node("android.view.View", content_desc="Play", clickable="true")
    unlabelled_row = dump_node("android.view.ViewGroup", resource_id="product_row", clickable="true")
    label_only = dump_node("android.view.ViewGroup", content_desc="Header")
    layout = dump_node("android.widget.LinearLayout", content_desc="Card", clickable="true")
    roles = [n.role for n in parse_dump(dump(pressable, compose, unlabelled_row, label_only, layout)).children]
    assert roles == ["button", "button", "generic", "generic", "generic"]
    assert [n.role for n in parse_with_expat(dump(pressable, unlabelled_row)).children] == ["button", "generic"]


def test_editable_fields_checkables_password_naf_hint_and_entities() -> None:
    root = parse_dump(dump(
        '<node NAF="true" index="0" text="" resource-id="" class="android.widget.ImageButton" '
        'package="p" content-desc="" checkable="false" checked="false" clickable="true" enabled="true" '
        'focusable="true" focused="false" scrollable="false" long-clickable="false" password="false" '
        'selected="false" bounds="[1,2][3,4]" />',
        dump_node("android.widget.EditText", text="a@b.c", resource_id="email", hint="Email", focused="true"),
        dump_node("android.widget.EditText", text="\u2022\u2022\u2022", password="true", content_desc="Password"),
        dump_node("android.view.View", checkable="true", checked="true", text="Remember"),
        dump_node("android.widget.TextView", text="Fish &amp; chips &lt;3&#10;daily", enabled="false"),
    ))
    naf, email, password, check, text = root.children
    assert (naf.role, naf.clickable, naf.name, naf.bounds) == ("button", True, "", Rect(1, 2, 2, 2))
    assert (email.role, email.value, email.text, email.name, email.test_id, email.focused) == (
        "textbox", "a@b.c", "a@b.c", "Email", "email", True)
    assert (password.password, password.name) == (True, "Password")
    assert (check.role, check.checked) == ("checkbox", True)
    assert (text.text, text.enabled) == ("Fish & chips <3\ndaily", False)


def test_react_native_raw_test_ids_and_qualified_native_ids_are_kept_as_reported() -> None:
    root = parse_dump(dump(dump_node("android.widget.Button", resource_id="checkout-submit"),
                            dump_node("android.widget.Button", resource_id="com.example.shop:id/login_button")))
    assert [n.test_id for n in root.children] == ["checkout-submit", "com.example.shop:id/login_button"]


def test_status_text_around_the_xml_is_ignored() -> None:
    body = dump(dump_node("android.widget.TextView", text="hi"))
    for output in (body + "UI hierchary dumped to: /dev/tty\n",
                   "Warning: something chatty\n" + body + "\nUI hierchary dumped to: /dev/tty\n",
                   body.split("?>", 1)[1]):  # no XML declaration at all
        (node,) = parse_dump(output).children
        assert node.text == "hi"


def test_an_empty_hierarchy_is_a_root_with_no_children() -> None:
    root = parse_dump('<?xml version="1.0"?><hierarchy rotation="0" />')
    assert root.children == () and root.bounds is None


@pytest.mark.parametrize("failure", IDLE_FAILURES)
@pytest.mark.parametrize("wrap", [lambda f: f + "\n", lambda f: "some preamble\n" + f + "\n"])
def test_idle_failures_raise_native_hierarchy_not_idle(failure: str, wrap: object) -> None:
    assert callable(wrap)
    with pytest.raises(ToolError) as caught:
        parse_dump(wrap(failure).encode())
    assert caught.value.code == "native-hierarchy-not-idle"
    assert caught.value.details == {"detail": failure}
    assert "wait for the screen to settle and retry" in caught.value.message.lower()
    assert CODES["native-hierarchy-not-idle"].kind == "timeout"


@pytest.mark.parametrize("output", ["", "Killed\n", "<?xml version='1.0'?><hierarchy><node index=\"0\""])
def test_output_without_a_whole_hierarchy_is_unavailable(output: str) -> None:
    with pytest.raises(ToolError) as caught:
        parse_dump(output)
    assert caught.value.code == "unavailable" and caught.value.details == {"component": "uiautomator"}


@pytest.mark.parametrize(("text", "rect"), [
    ("[0,0][1080,1794]", Rect(0, 0, 1080, 1794)), ("[-5,10][20,30]", Rect(-5, 10, 25, 20)),
    ("", None), ("[1,2][3]", None), ("junk", None),
])
def test_bounds(text: str, rect: Rect | None) -> None:
    assert parse_bounds(text) == rect


def test_the_parser_builds_nodes_in_nativenodes_field_order() -> None:
    # The parser passes fields positionally for speed: this pins the order it assumes.
    assert list(NativeNode._fields) == [
        "role", "tag", "name", "text", "value", "test_id", "bounds", "enabled", "visible", "focusable",
        "focused", "clickable", "long_clickable", "scrollable", "checkable", "checked", "selected",
        "password", "path", "children",
    ]


@pytest.mark.parametrize(("text", "hint", "value"), [
    ("\u2022\u2022\u2022", "", "********"),      # what it holds, as bullets: the mask, not their count
    ("hunter2", "", "********"),                 # with "speak passwords" on, the characters: never kept
    ("Password", "Password", "Password"),        # empty, showing its hint
    ("", "Password", "Password"),
    ("", "", None),
])
def test_a_password_field_keeps_neither_its_text_nor_what_it_holds(text: str, hint: str, value: str | None) -> None:
    extra = f' hint="{hint}"' if hint else ""
    xml = ('<hierarchy rotation="0"><node index="0" text="' + text + '" resource-id="pw" '
           'class="android.widget.EditText" package="p" content-desc="" checkable="false" checked="false" '
           'clickable="true" enabled="true" focusable="true" focused="false" scrollable="false" '
           'long-clickable="false" password="true" selected="false" bounds="[0,0][100,50]"' + extra + " /></hierarchy>")
    (field,) = parse_dump(xml).children
    assert (field.password, field.value, field.text) == (True, value, "")


def test_a_dump_equal_to_the_last_is_not_parsed_again() -> None:
    from browx_actors.devices.uiautomator import DumpParser

    parser = DumpParser()
    raw = PIXEL.read_bytes()
    first = parser.parse(raw)
    assert parser.parse(bytes(raw)) is first and (parser.parsed, parser.reused) == (1, 1)
    changed = parser.parse(raw.replace(b'text="Chrome"', b'text="Chromium"'))
    assert changed is not first and changed != first and parser.parsed == 2
    with pytest.raises(ToolError):
        parser.parse(IDLE_FAILURES[0].encode())
    assert parser.parse(raw.replace(b'text="Chrome"', b'text="Chromium"')) is changed


def test_a_multi_window_dump_that_opens_with_the_status_bar_spans_every_window() -> None:
    """A dump of every window (status bar first, then the app, then the navigation bar):
    the screen is all of them, so a button below the status bar is on screen."""
    status = dump_node("android.widget.FrameLayout", package="com.android.systemui", bounds="[0,0][1080,63]")
    button = dump_node("android.widget.Button", text="Send", clickable="true", bounds="[40,1200][1040,1330]")
    app = dump_node("android.widget.FrameLayout", bounds="[0,0][1080,2337]").replace(" />", f">{button}</node>")
    nav = dump_node("android.widget.FrameLayout", package="com.android.systemui", bounds="[0,2337][1080,2400]")
    root = parse_dump(dump(status, app, nav))
    assert root.bounds == Rect(0, 0, 1080, 2400)
    (send,) = [n for n in Hierarchy(root).nodes if n.text == "Send"]
    assert send.bounds is not None and on_screen(send.bounds, root.bounds) == send.bounds


def test_a_node_dumped_with_no_area_is_not_visible_to_either_reader() -> None:
    """Nothing of it is on screen to see or tap, whatever the dumper wrote it for."""
    xml = dump(dump_node("android.widget.Button", text="Camera", clickable="true", bounds="[0,0][0,0]"),
               dump_node("android.widget.TextView", text="Title", bounds="[10,10][200,10]"),
               dump_node("android.widget.Button", text="Send", clickable="true", bounds="[0,0][100,50]"))
    for root in (parse_dump(xml), parse_with_expat(xml)):
        assert [n.visible for n in root.children] == [False, False, True]


def test_a_webviews_hidden_elements_get_no_snapshot_line() -> None:
    """A real WebView dump: Chromium reports the page's closed drawer and closed sheets at
    [0,0][0,0], so a snapshot listing them offered 38 refs that could not be tapped, and a
    selector for their text matched them."""
    root = parse_dump((TESTDATA / "android" / "nightcode-webview-window_dump.xml").read_bytes())
    hidden = [n for n in root.walk() if n.bounds is not None and n.bounds.empty]
    assert len(hidden) == 53 and not any(n.visible for n in hidden)
    shot = snapshot(Hierarchy(root), RefBook()).text
    assert shot.splitlines()[:3] == ["webview [ref=e1]", "  webview [ref=e2] [focused]", '    button "Menu" [ref=e3]']
    for hidden_text in ('"Camera"', '"RECENT CHATS"', '"Compact context now"', '"API key"'):
        assert hidden_text not in shot
    assert 'button "New chat Start a fresh conversation"' in shot and 'button "Model"' in shot
