"""Raw trees for the visual-tree tests, and a one-call capture of them."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import attrs

from browx_actors.visualtree.model import NATIVE_FORMAT, Bounds, RawNode, Visual
from browx_actors.visualtree.snapshots import Capture, SnapshotBook

#: The instant every test capture is taken at (the contract example's).
CAPTURED_AT = datetime(2026, 8, 21, 1, 2, 3, 456789, tzinfo=UTC)


@attrs.frozen
class Identity:
    """A provider's identity without a provider behind it."""

    source: Any = "native"
    platform: Any = "android"
    format: str = NATIVE_FORMAT


ANDROID = Identity()
WEB = Identity("dom", "web", "ansight.dom.visual-tree.compact.v2")


def capture(root: RawNode, identity: Identity = ANDROID, book: SnapshotBook | None = None) -> Capture:
    return (book or SnapshotBook()).record(identity, root, CAPTURED_AT)


def leaf(node_id: str, type_name: str = "android.view.View", role: str = "container", **fields: Any) -> RawNode:
    return RawNode(id=node_id, type_name=type_name, role=role, **fields)


def checkout() -> RawNode:
    """The contract's example screen: a frame holding the "Pay now" button."""
    button = RawNode(
        id="root.0",
        type_name="android.widget.Button",
        role="button",
        automation_id="checkout.submit",
        label="Pay now",
        supported_actions=("tap",),
        focusable=True,
        bounds=Bounds(24, 640, 320, 48),
        visual=Visual(foreground=-1, background=0xFF0066CC, text="Pay now"),
    )
    return RawNode(
        id="root",
        type_name="android.widget.FrameLayout",
        role="container",
        focusable=False,
        children=(button,),
    )


def wide(width: int, depth: int, prefix: str = "root") -> RawNode:
    """A full tree ``depth`` levels deep below the root, ``width`` children per node."""
    children = () if depth == 0 else tuple(wide(width, depth - 1, f"{prefix}.{index}") for index in range(width))
    return leaf(prefix, type_name=f"Level{prefix.count('.')}", children=children)
