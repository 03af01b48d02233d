"""The tab bookkeeping of a chromium session: ids, the current tab, closing."""

from __future__ import annotations

import pytest

from browx_actors.errors import ToolError
from browx_actors.sessions.chromium.tabs.tabset import TabSet


def test_ids_are_never_reused_and_adding_a_known_page_is_a_no_op() -> None:
    tabs = TabSet()
    a, b = object(), object()
    first = tabs.add(a)
    assert (first.id, tabs.current, tabs.last_id) == (1, first, 1)
    assert tabs.add(a) is first and len(tabs) == 1
    second = tabs.add(b)
    assert second.id == 2 and tabs.current is first  # a new page does not steal focus
    tabs.close(b)
    assert tabs.add(object()).id == 3
    assert tabs.ids() == [1, 3]


def test_closing_the_current_tab_falls_back_to_its_left_neighbour() -> None:
    tabs = TabSet()
    pages = [object() for _ in range(4)]
    for page in pages:
        tabs.add(page)
    tabs.select(3)
    tabs.close(pages[2])
    assert tabs.current.id == 2
    tabs.close(pages[0])  # not current: nothing moves
    assert tabs.current.id == 2
    tabs.close(pages[1])
    assert tabs.current.id == 4  # no left neighbour: the first left
    tabs.close(pages[3])
    assert tabs.current is None and len(tabs) == 0
    assert tabs.close(pages[3]) is None  # closing twice is harmless


def test_unknown_tab_names_the_field_and_the_open_tabs() -> None:
    tabs = TabSet()
    tabs.add(object())
    with pytest.raises(ToolError) as info:
        tabs.select(7)
    assert info.value.code == "target-not-found"
    assert info.value.details == {"field": "tab", "tabs": [1]}
    assert tabs.current.id == 1


def test_opened_since_lists_the_newer_tabs_still_open() -> None:
    tabs = TabSet()
    pages = [object() for _ in range(3)]
    tabs.add(pages[0])
    mark = tabs.last_id
    tabs.add(pages[1])
    tabs.add(pages[2])
    tabs.close(pages[1])
    assert [t.id for t in tabs.opened_since(mark)] == [3]
