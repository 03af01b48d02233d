"""BiDi remote values as the JSON eval_js answers (browx_actors/bidi/values.py)."""

from __future__ import annotations

import math

from browx_actors.bidi.values import to_json


def test_primitives() -> None:
    assert to_json({"type": "string", "value": "hi"}) == "hi"
    assert to_json({"type": "boolean", "value": False}) is False
    assert to_json({"type": "number", "value": 2.5}) == 2.5
    assert to_json({"type": "null"}) is None
    assert to_json({"type": "undefined"}) is None
    assert to_json({"type": "bigint", "value": "12345678901234567890"}) == "12345678901234567890"


def test_special_numbers() -> None:
    assert math.isnan(to_json({"type": "number", "value": "NaN"}))  # type: ignore[arg-type]
    assert to_json({"type": "number", "value": "Infinity"}) == math.inf
    assert to_json({"type": "number", "value": "-Infinity"}) == -math.inf
    negative_zero = to_json({"type": "number", "value": "-0"})
    assert negative_zero == 0 and math.copysign(1, negative_zero) == -1  # type: ignore[arg-type]


def test_objects_and_arrays_nest() -> None:
    remote = {"type": "object", "value": [
        ["a", {"type": "number", "value": 1}],
        ["list", {"type": "array", "value": [{"type": "string", "value": "x"}, {"type": "undefined"}]}],
        ["inner", {"type": "object", "value": [["b", {"type": "boolean", "value": True}]]}],
    ]}
    assert to_json(remote) == {"a": 1, "list": ["x", None], "inner": {"b": True}}


def test_map_keys_that_are_values_become_text_and_sets_become_lists() -> None:
    remote = {"type": "map", "value": [[{"type": "number", "value": 1}, {"type": "string", "value": "one"}]]}
    assert to_json(remote) == {"1": "one"}
    assert to_json({"type": "set", "value": [{"type": "number", "value": 3}]}) == [3]


def test_an_object_with_no_value_is_empty() -> None:
    # BiDi leaves ``value`` out past the serialization depth.
    assert to_json({"type": "object"}) == {}
    assert to_json({"type": "array"}) == []


def test_dates_regexps_nodes_and_functions_describe_what_they_were() -> None:
    assert to_json({"type": "date", "value": "2024-01-02T03:04:05.000Z"}) == "2024-01-02T03:04:05.000Z"
    assert to_json({"type": "regexp", "value": {"pattern": "a+b", "flags": "gi"}}) == "/a+b/gi"
    assert to_json({"type": "node", "value": {"nodeType": 1, "localName": "button"}}) == "<button>"
    assert to_json({"type": "node", "value": {"nodeType": 9, "nodeName": "#document"}}) == "<#document>"
    assert to_json({"type": "node"}) == "<node>"
    assert to_json({"type": "function"}) == "[function]"
    assert to_json({"type": "window", "value": {"context": "x"}}) == "[window]"


def test_what_is_not_a_remote_value_is_null() -> None:
    assert to_json(None) is None
    assert to_json("text") is None
