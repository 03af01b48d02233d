"""The input tools' declarations: every argument rule is the dispatch's, checked before
anything is acquired; named refs are found wherever a tool takes a ref; the pure parts
of forms and named refs."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from browx_actors import RuntimeConfig, open_runtime
from browx_actors.errors import ToolError
from browx_actors.server.catalog import default_catalog
from browx_actors.sessions.chromium.input.forms import field_kind, wanted_checked
from browx_actors.sessions.chromium.reading.name_book import MAX_NAMED_REFS, NamedRefBook, describe_anchor
from browx_actors.sessions.chromium.reading.resolve import _slots, ref_places
from browx_actors.sessions.chromium.table import TABLE
from browx_actors.tools import Param, Runs, validate_args
from browx_actors.tools.canvas import MULTI_TOUCH, MULTI_TOUCH_TOOLS, plan_steps
from browx_actors.tools.targets import COORD_LIMIT, is_ref_name, one_point_target, point_target

CATALOG = default_catalog()
TOOLS = {tool.name: tool for tool in CATALOG}
NEW_TOOLS = ("mouse_down", "mouse_move", "mouse_up", "mouse_wheel", "double_click", "touch_start", "touch_move",
             "touch_end", "gesture_swipe", "gesture_pinch", "drag", "fill_form", "choose_option", "name_ref",
             "list_named_refs", "find_feedback", "poll_eval", "inspect", "screenshot_region")


def _refused(tool: str, args: dict[str, Any]) -> ToolError:
    declared = TOOLS[tool]
    with pytest.raises(ToolError) as caught:
        checked = validate_args(declared.params, args)
        for rule in declared.rules:
            rule.check(checked)
    return caught.value


def test_every_new_tool_is_declared_once_for_chromium_with_its_capability() -> None:
    for name in NEW_TOOLS:
        line = TABLE.entry(name)
        assert isinstance(line, Runs) and line.tool is TOOLS[name] and TOOLS[name].scope == "session", name
        assert CATALOG.engines["chromium"].entry(name) is line, name
    assert TOOLS["poll_eval"].capability == "eval"
    assert {TOOLS[n].capability for n in ("find_feedback", "inspect", "name_ref", "screenshot_region")} == {"read"}
    assert {TOOLS[n].capability for n in ("mouse_down", "touch_start", "drag", "fill_form")} == {"action"}


@pytest.mark.parametrize(("tool", "args", "field"), [
    ("mouse_down", {"ref": "e1", "coords": {"x": 1, "y": 1}}, "coords"),
    ("mouse_move", {"coords": {"x": COORD_LIMIT + 1, "y": 0}}, "coords.x"),
    ("mouse_move", {"coords": {"x": 1, "y": 1}, "durationMs": 10_001}, "durationMs"),
    ("mouse_move", {"coords": {"x": 1, "y": 1}, "steps": 0}, "steps"),
    ("mouse_up", {"button": "back"}, "button"),
    ("mouse_wheel", {}, "deltaY"),
    ("mouse_wheel", {"deltaY": 1e6}, "deltaY"),
    ("touch_start", {"points": []}, "points"),
    ("touch_start", {"points": [{"x": 1, "y": 1}] * 11}, "points"),
    ("touch_start", {"points": [{"x": 1}]}, "points[0].y"),
    ("touch_start", {"points": [{"x": 1, "y": 1, "id": 10}]}, "points[0].id"),
    ("touch_start", {"points": [{"x": 1, "y": 1, "id": 1}, {"x": 2, "y": 2}]}, "points"),
    ("touch_start", {"points": [{"x": 1, "y": 1, "force": 1}]}, "points[0].force"),
    ("touch_end", {"ids": []}, "ids"),
    ("gesture_swipe", {"from": {"x": 1, "y": 1}}, "to"),
    ("gesture_swipe", {"from": {"x": 1}, "to": {"x": 1, "y": 2}}, "from.y"),
    ("gesture_swipe", {"from": {"ref": "e1", "x": 1, "y": 1}, "to": {"x": 1, "y": 2}}, "from"),
    ("gesture_swipe", {"from": {}, "to": {"x": 1, "y": 2}}, "from"),
    ("gesture_pinch", {"center": {"x": 1, "y": 1}, "scale": 1}, "scale"),
    ("gesture_pinch", {"center": {"x": 1, "y": 1}, "scale": 0.01}, "scale"),
    ("gesture_pinch", {"center": {"x": 1, "y": 1}, "scale": 2, "distance": 5}, "distance"),
    ("drag", {"from": {"selector": "#a"}, "to": {"x": 1, "y": float("nan")}}, "to.y"),
    ("fill_form", {"fields": []}, "fields"),
    ("fill_form", {"fields": [{"value": "x"}]}, "fields[0]"),
    ("fill_form", {"fields": [{"ref": "e1", "selector": "#a", "value": "x"}]}, "fields[0]"),
    ("fill_form", {"fields": [{"ref": "e1"}]}, "fields[0].value"),
    ("fill_form", {"fields": [{"ref": "e1", "value": 3}]}, "fields[0].value"),
    ("fill_form", {"fields": [{"ref": "e1", "value": ["a", 1]}]}, "fields[0].value"),
    ("choose_option", {"ref": "e1"}, "option"),
    ("choose_option", {"option": "Blue"}, "ref"),
    ("name_ref", {"ref": "e1", "name": "e12"}, "name"),
    ("name_ref", {"ref": "e1", "name": "has space"}, "name"),
    ("poll_eval", {"expr": "1", "intervalMs": 1}, "intervalMs"),
    ("poll_eval", {"expr": "1", "timeoutMs": 60_001}, "timeoutMs"),
    ("inspect", {"ref": "e1", "styles": ["color; background"]}, "styles"),
    ("inspect", {"ref": "e1", "styles": ["color"] * 51}, "styles"),
    ("screenshot_region", {"x": 0, "y": 0, "width": 10}, "height"),
    ("screenshot_region", {"x": 0, "y": 0, "width": 10, "height": 1e9}, "height"),
    ("screenshot_region", {"x": 0, "y": 0, "width": 0, "height": 5}, "width"),
    ("screenshot", {"region": {"x": 0, "y": 0, "width": 10, "height": 0.5}}, "region.height"),
])
def test_bad_calls_are_refused_naming_the_field(tool: str, args: dict[str, Any], field: str) -> None:
    err = _refused(tool, args)
    assert (err.code, err.details["field"]) == ("bad-arg", field), err


def test_array_items_are_checked_against_their_properties() -> None:
    points = Param("points", "array", "", items="object", min_items=1, max_items=2,
                   properties={"x": {"type": "number", "minimum": 0}, "v": {"type": ["string", "boolean"]},
                               "s": {"type": "string", "maxLength": 3}},
                   required_keys=("x",))
    assert validate_args((points,), {"points": [{"x": 1, "v": True}, {"x": 0, "v": "a", "s": "abc"}]})
    schema = points.schema()
    assert schema["minItems"] == 1 and schema["maxItems"] == 2
    assert schema["items"]["properties"]["v"] == {"type": ["string", "boolean"]}
    assert schema["items"]["required"] == ["x"] and schema["items"]["additionalProperties"] is False
    for bad, field in ([{"x": -1}], "points[0].x"), ([{"x": 1, "v": 2}], "points[0].v"), \
            ([{"x": 1, "s": "long"}], "points[0].s"), ([{"x": 1}, 3], "points[1]"), ([], "points"):
        with pytest.raises(ToolError) as caught:
            validate_args((points,), {"points": bad})
        assert caught.value.details["field"] == field


def _checked(tool: str, args: dict[str, Any]) -> dict[str, Any]:
    declared = TOOLS[tool]
    checked = validate_args(declared.params, args)
    for rule in declared.rules:
        rule.check(checked)
    return checked


def test_an_optional_property_given_as_null_is_one_not_given() -> None:
    # Rules and handlers see the object without it: a finger's id falls back to its
    # place, a point target is the one key left, a form field is its selector.
    assert _checked("touch_start", {"points": [{"x": 1, "y": 2, "id": None}]})["points"] == [{"x": 1, "y": 2}]
    swipe = _checked("gesture_swipe", {"from": {"ref": None, "x": 1, "y": 2}, "to": {"ref": "e1", "x": None,
                                                                                     "y": None}})
    assert (swipe["from"], swipe["to"]) == ({"x": 1, "y": 2}, {"ref": "e1"})
    typed = TOOLS["gesture_swipe"].args.of(swipe)  # what the handler gets: `from` is a keyword
    assert (typed.from_, typed.to) == ({"x": 1, "y": 2}, {"ref": "e1"}) and typed.json() == swipe
    assert _checked("drag", {"from": {"selector": "#a", "ref": None}, "to": {"x": 0, "y": 0}})["from"] == \
        {"selector": "#a"}
    assert _checked("fill_form", {"fields": [{"ref": None, "selector": "#a", "value": "x"}]})["fields"] == \
        [{"selector": "#a", "value": "x"}]
    # A required key given as null is still missing its value; a target of nulls names nothing.
    assert _refused("touch_start", {"points": [{"x": None, "y": 2}]}).details["field"] == "points[0].x"
    assert _refused("gesture_swipe", {"from": {"ref": None}, "to": {"x": 1, "y": 1}}).details["field"] == "from"
    # The caller's arguments are left as they were sent.
    sent = {"points": [{"x": 1, "y": 2, "id": None}]}
    _checked("touch_start", sent)
    assert sent == {"points": [{"x": 1, "y": 2, "id": None}]}


def test_a_point_target_is_exactly_one_of_ref_selector_or_x_and_y() -> None:
    rule = one_point_target("from", "to")
    rule.check({"from": {"ref": "e1"}, "to": {"x": 0, "y": 0}})
    rule.check({"from": {"selector": "#a"}, "to": None})
    for value in ({}, {"ref": "e1", "selector": "#a"}, {"selector": "#a", "x": 1, "y": 1}):
        with pytest.raises(ToolError):
            rule.check({"from": value})
    schema = point_target("to", "Where.").schema()
    assert set(schema["properties"]) == {"ref", "selector", "x", "y"}
    assert schema["properties"]["x"]["maximum"] == COORD_LIMIT


def test_names_are_never_refs_and_refs_never_names() -> None:
    for name in ("checkout", "cart.total", "row:3", "_x", "E12", "e12x", "email-field", "f1", "f1e", "fe2"):
        assert is_ref_name(name), name
    # A ref into a frame (frames_list's f2, its element e5) is a ref too.
    for not_name in ("e12", "ref=e3", "[ref=e4]", " e5 ", "f2e5", "[ref=f10e3]", "", "9lives", "a b", "x" * 65,
                     None, 3):
        assert not is_ref_name(not_name), not_name


def test_named_refs_are_looked_for_in_every_place_a_tool_takes_a_ref() -> None:
    assert ref_places(TOOLS["click"].params) == [("ref", "value")]
    assert ref_places(TOOLS["drag"].params) == [("from", "object"), ("to", "object")]
    assert ref_places(TOOLS["fill_form"].params) == [("fields", "items")]
    assert ref_places(TOOLS["canvas_capture"].params) == [("ref", "value")]
    assert ref_places(TOOLS["navigate"].params) == []
    args = {"from": {"ref": "card"}, "to": {"ref": "e4"}}
    assert [(holder, key) for holder, key in _slots(args, ref_places(TOOLS["drag"].params))] == \
        [({"ref": "card"}, "ref")]
    fields = {"fields": [{"ref": "email", "value": "a"}, {"selector": "#b", "value": "b"}, {"ref": "e9", "value": "c"}]}
    assert len(_slots(fields, ref_places(TOOLS["fill_form"].params))) == 1
    # Resolved only where a ref can appear, and only in a chromium session's calls: a runtime
    # tool runs in the runtime (its table's handler) and no engine's table names it.
    note = TOOLS["diagnostics_note"]
    assert note.scope == "runtime" and isinstance(CATALOG.runtime.entry(note.name), Runs)
    assert all(table.entry(note.name) is None for table in CATALOG.engines.values())


def test_the_named_ref_book_is_bounded_and_says_what_it_knows() -> None:
    book = NamedRefBook()
    assert book.add("cart", {"by": "testid", "attr": "data-testid", "value": "cart"}, "http://a/") is False
    assert book.add("cart", {"by": "id", "value": "cart"}, "http://b/") is True
    assert len(book) == 1 and book.get("cart").url == "http://b/"
    with pytest.raises(ToolError) as caught:
        book.get("nope")
    assert caught.value.code == "target-not-found" and "cart" in caught.value.message
    for i in range(MAX_NAMED_REFS - 1):
        book.add(f"n{i}", {"by": "id", "value": str(i)}, "")
    with pytest.raises(ToolError) as full:
        book.add("one-more", {"by": "id", "value": "x"}, "")
    assert full.value.code == "too-large"
    assert describe_anchor({"by": "role", "role": "button", "name": "Save"}) == 'button "Save"'
    assert describe_anchor({"by": "path", "base": {"by": "id", "value": "cards"}, "steps": [["div", 4]]}) == \
        'path of 1 steps from id="cards"'


def test_fields_are_set_by_what_they_are() -> None:
    assert field_kind({"tag": "select", "role": "combobox"}) == "select"
    assert field_kind({"tag": "input", "role": "checkbox", "checked": False}) == "check"
    assert field_kind({"tag": "div", "role": "switch"}) == "check"
    assert field_kind({"tag": "textarea", "role": "textbox"}) == "text"
    assert [wanted_checked(v, "f") for v in (True, False, "on", " Yes ", "0", "unchecked")] == \
        [True, False, True, True, False, False]
    with pytest.raises(ToolError):
        wanted_checked("maybe", "fields[0].value")


def test_gesture_chain_points_several_pointers_at_tools_that_exist() -> None:
    plan = plan_steps([{"kind": "down", "x": 1, "y": 1, "pointerId": 1}, {"kind": "up", "x": 1, "y": 1,
                                                                           "pointerId": 2}])
    assert MULTI_TOUCH in plan.warnings[0]
    for name in MULTI_TOUCH_TOOLS:
        assert name in TOOLS and name in MULTI_TOUCH


async def test_bad_input_calls_launch_nothing(tmp_path: Path) -> None:
    async with open_runtime(config=RuntimeConfig(workspace=tmp_path)) as runtime:
        for tool, args in [("mouse_wheel", {}), ("touch_start", {"points": []}),
                           ("gesture_pinch", {"center": {"x": 1, "y": 1}, "scale": 1}),
                           ("drag", {"from": {"x": 1, "y": 1}}), ("fill_form", {"fields": [{"value": "x"}]}),
                           ("poll_eval", {"expr": "1"}), ("name_ref", {"ref": "e1", "name": "e2"})]:
            envelope = await runtime.call_tool(tool, args)
            assert envelope["ok"] is False and envelope["code"] in ("bad-arg", "capability-denied"), envelope
        status = await runtime.call_tool("runtime_status")
        pool = next(c for c in status["tree"]["children"] if c["id"] == "browser-pool")
        assert pool["launches"] == 0 and status["sessions"] == []
