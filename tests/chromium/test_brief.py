"""An action's result says each thing once (``sessions/chromium/input/brief.py``), tested
directly on what the settle gathers."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from browx_actors.sessions.chromium.input.brief import brief, brief_element, changes

BUTTON = {"ref": "e7", "role": "button", "name": "Save", "tag": "button", "visible": True, "enabled": True,
          "focused": False, "text": "Save"}
STILL = {
    "action": "click",
    "target": BUTTON,
    "navigation": {"changed": False, "sameDocument": True, "from": "http://x/a", "to": "http://x/a"},
    "structure": {"appeared": [], "removed": [], "truncated": False},
    "console": [],
    "element": {**BUTTON, "focused": True},
    "settled": {"by": "task-turn", "actedMs": 11.5, "totalMs": 17.1, "input": "cdp"},
    "opened": [],
}


def test_a_click_on_a_still_page_says_its_target_and_that_it_settled() -> None:
    out = brief(STILL)
    assert out == {"target": {"ref": "e7", "role": "button", "name": "Save"},
                   "settled": {"by": "task-turn", "ms": 17.1}}
    assert len(json.dumps({"ok": True, **out}, separators=(",", ":"))) <= 300


def test_the_usual_states_go_without_saying_and_the_unusual_ones_are_said() -> None:
    assert brief_element({**BUTTON, "visible": False, "enabled": False, "focused": True}) == {
        "ref": "e7", "role": "button", "name": "Save", "visible": False, "enabled": False, "focused": True}
    # A generic element keeps its tag (the role says nothing of it); text that is not the name stays.
    div = {"ref": "e3", "role": "generic", "name": "", "tag": "div", "visible": True, "enabled": True,
           "focused": False, "text": "Total: 3 items"}
    assert brief_element(div) == {"ref": "e3", "role": "generic", "name": "", "tag": "div",
                                  "text": "Total: 3 items"}


def test_element_is_what_the_action_changed_not_the_focus_it_gave() -> None:
    box = {"ref": "e3", "role": "checkbox", "name": "I agree", "checked": False, "focused": False}
    assert changes(box, {**box, "checked": True, "focused": True}) == {"checked": True}
    assert changes(box, {**box, "focused": True}) is None
    # Focus that leaves is a change; a field the element lost reads as None.
    field = {"ref": "e2", "role": "textbox", "name": "Name", "value": "", "focused": True, "invalid": True}
    assert changes(field, {"ref": "e2", "role": "textbox", "name": "Name", "value": "Ann", "focused": False}) == {
        "value": "Ann", "focused": False, "invalid": None}
    assert changes(None, box) is None and changes(box, None) is None


def test_a_navigation_says_where_to_and_a_closed_tab_says_nothing_of_one() -> None:
    moved = brief({**STILL, "navigation": {"changed": True, "sameDocument": False, "from": "http://x/a",
                                           "to": "http://x/b"}, "structure": None, "element": None})
    assert moved["navigation"] == {"to": "http://x/b"}
    assert "structure" not in moved and "element" not in moved
    hashed = brief({**STILL, "navigation": {"changed": True, "sameDocument": True, "from": "http://x/a",
                                            "to": "http://x/a#b"}})
    assert hashed["navigation"] == {"to": "http://x/a#b", "sameDocument": True}
    reloaded = brief({**STILL, "navigation": {"changed": False, "sameDocument": False, "from": "http://x/a",
                                              "to": "http://x/a", "reloaded": True}})
    assert reloaded["navigation"] == {"to": "http://x/a", "reloaded": True}
    closed = brief({**STILL, "navigation": {"changed": False, "to": "http://x/a"},
                    "settled": {"by": "tab-closed", "totalMs": 3.0}})
    assert "navigation" not in closed and closed["settled"] == {"by": "tab-closed", "ms": 3.0}


def test_structure_console_and_opened_appear_only_with_something_in_them() -> None:
    out = brief({**STILL, "structure": {"appeared": [{"ref": "e9"}], "removed": [], "truncated": True},
                 "console": [{"id": 1, "type": "error", "text": "boom"}], "opened": [{"id": 2, "url": "http://y"}],
                 "settled": {"by": "network-idle+task-turn", "actedMs": 1, "totalMs": 90.5, "pageMs": 40.0,
                             "input": "playwright"}})
    assert out["structure"] == {"appeared": [{"ref": "e9"}], "truncated": True}
    assert out["console"] == [{"id": 1, "type": "error", "text": "boom"}]
    assert out["opened"] == [{"id": 2, "url": "http://y"}]
    assert out["settled"] == {"by": "network-idle+task-turn", "ms": 90.5, "pageMs": 40.0, "input": "playwright"}


def test_fields_it_does_not_know_pass_as_they_are() -> None:
    dialog = {"type": "alert", "message": "hi"}
    out = brief({**STILL, "dialog": dialog, "pointer": {"x": 1, "y": 2}, "target": None})
    assert out["dialog"] == dialog and out["pointer"] == {"x": 1, "y": 2} and "target" not in out


_values = st.none() | st.booleans() | st.integers() | st.text(max_size=5)


@given(st.dictionaries(st.sampled_from(["ref", "role", "name", "tag", "visible", "enabled", "focused", "text",
                                        "value", "checked"]), _values),
       st.dictionaries(st.sampled_from(["ref", "role", "name", "visible", "enabled", "focused", "value",
                                        "checked", "expanded"]), _values))
def test_changes_name_every_field_that_differs_and_only_those(before: dict[str, Any], after: dict[str, Any]) -> None:
    found = changes(before, after) or {}
    for key in {*before, *after}:
        differs = before.get(key) != after.get(key) and not (key == "focused" and after.get(key) is True)
        assert (key in found) == differs, key
        if differs:
            assert found[key] == after.get(key)
