"""The ``native`` source: an android-app or ios-app hierarchy (``NativeNode``) as raw nodes.

Both native engines already read their platform's hierarchy into one
:class:`~browx_actors.devices.nodes.NativeNode` tree, so one conversion serves
both, and :class:`NativeProvider` wraps an engine's hierarchy reader and its action
primitives without doing any I/O of its own.

The mapping:

- ``id`` is the node's place in the tree: ``root``, ``root.0``, ``root.0.3`` (child
  indexes from the root). Capture-oriented, as the contract says: the same place can
  hold another control next time, which is why references carry their snapshot.
- ``role`` comes from :data:`NATIVE_ROLES`, the engines' roles folded into the
  contract's neutral ones; a role it does not know is a ``container``. The platform's
  own class (``android.widget.Button``, ``XCUIElementTypeButton``) is the type name.
- ``supportedActions`` are what the native engines can do to the node, from its flags:
  clickable gives ``tap``; an editable field (an ``input``: ``NativeNode`` has no
  editable flag of its own) ``focus`` (a tap is how a text field is focused),
  ``setValue`` and ``typeText``; checkable ``toggle``. No native node offers
  ``unfocus``, and no node but a text field ``focus``: neither adb ``input`` nor
  XCUITest can move focus without a tap, and a tap on a focusable button presses it.
- ``label`` is the accessibility label, else the displayed text (never a field's typed
  text). A password field is ``secure``, and its text and value are not even copied.
- Native hierarchies report no colours, opacity or stacking: colours are absent,
  opacity is 1, ``z`` the default.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import Literal

import attrs

from browx_actors.devices.nodes import NativeNode
from browx_actors.errors import ToolError
from browx_actors.tools.reply import Reply

from ..jsonsafe import JsonObject
from .model import (
    NATIVE_FORMAT,
    Action,
    Bounds,
    CaptureOptions,
    RawNode,
    RawTree,
    Source,
    Visual,
    not_offered,
    unsupported_action,
)
from .snapshots import REFRESH_WITH, Capture

__all__ = ["NATIVE_ROLES", "NativeAction", "NativeProvider", "moved", "native_actions", "native_path", "node_id",
           "same_node", "to_raw_tree"]

#: The native engines' roles (ARIA-style names from the UiAutomator and XCUITest tables)
#: as neutral roles. Every role not listed is structural (``generic``, ``group``,
#: ``window``, ``application``, ``scrollview``, ``radiogroup``, ``tablist``, ``toolbar``,
#: ``navigation``, ``status``, ...) and becomes ``container``.
NATIVE_ROLES: dict[str, str] = {
    "button": "button",
    "link": "link",
    "text": "text",
    "heading": "heading",
    "textbox": "input",
    "searchbox": "input",
    "checkbox": "checkbox",
    "radio": "radio",
    "switch": "switch",
    "slider": "slider",
    "combobox": "picker",
    "listbox": "picker",
    "spinbutton": "picker",
    "image": "image",
    "list": "list",
    "grid": "list",
    "listitem": "listitem",
    "tab": "tab",
    "menu": "menu",
    "menubar": "menu",
    "menuitem": "menuitem",
    "dialog": "dialog",
    "alertdialog": "dialog",
    "progressbar": "progress",
    "webview": "webview",
    "document": "webview",
}

#: One engine primitive: the capture, its node (the node's id is its path,
#: :func:`native_path`), and the text of ``setValue`` / ``typeText``; it answers what the
#: engine's own action answers. It reads the screen afresh and refuses with :func:`moved`
#: when the node at that path is no longer the one captured (:func:`same_node`).
NativeAction = Callable[[Capture, RawNode, str | None], Awaitable[Reply]]


def node_id(path: tuple[int, ...]) -> str:
    """The raw node id of the node at ``path``: ``root.0.3`` for ``(0, 3)``."""
    return ".".join(["root", *map(str, path)])


def native_path(raw_id: str) -> tuple[int, ...]:
    """The child indexes a native node id stands for (the inverse of :func:`node_id`)."""
    head, *indexes = raw_id.split(".")
    if head != "root" or not all(index.isdigit() and index.isascii() for index in indexes):
        raise ValueError(f"{raw_id!r} is not a native node id")
    return tuple(int(index) for index in indexes)


def native_actions(node: NativeNode) -> tuple[Action, ...]:
    """The semantic actions a native node's flags offer."""
    actions: list[Action] = []
    if node.clickable:
        actions.append("tap")
    if NATIVE_ROLES.get(node.role) == "input":
        actions += ["focus", "setValue", "typeText"]
    if node.checkable:
        actions.append("toggle")
    return tuple(actions)


