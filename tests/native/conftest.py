"""Shared fixtures of the native-core tests: a NativeNode tree builder and scripted shop screens."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from browx_actors.devices.nodes import NativeNode, Rect
from browx_actors.devices.uiautomator import parse_dump
from browx_actors.sessions.native.refs import Hierarchy
from fakes.adb_device import FakeDevice
from fakes.adb_shop import emulator

Spec = Callable[[tuple[int, ...]], NativeNode]


def _node(role: str, *children: Spec, **fields: Any) -> Spec:
    """A node spec: call the result with a path (the root's is ``()``) to build the tree."""
    fields.setdefault("tag", role)
    if isinstance(fields.get("bounds"), tuple):
        fields["bounds"] = Rect(*fields["bounds"])

    def build(path: tuple[int, ...]) -> NativeNode:
        kids = tuple(child((*path, index)) for index, child in enumerate(children))
        return NativeNode(role=role, path=path, children=kids, **fields)

    return build


def _tree(*children: Spec) -> Hierarchy:
    """A Hierarchy whose root is a plain container holding ``children``."""
    return Hierarchy(_node("generic", *children)(()))


@pytest.fixture
def node() -> Callable[..., Spec]:
    """``node(role, *children, **fields)``: a NativeNode spec (paths are filled in by ``tree``)."""
    return _node


@pytest.fixture
def tree() -> Callable[..., Hierarchy]:
    """``tree(*specs)``: a Hierarchy of those nodes under a plain root."""
    return _tree


@pytest.fixture
def device() -> FakeDevice:
    """A scripted emulator (not served): its dumps are what the fake adb server answers."""
    return emulator()


@pytest.fixture
def read() -> Callable[[FakeDevice], Hierarchy]:
    """A fresh hierarchy read of the device's current screen."""
    return lambda device: Hierarchy(parse_dump(device.dump()))
