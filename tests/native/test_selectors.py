"""The native selector vocabulary: every form, every tier, ambiguity, parse errors."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from browx_actors.devices.uiautomator import parse_dump
from browx_actors.errors import CODES, ToolError
from browx_actors.sessions.native.refs import Hierarchy, RefBook, collapse
from browx_actors.sessions.native.selectors import Selector, matches_test_id, parse_selector, resolve
from browx_actors.sessions.native.snapshot import snapshot
from fakes.adb_device import FakeDevice
from fakes.testdata import TESTDATA

Read = Callable[[FakeDevice], Hierarchy]


@pytest.mark.parametrize(("text", "parsed"), [
    ("~checkout-submit", Selector("testID", "checkout-submit")),
    ("testID=checkout-submit", Selector("testID", "checkout-submit")),
    ("testId=checkout-submit", Selector("testID", "checkout-submit")),
    ("id=checkout-submit", Selector("testID", "checkout-submit")),
    ('[testID="checkout-submit"]', Selector("testID", "checkout-submit")),
    ('[identifier="checkout-submit"]', Selector("testID", "checkout-submit")),
    ("[accessibilityIdentifier='checkout-submit']", Selector("testID", "checkout-submit")),
    ("label=Place order", Selector("label", "Place order")),
    ('label="Add  to cart"', Selector("label", "Add to cart")),
    ('label="add to cart"i', Selector("label", "add to cart", ignore_case=True)),
    ("text=Place order", Selector("text", "Place order")),
    ('text="Say \\"hi\\""s', Selector("text", 'Say "hi"')),
    ('role=button[name="Save"]', Selector("role", "button", name="Save")),
    ("role=button [ name = 'Save' ]", Selector("role", "button", name="Save")),
    ("role=checkbox", Selector("role", "checkbox")),
    ("e12", Selector("ref", "e12")),
    ("ref=e12", Selector("ref", "e12")),
    ("[ref=e12]", Selector("ref", "e12")),
    ("Place order", Selector("any", "Place order")),
    ("Total = 5", Selector("any", "Total = 5")),
    ("Next >>", Selector("any", "Next >>")),
])
def test_parse(text: str, parsed: Selector) -> None:
    assert attr_tuple(parse_selector(text)) == attr_tuple(parsed)
    assert parse_selector(text).source == text.strip()


def attr_tuple(selector: Selector) -> tuple[Any, ...]:
    return selector.kind, selector.value, selector.name, selector.ignore_case


@pytest.mark.parametrize("text", [
    "", "   ", "~", "~  ", "label=", "text=''", 'label="unterminated', 'label="x"q', "label='open",
    "role=", "role=button[name=]", 'role=button[name="Save"', "role=button[checked]", "[class=Button]",
    "css=button", "xpath=//button", "//android.widget.Button", "internal:text=x", 'text="\\q"',
])
def test_malformed_selectors_are_bad_arg_naming_the_field(text: str) -> None:
    with pytest.raises(ToolError) as caught:
        parse_selector(text)
    assert caught.value.code == "bad-arg" and caught.value.details == {"field": "selector"}


@pytest.fixture
def catalog(device: FakeDevice, read: Read) -> Hierarchy:
    device.show("catalog")
    return read(device)


@pytest.fixture
def login(device: FakeDevice, read: Read) -> Hierarchy:
    device.show("login")
    return read(device)


def test_test_id_tier_matches_raw_and_qualified_ids(login: Hierarchy) -> None:
    book = RefBook()
    for text in ("~email", "testID=email", '[accessibilityIdentifier="email"]'):
        found = resolve(text, login, book)
        assert found.tier == "testID" and [n.test_id for n in found.matches] == ["email"]
    for text in ("~login_button", "~com.example.shop:id/login_button", "id=login_button"):
        assert resolve(text, login, book).one().test_id == "com.example.shop:id/login_button"
    assert resolve("~other:id/login_button", login, book).matches == ()
    assert matches_test_id("com.example.shop:id/login_button", "LOGIN_BUTTON", ignore_case=True)
    assert not matches_test_id("com.example.shop:id/login_button", "button")


def test_label_text_and_role_tiers(catalog: Hierarchy, login: Hierarchy) -> None:
    book = RefBook()
    assert resolve("text=Place order", catalog, book).one().role == "text"
    submit = resolve('role=generic[name="Place order"]', catalog, book).one()
    assert submit.test_id == "checkout-submit"  # named by the text inside it, as the snapshot shows
    assert resolve('role=button[name="Log in"]', login, book).one().text == "Log in"
    assert resolve('role=button[name="log in"i]', login, book).one().text == "Log in"
    assert resolve('role=button[name="log in"]', login, book).matches == ()
    assert resolve("label=Add to cart", catalog, book).tier == "label"
    assert len(resolve("role=button", catalog, book).matches) == 4  # promo toggle and three Add


def test_a_bare_string_tries_test_id_then_label_then_text_and_reports_the_tier(catalog: Hierarchy) -> None:
    book = RefBook()
    assert resolve("checkout-submit", catalog, book).tier == "testID"
    assert resolve("Add to cart", catalog, book).tier == "label"
    found = resolve("Blue hat", catalog, book)
    assert (found.tier, found.one().text) == ("text", "Blue hat")
    missing = resolve("Nothing like it", catalog, book)
    assert (missing.tier, missing.matches) == (None, ())
    with pytest.raises(ToolError) as caught:
        missing.one()
    assert caught.value.code == "target-not-found"
    assert "tried testID, label, text" in caught.value.message
    assert caught.value.details == {"selector": "Nothing like it"}


def test_several_matches_refuse_naming_the_count(catalog: Hierarchy) -> None:
    with pytest.raises(ToolError) as caught:
        resolve("label=Add to cart", catalog, RefBook()).one()
    assert caught.value.code == "ambiguous-target"
    assert caught.value.details == {"count": 3, "tier": "label", "selector": "label=Add to cart"}
    assert "3 elements" in caught.value.message
    assert CODES["ambiguous-target"].kind == "bad-arg"
    with pytest.raises(ToolError, match="matches 3 elements"):
        resolve("~product_row", catalog, RefBook()).one()


def test_refs_resolve_through_the_book_against_the_fresh_tree(catalog: Hierarchy) -> None:
    book = RefBook()
    node = resolve("~promo-toggle", catalog, book).one()
    ref = book.ref_for(catalog, node)
    for spelling in (ref, f"ref={ref}", f"[ref={ref}]"):
        found = resolve(spelling, catalog, book)
        assert (found.tier, found.one()) == ("ref", node)
    with pytest.raises(ToolError) as caught:
        resolve("e999", catalog, book).one()
    assert caught.value.code == "stale-element" and caught.value.details == {"ref": "e999"}


def test_scope_limits_the_search_to_a_subtree(catalog: Hierarchy) -> None:
    book = RefBook()
    rows = resolve("~product_row", catalog, book).matches
    for row, title in zip(rows, ("Red shoes", "Blue hat", "Green scarf"), strict=True):
        add = resolve("label=Add to cart", catalog, book, scope=row).one()
        assert add.path[:len(row.path)] == row.path
        assert resolve(f"text={title}", catalog, book, scope=row).one().text == title
    assert resolve("text=Blue hat", catalog, book, scope=rows[0]).matches == ()


def test_hidden_nodes_only_match_when_no_visible_one_does(node: Any, tree: Any) -> None:
    hierarchy = tree(node("button", test_id="save", visible=False), node("button", test_id="save"),
                     node("button", test_id="gone", visible=False))
    book = RefBook()
    assert resolve("~save", hierarchy, book).one().visible
    hidden = resolve("~gone", hierarchy, book).one()
    assert not hidden.visible  # reported so the caller can say "not visible", not "not found"


def test_ios_spellings_and_the_tilde_form_are_the_same_query(node: Any, tree: Any) -> None:
    hierarchy = tree(node("button", test_id="checkout-submit"), node("text", text="checkout-submit"))
    book = RefBook()
    found = {resolve(text, hierarchy, book).one().role for text in (
        "~checkout-submit", '[testID="checkout-submit"]', '[identifier="checkout-submit"]',
        '[accessibilityIdentifier="checkout-submit"]', "testID=checkout-submit", "checkout-submit")}
    assert found == {"button"}


def test_bidi_marks_the_platform_puts_in_a_label_do_not_stop_it_matching() -> None:
    """WhatsApp's real dump labels its filter chips "\u200eTodas filtro": the left-to-right
    mark is invisible, so the name the snapshot shows, and a selector written from what
    the screen says, are without it."""
    hierarchy = Hierarchy(parse_dump((TESTDATA / "android" / "whatsapp-chats-window_dump.xml").read_bytes()))
    refs = RefBook()
    (chip,) = resolve("label=Todas filtro", hierarchy, refs).matches
    assert chip.name == "\u200eTodas filtro"  # the node keeps what the platform reported
    assert resolve('role=button[name="Não lidas filtro"]', hierarchy, refs).one().text == "Não lidas"
    assert f'button "Todas filtro" [ref={refs.ref_for(hierarchy, chip)}]' in snapshot(hierarchy, refs).text


@pytest.mark.parametrize("mark", ["\u200e", "\u200f", "\u061c", "\u202a", "\u202b", "\u202c", "\u202d", "\u202e",
                                  "\u2066", "\u2067", "\u2068", "\u2069"])
def test_collapse_drops_every_bidi_control_and_keeps_joiners(mark: str) -> None:
    assert collapse(f"{mark}Todas  {mark}filtro{mark}") == "Todas filtro"
    persian = "\u0645\u06cc\u200c\u062e\u0648\u0627\u0647\u0645"  # "I want", a ZWNJ inside
    assert collapse(persian) == persian