def _properties(node: NativeNode) -> JsonObject:
    return {
        "nativeRole": node.role,
        "clickable": node.clickable,
        "longClickable": node.long_clickable,
        "scrollable": node.scrollable,
        "checkable": node.checkable,
        "checked": node.checked,
        "selected": node.selected,
    }


def _label(node: NativeNode, role: str) -> str:
    """The accessibility label, else the displayed text (never an input's typed text)."""
    return node.name or (node.text if role != "input" and not node.password else "")


def same_node(fresh: NativeNode, captured: RawNode) -> bool:
    """Whether ``fresh`` (read now at the captured node's path) is still that node: the
    same class, role, automation id and label. A checkbox that was toggled or a field
    that was typed into is the same node; another control at that place is not."""
    role = NATIVE_ROLES.get(fresh.role, "container")
    return (
        (fresh.tag or fresh.role) == captured.type_name
        and role == captured.role
        and (fresh.test_id or None) == captured.automation_id
        and (_label(fresh, role) or None) == captured.label
    )


def moved(capture: Capture, node: RawNode) -> ToolError:
    """The refusal for a node whose place now holds another control (or nothing)."""
    return ToolError(
        "stale_node_reference",
        f"node {node.id!r} of {capture.snapshot_id} is no longer on the screen: the {node.role} "
        f"{node.label or node.type_name!r} is not at that place any more; query again",
        source=capture.source, nodeId=node.id, revision=capture.revision, refreshWith=REFRESH_WITH,
    )


def _raw(node: NativeNode, path: tuple[int, ...], include_properties: bool,
         children: tuple[RawNode, ...]) -> RawNode:
    role = NATIVE_ROLES.get(node.role, "container")
    secure = node.password
    shown_text = node.text if not secure else ""
    label = _label(node, role)
    bounds = node.bounds
    return RawNode(
        id=node_id(path),
        type_name=node.tag or node.role,
        role=role,
        automation_id=node.test_id or None,
        label=label or None,
        supported_actions=native_actions(node),
        visible=node.visible,
        enabled=node.enabled,
        focusable=node.focusable,
        focused=node.focused,
        bounds=None if bounds is None else Bounds(bounds.x, bounds.y, bounds.width, bounds.height),
        visual=Visual(text=shown_text or None, value=None if secure else node.value),
        secure=secure,
        properties=_properties(node) if include_properties else None,
        children=children,
    )


def to_raw_tree(root: NativeNode, *, include_properties: bool = False) -> RawNode:
    """The raw node tree of a native hierarchy; ids come from each node's place in it.

    Without recursion, as the DOM provider builds its tree: the nodes are listed parents
    first (each node's children right to left, each subtree in one run), then built in
    the reverse of that order onto a stack, where every node finds its children on top,
    built, left to right. The parsers refuse a hierarchy past ``MAX_DEPTH``, and nothing
    here depends on the depth either.
    """
    listed: list[tuple[NativeNode, tuple[int, ...]]] = []
    pending: list[tuple[NativeNode, tuple[int, ...]]] = [(root, ())]
    while pending:
        node, path = pending.pop()
        listed.append((node, path))
        pending.extend((child, (*path, index)) for index, child in enumerate(node.children))
    built: list[RawNode] = []
    for node, path in reversed(listed):
        count = len(node.children)
        children: tuple[RawNode, ...] = ()
        if count:
            children = tuple(built[-count:])
            del built[-count:]
        built.append(_raw(node, path, include_properties, children))
    return built[0]


@attrs.frozen
class NativeProvider:
    """The visual tree's provider for a native session, over the engine's own primitives.

    ``read_hierarchy`` reads the screen's current hierarchy; ``actions`` holds the
    primitive for each action the engine can do (an action missing from it is refused,
    naming the provider). The primitive re-resolves the path against a fresh hierarchy
    before it acts, as every native action does, and refuses when the place holds
    another node now (:func:`same_node`, :func:`moved`).
    """

    platform: Literal["android", "ios"]
    read_hierarchy: Callable[[], Awaitable[NativeNode]]
    actions: Mapping[Action, NativeAction] = attrs.field(factory=dict)
    source: Source = attrs.field(default="native", init=False)
    format: str = attrs.field(default=NATIVE_FORMAT, init=False)

    async def capture(self, options: CaptureOptions) -> RawTree:
        # Paths are re-resolved against a fresh hierarchy by every action: no scope to keep.
        return RawTree(to_raw_tree(await self.read_hierarchy(), include_properties=options.include_properties))

    async def perform(self, capture: Capture, node: RawNode, action: Action, value: str | None = None) -> Reply:
        primitive = self.actions.get(action)
        if primitive is None:
            raise unsupported_action(self, action, f"the {self.platform} engine has no primitive for it")
        if action not in node.supported_actions:
            raise not_offered(node, action)
        return await primitive(capture, node, value)
