"""Element keys and the ref book: anchored refs survive a move, path refs go stale, one key one ref."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from browx_actors.devices.nodes import NativeNode
from browx_actors.errors import ToolError
from browx_actors.sessions.native.refs import ElementKey, Hierarchy, RefBook, accessible_name, parse_ref
from browx_actors.sessions.native.selectors import resolve
from fakes.adb_device import FakeDevice

Read = Callable[[FakeDevice], Hierarchy]


def only(hierarchy: Hierarchy, **match: Any) -> NativeNode:
    found = [n for n in hierarchy if all(getattr(n, k) == v for k, v in match.items())]
    assert len(found) == 1, found
    return found[0]


@pytest.fixture
def catalog(device: FakeDevice) -> FakeDevice:
    device.show("catalog")
    return device


def test_a_node_with_a_unique_test_id_is_anchored_with_an_empty_path(catalog: FakeDevice, read: Read) -> None:
    hierarchy = read(catalog)
    submit = only(hierarchy, test_id="checkout-submit")
    assert submit.path  # it does sit somewhere...
    assert hierarchy.key_for(submit) == ElementKey("checkout-submit")  # ...but the key has no path
    assert hierarchy.key_for(submit).anchored


def test_the_anchored_ref_survives_a_layout_change_that_moves_the_node(catalog: FakeDevice, read: Read) -> None:
    book = RefBook()
    before = read(catalog)
    old = only(before, test_id="checkout-submit")
    ref = book.ref_for(before, old)
    catalog.toggles.add("promo")  # a banner appears above: the node moves
    after = read(catalog)
    (moved,) = book.resolve(ref, after)
    assert moved.test_id == "checkout-submit"
    assert moved.path != old.path and moved.bounds != old.bounds
    assert book.ref_for(after, moved) == ref


def test_a_path_ref_goes_stale_after_the_move_and_never_resolves_to_the_new_occupant(
        catalog: FakeDevice, read: Read) -> None:
    book = RefBook()
    before = read(catalog)
    items = only(before, text="3 items")
    ref = book.ref_for(before, items)
    assert not before.key_for(items).anchored
    catalog.toggles.add("promo")
    after = read(catalog)
    occupant = after.at(items.path)
    assert occupant is not None and occupant.text != "3 items"  # something else sits there now
    assert book.resolve(ref, after) == ()
    with pytest.raises(ToolError) as caught:
        resolve(ref, after, book).one()
    assert caught.value.code == "stale-element" and caught.value.details == {"ref": ref}
    # The node itself, at its new path, is a new key and so a new ref.
    assert book.ref_for(after, only(after, text="3 items")) != ref


def test_a_path_ref_resolves_in_a_fresh_read_of_an_unchanged_screen(catalog: FakeDevice, read: Read) -> None:
    book = RefBook()
    first = read(catalog)
    ref = book.ref_for(first, only(first, text="3 items"))
    second = read(catalog)  # a new tree of new objects
    (again,) = book.resolve(ref, second)
    assert again.text == "3 items"
    assert book.ref_for(second, again) == ref


def test_same_key_same_ref_and_refs_are_minted_in_order(catalog: FakeDevice, read: Read) -> None:
    book = RefBook()
    hierarchy = read(catalog)
    refs = [book.ref_for(hierarchy, n) for n in hierarchy]
    assert refs == [f"e{i}" for i in range(1, len(refs) + 1)]
    assert [book.ref_for(read(catalog), n) for n in read(catalog)] == refs
    assert len(book) == len(refs)


def test_a_shared_test_id_cannot_anchor(catalog: FakeDevice, read: Read) -> None:
    hierarchy = read(catalog)
    rows = [n for n in hierarchy if n.test_id == "product_row"]
    assert len(rows) == 3
    keys = [hierarchy.key_for(row) for row in rows]
    assert all(not key.anchored and key.test_id == "product_row" for key in keys)
    assert len(set(keys)) == 3
    # A row is named by the text inside it, so a different row at the same path is a different key.
    assert [key.identity[2] for key in keys] == ["Red shoes $20.00", "Blue hat $12.00", "Green scarf $9.50"]


def test_an_anchored_ref_whose_test_id_is_later_shared_is_ambiguous(node: Any, tree: Any) -> None:
    book = RefBook()
    first = tree(node("button", test_id="save", name="Save"))
    ref = book.ref_for(first, first.root.children[0])
    second = tree(node("button", test_id="save", name="Save"), node("button", test_id="save", name="Save"))
    assert len(book.resolve(ref, second)) == 2
    with pytest.raises(ToolError) as caught:
        resolve(ref, second, book).one()
    assert caught.value.code == "ambiguous-target" and caught.value.details["count"] == 2


def test_typing_into_an_untagged_field_keeps_its_ref(node: Any, tree: Any) -> None:
    book = RefBook()
    empty = tree(node("textbox", name="Email", text="Email", value="Email"))
    ref = book.ref_for(empty, empty.root.children[0])
    typed = tree(node("textbox", name="Email", text="a@b.c", value="a@b.c"))
    assert book.resolve(ref, typed) == (typed.root.children[0],)


def test_a_changed_label_or_role_at_the_same_path_is_stale(node: Any, tree: Any) -> None:
    book = RefBook()
    first = tree(node("button", name="Play"))
    ref = book.ref_for(first, first.root.children[0])
    assert book.resolve(ref, tree(node("button", name="Pause"))) == ()
    assert book.resolve(ref, tree(node("text", name="Play"))) == ()
    assert book.resolve(ref, tree()) == ()


def test_the_book_forgets_the_least_recently_used_keys_past_its_capacity(node: Any, tree: Any) -> None:
    book = RefBook(capacity=2)
    hierarchy = tree(node("button", test_id="a"), node("button", test_id="b"), node("button", test_id="c"))
    a, b, c = hierarchy.root.children
    ref_a, ref_b = book.ref_for(hierarchy, a), book.ref_for(hierarchy, b)
    book.ref_for(hierarchy, a)  # used again: b is now the oldest
    ref_c = book.ref_for(hierarchy, c)
    assert book.key_of(ref_b) is None and book.resolve(ref_b, hierarchy) == ()
    assert book.resolve(ref_a, hierarchy) == (a,) and book.resolve(ref_c, hierarchy) == (c,)
    assert len(book) == 2
    with pytest.raises(ValueError, match="positive"):
        RefBook(capacity=0)


@pytest.mark.parametrize(("text", "ref"), [
    ("e12", "e12"), ("ref=e12", "e12"), ("[ref=e12]", "e12"), (" [ ref = e7 ] ", "e7"),
    ("e", None), ("12", None), ("ref=x1", None), ("~e12", None), ("text=e12", None),
])
def test_parse_ref(text: str, ref: str | None) -> None:
    assert parse_ref(text) == ref


def test_accessible_names(node: Any, tree: Any) -> None:
    hierarchy = tree(
        node("generic", node("text", text="Place"), node("text", text=" order "), clickable=True),
        node("button", node("text", text="Save"), node("button", name="Nested"), name="", text=""),
        node("button", node("text", text="ignored"), name="Labelled"),
        node("textbox", text="typed", value="typed"),
        node("generic", node("text", text="not gathered")),
        node("checkbox", text="Remember me"),
    )
    pressable, button, labelled, field, layout, checkbox = hierarchy.root.children
    assert accessible_name(pressable) == "Place order"
    assert accessible_name(button) == "Save"  # the interactive child speaks for itself
    assert accessible_name(labelled) == "Labelled"
    assert accessible_name(field) == ""  # its text is its value
    assert accessible_name(layout) == ""
    assert accessible_name(checkbox) == "Remember me"
    assert hierarchy.name_of(pressable) == "Place order"


def test_names_resolve_like_refs_and_outlive_the_refs_the_book_forgets(node: Any, tree: Any) -> None:
    book = RefBook(capacity=1)
    hierarchy = tree(node("button", test_id="a"), node("button", test_id="b"))
    a, b = hierarchy.root.children
    book.names["pay"] = hierarchy.key_for(a)
    ref_a = book.ref_for(hierarchy, a)
    book.ref_for(hierarchy, b)  # past the capacity: a's ref is forgotten
    assert book.key_of(ref_a) is None
    assert book.resolve("pay", hierarchy) == (a,) and book.resolve(" pay ", hierarchy) == (a,)
    assert book.resolve("unknown", hierarchy) == ()
