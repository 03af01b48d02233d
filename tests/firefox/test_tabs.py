"""A firefox session's tab bookkeeping (browx_actors/sessions/firefox/tabs.py)."""

from __future__ import annotations

from browx_actors.sessions.firefox.tabs import Tabs


def test_ids_are_small_integers_in_opening_order_and_never_reused() -> None:
    tabs = Tabs()
    first, second = tabs.add("ctx-a", ours=True), tabs.add("ctx-b")
    assert (first.id, second.id) == (1, 2)
    tabs.remove("ctx-b")
    assert tabs.add("ctx-c").id == 3
    assert [t.id for t in tabs] == [1, 3]
    assert tabs.by_id(2) is None and tabs.by_id(3) is tabs.of("ctx-c")


def test_adding_a_known_context_again_returns_the_same_tab() -> None:
    tabs = Tabs()
    tab = tabs.add("ctx-a", "http://x/", ours=True)
    assert tabs.add("ctx-a") is tab
    assert len(tabs) == 1 and tab.url == "http://x/"


def test_the_first_tab_becomes_current_and_later_ones_do_not() -> None:
    tabs = Tabs()
    first = tabs.add("ctx-a", ours=True)
    tabs.add("ctx-b")
    assert tabs.current is first


def test_removing_the_current_tab_makes_the_newest_remaining_current() -> None:
    tabs = Tabs()
    tabs.add("a", ours=True)
    tabs.add("b")
    c = tabs.add("c")
    tabs.current = tabs.of("a")
    removed = tabs.remove("a")
    assert removed is not None and removed.closed
    assert tabs.current is c
    tabs.remove("c")
    tabs.remove("b")
    assert tabs.current is None and len(tabs) == 0


def test_removing_another_tab_keeps_current_and_an_unknown_context_is_none() -> None:
    tabs = Tabs()
    a = tabs.add("a", ours=True)
    tabs.add("b")
    tabs.remove("b")
    assert tabs.current is a
    assert tabs.remove("nope") is None


def test_take_opened_lists_tabs_the_page_opened_once() -> None:
    tabs = Tabs()
    tabs.add("mine", ours=True)
    popup = tabs.add("popup")
    assert tabs.take_opened() == [popup]
    assert tabs.take_opened() == []


def test_a_tab_opened_and_closed_before_anyone_asked_is_not_reported() -> None:
    tabs = Tabs()
    tabs.add("mine", ours=True)
    tabs.add("flash")
    tabs.remove("flash")
    assert tabs.take_opened() == []


def test_a_tab_first_seen_by_event_then_claimed_as_ours_is_not_opened() -> None:
    # browsingContext.contextCreated can arrive before the answer to our own
    # browsingContext.create: the event adds it as the page's, the answer claims it.
    tabs = Tabs()
    tabs.add("mine", ours=True)
    seen = tabs.add("new")
    claimed = tabs.add("new", ours=True)
    assert claimed is seen
    assert tabs.take_opened() == []
