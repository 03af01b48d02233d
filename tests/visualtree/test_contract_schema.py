"""The contract schema itself refuses what the contract forbids (so passing it means something)."""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import jsonschema
import pytest

from browx_actors.visualtree.payload import TreeLimits, inspect_payload, tree_payload
from visualtree.contract_schema import check_inspection, check_tree
from visualtree.trees import capture, checkout, wide

Payload = dict[str, Any]


def _button(payload: Payload) -> Payload:
    child: Payload = payload["root"]["children"][0]
    return child


def _set(path: Callable[[Payload], Payload], key: str, value: object) -> Callable[[Payload], None]:
    def change(payload: Payload) -> None:
        path(payload)[key] = value

    return change


def _drop(path: Callable[[Payload], Payload], key: str) -> Callable[[Payload], None]:
    def change(payload: Payload) -> None:
        del path(payload)[key]

    return change


def _top(payload: Payload) -> Payload:
    return payload


def _visual(payload: Payload) -> Payload:
    visual: Payload = _button(payload)["visual"]
    return visual


BREAKAGES = {
    "a null field": _set(_button, "label", None),
    "no typeId": _drop(_button, "typeId"),
    "a negative typeId": _set(_button, "typeId", -1),
    "a typeId past the registry": _set(_button, "typeId", 2),
    "no opacity": _drop(_visual, "opacity"),
    "opacity above 1": _set(_visual, "opacity", 1.5),
    "a colour without alpha": _set(_visual, "foreground", "#FFFFFF"),
    "a CSS colour": _set(_visual, "background", "rgb(0, 0, 0)"),
    "an unknown node field": _set(_button, "kind", "Button"),
    "an unknown action": _set(_button, "supportedActions", ["click"]),
    "a default z written out": _set(_button, "z", 0),
    "a wrong interactable": _set(_button, "interactable", False),
    "a childCount below the children": _set(lambda payload: payload["root"], "childCount", 0),
    "a repeated node id": _set(_button, "id", "root"),
    "no types": _drop(_top, "types"),
    "a wrong format": _set(_top, "format", "ansight.native.visual-tree.compact.v1"),
    "a wrong scope": _set(lambda payload: payload["nodeIdentity"], "scope", "session"),
    "another source in nodeIdentity": _set(lambda payload: payload["nodeIdentity"], "source", "dom"),
    "a time without milliseconds": _set(_top, "capturedAtUtc", "2026-08-21T01:02:03Z"),
    "a repeated type": _set(_top, "types", ["A", "A"]),
}


@pytest.mark.parametrize("breakage", list(BREAKAGES), ids=list(BREAKAGES))
def test_the_schema_refuses(breakage: str) -> None:
    payload = check_tree(tree_payload(capture(checkout())))
    broken = copy.deepcopy(payload)
    BREAKAGES[breakage](broken)
    with pytest.raises((jsonschema.ValidationError, AssertionError)):
        check_tree(broken)


def test_a_placeholder_carries_nothing_else() -> None:
    payload = check_tree(tree_payload(capture(wide(2, 1)), limits=TreeLimits(max_depth=0)))
    payload["root"]["children"][0]["label"] = "leaked"
    with pytest.raises(jsonschema.ValidationError):
        check_tree(payload)


def test_an_ancestor_carries_no_children() -> None:
    payload = check_inspection(inspect_payload(capture(checkout()), "root.0"))
    payload["ancestors"][0]["children"] = []
    with pytest.raises(jsonschema.ValidationError):
        check_inspection(payload)
