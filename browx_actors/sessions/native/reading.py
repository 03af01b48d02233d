"""The reading tools over a native hierarchy: snapshot, find, text_search and verify_*.

Shared by android-app and ios-app (``sessions/native/table.py``). Every call reads a
fresh hierarchy; results have the web engine's fields, so one agent skill reads both. A
verification that disagrees answers ``verification-failed`` with ``expected`` and
``actual``; a ref or selector that means several elements refuses (``ambiguous-target``),
as actions do.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...devices.nodes import NativeNode
from ...errors import ToolError
from ...jsonsafe import JsonObject
from ...tools import Reply
from ...tools.reading import (
    FindArgs,
    SnapshotArgs,
    TextSearchArgs,
    VerifyAttributeArgs,
    VerifyCountArgs,
    VerifyTextArgs,
    VerifyValueArgs,
    VerifyVisibleArgs,
)
from ...tools.targets import Element
from ...tools.verdict import verdict
from .find import find as find_nodes
from .find import text_search as search_text
from .refs import Hierarchy, collapse
from .selectors import resolve
from .snapshot import snapshot as print_snapshot
from .target import Located, locate_in, on_screen

if TYPE_CHECKING:
    from .session import NativeSession

__all__ = [
    "attributes", "element_state", "element_text", "find", "snapshot", "text_search", "verify_attribute",
    "verify_count", "verify_text", "verify_value", "verify_visible",
]


async def snapshot(session: NativeSession, args: SnapshotArgs) -> Reply:
    hierarchy = await session.read()
    shot = print_snapshot(hierarchy, session.refs, scope=args.scope, max_nodes=args.max_nodes,
                          omit=frozenset(args.omit or ()))
    reply = Reply.of(snapshot=shot.text, nodeCount=shot.node_count, refCount=shot.ref_count,
                     interactive=shot.interactive, untagged=shot.untagged, warnings=list(shot.warnings))
    if shot.truncated:
        reply["truncated"] = True
    return reply


async def find(session: NativeSession, args: FindArgs) -> Reply:
    hierarchy = await session.read()
    found = find_nodes(hierarchy, session.refs, role=args.role, name=args.name, text=args.text,
                       test_id=args.test_id, exact=args.exact, limit=args.limit, scope=args.scope,
                       id_hint=getattr(session, "id_hint", None) or _tilde, tags=session.raw_types)
    return Reply.of(**found.to_json())


def _tilde(test_id: str) -> str:
    return "~" + test_id


async def text_search(session: NativeSession, args: TextSearchArgs) -> Reply:
    hierarchy = await session.read()
    found = search_text(hierarchy, session.refs, args.query, limit=args.limit, case_sensitive=args.case_sensitive)
    return Reply.of(**found.to_json())


# -- what a node is, for verification ---------------------------------------------------


def element_text(node: NativeNode, hierarchy: Hierarchy) -> str:
    """The text a person reads in the node: its own and its visible descendants', in order
    (a field's typed value is not text); its accessible name when it draws none."""
    parts = []
    stack = [node]
    while stack:
        current = stack.pop()
        if not current.visible:
            continue
        if current.value is None or current.role not in ("textbox", "searchbox"):
            text = collapse(current.text)
            if text:
                parts.append(text)
        stack.extend(reversed(current.children))
    return " ".join(parts) or hierarchy.name_of(node)


def _visible(node: NativeNode, hierarchy: Hierarchy) -> bool:
    if not node.visible or node.bounds is None or node.bounds.empty:
        return False
    return not on_screen(node.bounds, hierarchy.root.bounds).empty


def element_state(located: Located, tag: bool = False) -> JsonObject:
    """The node's state as ``verify_*`` reports it (a password field's value is its
    placeholder or the mask: the parsers never read what it holds); with ``tag``, its raw
    type too."""
    node, hierarchy = located.node, located.hierarchy
    bounds = node.bounds
    return {
        "ref": located.ref, "role": node.role, **({"tag": node.tag} if tag else {}),
        "name": hierarchy.name_of(node), "testId": node.test_id,
        "text": element_text(node, hierarchy),
        "value": node.value,
        "visible": _visible(node, hierarchy), "enabled": node.enabled, "checked": node.checked,
        "selected": node.selected, "focused": node.focused,
        "bounds": None if bounds is None else {"x": bounds.x, "y": bounds.y, "width": bounds.width,
                                               "height": bounds.height},
    }


def attributes(node: NativeNode, hierarchy: Hierarchy, engine: str) -> dict[str, str | None]:
    """What ``verify_attribute`` can check: neutral names, and the platform's own spellings
    (Android's dump attributes, XCUITest's element attributes). Flags read "true"/"false"."""
    def flag(value: bool) -> str:
        return "true" if value else "false"

    bounds = node.bounds
    rect = None if bounds is None else f"{bounds.x:g},{bounds.y:g},{bounds.width:g},{bounds.height:g}"
    value = node.value
    out: dict[str, str | None] = {
        "testID": node.test_id, "role": node.role, "tag": node.tag, "name": hierarchy.name_of(node),
        "label": node.name or None, "text": node.text or None, "value": value,
        "enabled": flag(node.enabled), "visible": flag(node.visible), "checked": flag(node.checked),
        "selected": flag(node.selected), "focused": flag(node.focused), "clickable": flag(node.clickable),
        "scrollable": flag(node.scrollable), "checkable": flag(node.checkable), "password": flag(node.password),
        "bounds": rect,
    }
    if engine == "android-app":
        out.update({"resource-id": node.test_id, "class": node.tag, "content-desc": node.name or None,
                    "long-clickable": flag(node.long_clickable), "focusable": flag(node.focusable)})
    else:
        out.update({"identifier": node.test_id, "accessibilityIdentifier": node.test_id, "type": node.tag,
                    "rect": rect})
    return out




def _locate_or_none(session: NativeSession, hierarchy: Hierarchy, target: Element) -> Located | None:
    """The target; None when a selector matches nothing (a ref that does is stale)."""
    try:
        return locate_in(hierarchy, session.refs, target)
    except ToolError as err:
        if err.code == "target-not-found":
            return None
        raise


async def verify_visible(session: NativeSession, args: VerifyVisibleArgs) -> Reply:
    hierarchy = await session.read()
    located = _locate_or_none(session, hierarchy, args)
    state = None if located is None else element_state(located, session.raw_types)
    visible = bool(state and state["visible"])
    return verdict("visible", visible, True, visible, element=state)


async def verify_text(session: NativeSession, args: VerifyTextArgs) -> Reply:
    text = args.text
    hierarchy = await session.read()
    if args.ref is None and args.selector is None:
        found = search_text(hierarchy, session.refs, text, limit=1, case_sensitive=True)
        # Found, it is the text expected; not found, the count says so.
        return verdict("text", found.count > 0, text, text if found.count else "0 matches on the screen",
                       matches=[m.to_json() for m in found.matches])
    located = _locate_or_none(session, hierarchy, args)
    if located is None:
        raise ToolError("target-not-found", f"nothing on the screen matches selector {args.selector!r}",
                        selector=args.selector)
    actual = element_text(located.node, hierarchy)
    wanted = collapse(text)
    passed = actual == wanted if args.exact else wanted in actual
    return verdict("text", passed, text, actual)


async def verify_value(session: NativeSession, args: VerifyValueArgs) -> Reply:
    hierarchy = await session.read()
    located = locate_in(hierarchy, session.refs, args)
    node = located.node
    if node.password:
        # The value of a secure field is never read back, so it cannot be compared.
        raise ToolError("not-supported", f"{located.ref} is a password field: its value is never read back on "
                        f"{session.engine}, so it cannot be verified", engine=session.engine, ref=located.ref)
    return verdict("value", node.value == args.value, args.value, node.value)


async def verify_attribute(session: NativeSession, args: VerifyAttributeArgs) -> Reply:
    hierarchy = await session.read()
    located = locate_in(hierarchy, session.refs, args)
    known = attributes(located.node, hierarchy, session.engine)
    name = args.name
    if name not in known:
        raise ToolError("bad-arg", f"{session.engine} nodes have no attribute {name!r} (they have: "
                        f"{', '.join(known)})", field="name")
    actual = known[name]
    return verdict(f"attribute {name}", actual == args.value, args.value, actual)


async def verify_count(session: NativeSession, args: VerifyCountArgs) -> Reply:
    hierarchy = await session.read()
    resolution = resolve(args.selector, hierarchy, session.refs)
    actual = len(resolution.matches)
    return verdict("count", actual == args.count, args.count, actual, matchedBy=resolution.tier)
