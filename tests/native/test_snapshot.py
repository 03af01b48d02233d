"""Snapshot text, find and text_search over native hierarchies."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest
from playwright.sync_api import sync_playwright

from browx_actors.devices.uiautomator import parse_dump
from browx_actors.errors import ToolError
from browx_actors.sessions.chromium.agent.pageagent import AGENT_SOURCE, call_function
from browx_actors.sessions.native.find import find, identifier_hint, text_search
from browx_actors.sessions.native.refs import Hierarchy, RefBook
from browx_actors.sessions.native.selectors import resolve
from browx_actors.sessions.native.snapshot import snapshot
from fakes.adb_device import FakeDevice
from fakes.adb_shop import emulator
from fakes.testdata import PIXEL_LAUNCHER_DUMP

Read = Callable[[FakeDevice], Hierarchy]
PIXEL = PIXEL_LAUNCHER_DUMP


def test_the_login_screen(device: FakeDevice, read: Read) -> None:
    device.show("login")
    device.fields.update(email="a@b.c", password="hunter2")
    device.focused = "email"
    shot = snapshot(read(device), RefBook())
    assert shot.text == "\n".join([
        'text "Welcome back" [ref=e1]',
        'textbox "Email address" [ref=e2] [focused] value="a@b.c"',
        'textbox "Password" [ref=e3] value="********"',
        'checkbox "Remember me" [ref=e4]',
        'button "Log in" [ref=e5]',
        'text "Forgot password?" [ref=e6]',
    ])
    assert "hunter2" not in shot.text and "\u2022" not in shot.text
    assert shot.to_json() == {"snapshot": shot.text, "nodeCount": 6, "refCount": 6, "truncated": False,
                              "warnings": list(shot.warnings)}


def test_the_catalog_screen_folds_layout_and_names_rows_by_their_text(device: FakeDevice, read: Read) -> None:
    device.show("catalog")
    device.toggles.add("promo")
    assert snapshot(read(device), RefBook()).text.splitlines() == [
        'text "Catalog" [ref=e1]',
        'text "Spring sale: 20% off" [ref=e2]',
        'button "Hide promo" [ref=e3]',
        "scrollview [ref=e4]",
        '  generic "Red shoes $20.00" [ref=e5]',
        '    button "Add to cart" [ref=e6]',
        '  generic "Blue hat $12.00" [ref=e7]',
        '    button "Add to cart" [ref=e8]',
        '  generic "Green scarf $9.50" [ref=e9]',
        '    button "Add to cart" [ref=e10]',
        'text "3 items" [ref=e11]',
        'generic "Place order" [ref=e12]',
    ]


def test_a_spinner_is_a_line(node: Any, tree: Any) -> None:
    assert snapshot(tree(node("generic", node("progressbar"))), RefBook()).text == "progressbar [ref=e1]"


@pytest.mark.chromium
def test_the_line_format_matches_the_web_engine_for_an_equivalent_page(node: Any, tree: Any) -> None:
    html = """<button>Log in</button><button disabled>Pay</button>
        <input type="checkbox" aria-label="Remember me" checked>
        <input aria-label="Email" value="a@b.c"><input type="password" aria-label="Password" value="hunter2">
        <button aria-label="Close dialog">X</button><button aria-label='Say "hi"'>Hi</button>"""
    native = tree(
        node("button", text="Log in"), node("button", text="Pay", enabled=False),
        node("checkbox", name="Remember me", checkable=True, checked=True),
        node("textbox", name="Email", text="a@b.c", value="a@b.c"),
        # As the parsers read a password field that holds something: the mask, never its content.
        node("textbox", name="Password", value="********", password=True),
        node("button", name="Close dialog", text="X"), node("button", name='Say "hi"', text="Hi"),
    )
    native_lines = snapshot(native, RefBook()).text.splitlines()
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path="/usr/bin/chromium", args=["--no-sandbox"])
        try:
            page = browser.new_page()
            page.set_content(html)
            page.evaluate(AGENT_SOURCE)
            web_lines = page.evaluate(call_function("snapshot"), {})["text"].splitlines()
        finally:
            browser.close()
    # Where the two differ by design, it is in content, never in form: the web drops a
    # named button's text, the native line keeps a label's differing text after ": ".
    assert web_lines[:5] == native_lines[:5]
    assert web_lines[5:] == ['button "Close dialog" [ref=e6]', 'button "Say \\"hi\\"" [ref=e7]']
    assert native_lines[5:] == ['button "Close dialog" [ref=e6]: X', 'button "Say \\"hi\\"" [ref=e7]: Hi']


def test_states_quoting_and_clipping(node: Any, tree: Any) -> None:
    long = "x" * 150
    shot = snapshot(tree(
        node("switch", name="Wi-Fi", checkable=True, checked=True, focused=True),
        node("tab", name="Home", selected=True),
        node("text", text=f"line\none\t{long}"),
        node("button", name='a "quoted"\nname'),
        node("textbox", name="Notes", value="v" * 100),
    ), RefBook())
    switch, tab, text, button, box = shot.text.splitlines()
    assert switch == 'switch "Wi-Fi" [ref=e1] [checked] [focused]'
    assert tab == 'tab "Home" [ref=e2] [selected]'
    assert text.startswith('text "line one ' + "x" * 80) and text.endswith('\u2026" [ref=e3]')
    assert len(text.split('"')[1]) == 100
    assert button == 'button "a \\"quoted\\" name" [ref=e4]'
    assert box == 'textbox "Notes" [ref=e5] value="' + "v" * 79 + '\u2026"'


def test_hidden_nodes_and_their_subtrees_are_not_printed(node: Any, tree: Any) -> None:
    shot = snapshot(tree(node("generic", node("button", name="Inside"), visible=False), node("text", text="Shown")),
                    RefBook())
    assert shot.text == 'text "Shown" [ref=e1]'


def test_max_nodes_truncates_and_still_counts_the_whole_tree(device: FakeDevice, read: Read) -> None:
    device.show("catalog")
    shot = snapshot(read(device), RefBook(), max_nodes=3)
    assert (shot.node_count, shot.truncated, shot.interactive) == (3, True, 9)
    assert len(shot.text.splitlines()) == 3
    with pytest.raises(ToolError) as caught:
        snapshot(read(device), RefBook(), max_nodes=0)
    assert caught.value.details == {"field": "maxNodes"}


def test_scope_by_ref_or_selector(device: FakeDevice, read: Read) -> None:
    device.show("catalog")
    book = RefBook()
    hierarchy = read(device)
    full = snapshot(hierarchy, book).text.splitlines()
    scroll_ref = full[2].split("[ref=")[1].split("]")[0]
    scoped = snapshot(hierarchy, book, scope=scroll_ref).text.splitlines()
    assert scoped[0] == f"scrollview [ref={scroll_ref}]" and len(scoped) == 7
    assert snapshot(hierarchy, book, scope="~checkout-submit").text == 'generic "Place order" [ref=e11]'
    with pytest.raises(ToolError) as caught:
        snapshot(hierarchy, book, scope="~product_row")
    assert caught.value.code == "ambiguous-target"
    with pytest.raises(ToolError) as caught:
        snapshot(hierarchy, book, scope="css=div")
    assert caught.value.code == "bad-arg" and caught.value.details["field"] == "scope"


def _interactive(node: Any, count: int, tagged: int) -> list[Any]:
    return [node("button", name=f"b{i}", **({"test_id": f"id{i}"} if i < tagged else {})) for i in range(count)]


@pytest.mark.parametrize(("count", "tagged", "warns"), [
    (1, 0, False),   # one untagged element is not "thin": the minimum is two
    (8, 6, False),   # 2 of 8 untagged is a quarter, not more
    (8, 5, True),    # 3 of 8 is more than a quarter
    (2, 0, True),
    (0, 0, False),
])
def test_the_thin_on_testids_threshold(node: Any, tree: Any, count: int, tagged: int, warns: bool) -> None:
    shot = snapshot(tree(*_interactive(node, count, tagged)), RefBook())
    assert (shot.interactive, shot.untagged) == (count, count - tagged)
    assert bool(shot.warnings) is warns
    if warns:
        assert shot.warnings[0].startswith(f"thin on testIDs: {count - tagged} of {count} interactive")


def test_the_thin_warning_lists_the_first_eight_by_ref(node: Any, tree: Any) -> None:
    (warning,) = snapshot(tree(*_interactive(node, 11, 0)), RefBook()).warnings
    assert 'e1 button "b0"' in warning and 'e8 button "b7"' in warning and "e9" not in warning
    assert "and 3 more" in warning


# -- find --------------------------------------------------------------------------


def test_find_by_role_name_text_and_test_id(device: FakeDevice, read: Read) -> None:
    device.show("catalog")
    hierarchy, book = read(device), RefBook()
    buttons = find(hierarchy, book, role="button")
    assert buttons.count == 4 and [m.name for m in buttons.matches] == ["Show promo", *["Add to cart"] * 3]
    assert [m.to_json() for m in find(hierarchy, book, name="promo").matches] == [
        {"ref": "e1", "role": "button", "name": "Show promo", "selectorHint": "~promo-toggle",
         "testId": "promo-toggle"}]
    (order,) = find(hierarchy, book, text="place ORDER").matches  # the text is absorbed: its line answers
    assert (order.role, order.name, order.test_id) == ("generic", "Place order", "checkout-submit")
    assert find(hierarchy, book, text="place", exact=True).count == 0
    assert find(hierarchy, book, text="Place order", exact=True).count == 1
    assert find(hierarchy, book, test_id="product_row").count == 3
    limited = find(hierarchy, book, role="button", limit=2)
    assert (limited.count, len(limited.matches), limited.to_json()["truncated"]) == (4, 2, True)
    rows = resolve("~product_row", hierarchy, book).matches
    scoped = find(hierarchy, book, role="button", scope=book.ref_for(hierarchy, rows[1]))
    assert scoped.count == 1
    with pytest.raises(ToolError) as caught:
        find(hierarchy, book)
    assert caught.value.details == {"field": "role"}


def test_selector_hints_prefer_tilde_then_label_then_text_then_role(node: Any, tree: Any) -> None:
    hierarchy = tree(
        node("button", test_id="com.example:id/save", name="Save"),
        node("button", test_id="other:id/save"),  # the short id is shared: the hint is qualified
        node("button", name="Close"),
        node("text", text="Total"),
        node("button", text="Buy"), node("text", text="Buy"),
        node("button", name="Dup"), node("button", name="Dup"),
    )
    root, *matches = find(hierarchy, RefBook(), name="").matches  # name="" matches every element
    assert root.role == "generic" and root.selector_hint is None
    hints = [m.selector_hint for m in matches]
    assert hints == ["~com.example:id/save", "~other:id/save", "label=Close", "text=Total",
                     'role=button[name="Buy"]', 'role=text[name="Buy"]', None, None]
    ios = find(hierarchy, RefBook(), test_id="com.example:id/save", id_hint=identifier_hint)
    assert ios.matches[0].selector_hint == '[accessibilityIdentifier="com.example:id/save"]'


def _screens() -> Iterator[Hierarchy]:
    yield Hierarchy(parse_dump(PIXEL.read_bytes()))
    for name in ("login", "catalog", "confirmation"):
        device = emulator()
        device.show(name)
        yield Hierarchy(parse_dump(device.dump()))


@pytest.mark.parametrize("hierarchy", list(_screens()), ids=["pixel", "login", "catalog", "confirmation"])
def test_every_hint_names_its_element_alone(hierarchy: Hierarchy) -> None:
    book = RefBook()
    hinted = 0
    for match in find(hierarchy, book, name="", limit=10_000).matches:
        if match.selector_hint is None:
            continue
        hinted += 1
        (target,) = book.resolve(match.ref, hierarchy)
        assert resolve(match.selector_hint, hierarchy, book).one() == target, match
    assert hinted


# -- text_search -------------------------------------------------------------------


def test_text_search_anchors_matches_on_their_lines(device: FakeDevice, read: Read) -> None:
    device.show("catalog")
    hierarchy, book = read(device), RefBook()
    shot = snapshot(hierarchy, book)
    found = text_search(hierarchy, book, "$")
    assert found.count == 3
    assert [m.snippet for m in found.matches] == ["$20.00", "$12.00", "$9.50"]
    assert all(f"[ref={m.ref}]" in shot.text and m.role == "generic" for m in found.matches)
    assert text_search(hierarchy, book, "PLACE").matches[0].role == "generic"
    assert text_search(hierarchy, book, "PLACE", case_sensitive=True).count == 0
    assert text_search(hierarchy, book, "e", limit=2).to_json()["truncated"] is True


def test_text_search_snippets_and_repeated_matches(node: Any, tree: Any) -> None:
    text = "a" * 60 + " needle " + "b" * 60 + " needle"
    found = text_search(tree(node("text", text=text)), RefBook(), "NEEDLE")
    assert found.count == 2
    first = found.matches[0].snippet
    assert first.startswith("\u2026") and first.endswith("\u2026") and "needle" in first
    assert len(first) == 2 + 40 + len("needle") + 40
    with pytest.raises(ToolError) as caught:
        text_search(tree(), RefBook(), "   ")
    assert caught.value.details == {"field": "query"}
