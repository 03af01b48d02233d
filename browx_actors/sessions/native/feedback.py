"""``find_feedback`` over a native hierarchy: what the app is telling the user.

The web engine reads live regions, toasts and invalid fields out of the DOM; a native
screen has their counterparts in its view hierarchy, and this finds them there, in one
fresh read, with the web engine's result shape (``items``, ``count``, ``truncated``,
``sinceAction``):

* ``dialog``: an alert, dialog or sheet (iOS ``Alert`` / ``Sheet``, the roles the type
  tables give), and Android's system and AppCompat dialogs by the ids they are built of
  (``android:id/alertTitle``, ``android:id/message``, ``:id/alertTitle``...), with the
  text gathered inside;
* ``toast``: a Material snackbar (``:id/snackbar_text``, a ``Snackbar`` class) or a view
  whose class or test id says toast. Android's own ``Toast`` is drawn in a window
  UiAutomator does not dump, so it cannot be found here: the hierarchy read is the
  app's window;
* ``invalid``: a text node whose test id names an error (``email-error``,
  ``textinput_error``), the convention React Native and Material field errors follow.

``new`` is true for an item whose kind and text were not on the screen the last action
acted on: the hierarchy that action read before it acted
(:attr:`~.native.session.NativeSession.action_baseline`).
Pure apart from the one read.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import TYPE_CHECKING

from ...devices.nodes import NativeNode
from ...jsonsafe import JsonObject
from ...tools import Reply
from ...tools.reading import FindFeedbackArgs
from .refs import Hierarchy, collapse, short_test_id

if TYPE_CHECKING:
    from .session import NativeSession

__all__ = ["feedback_items", "find_feedback"]

_DIALOG_ROLES = frozenset({"alert", "alertdialog", "dialog"})
_DIALOG_IDS = frozenset({"alertTitle", "message", "parentPanel", "topPanel"})
_TOAST = re.compile(r"snackbar|toast", re.IGNORECASE)
_ERROR_ID = re.compile(r"(^|[-_.])(error|errors|invalid)([-_.]|$)|(error|invalid)$", re.IGNORECASE)
#: Characters of text an item carries.
TEXT_MAX = 300


def _texts(node: NativeNode) -> str:
    parts = [collapse(n.name or n.text) for n in node.walk() if n.visible and (n.name or n.text)]
    seen: list[str] = []
    for part in parts:
        if part and part not in seen:
            seen.append(part)
    return " ".join(seen)[:TEXT_MAX]


def _kind(node: NativeNode) -> str | None:
    short = short_test_id(node.test_id) if node.test_id else ""
    if node.role in _DIALOG_ROLES or (node.test_id and node.test_id.startswith("android:id/")
                                      and short in _DIALOG_IDS):
        return "dialog"
    if _TOAST.search(node.tag) or _TOAST.search(short):
        return "toast"
    if short and _ERROR_ID.search(short) and (node.text or node.name):
        return "invalid"
    return None


def _found(hierarchy: Hierarchy) -> Iterator[tuple[str, NativeNode, str]]:
    """(kind, node, text) for each item, outermost first: a dialog's parts are not listed again."""
    covered: list[tuple[int, ...]] = []
    for node in hierarchy:
        if not node.visible or any(node.path[:len(path)] == path for path in covered):
            continue
        kind = _kind(node)
        if kind is None:
            continue
        text = _texts(node)
        if not text:
            continue
        covered.append(node.path)
        yield kind, node, text


def feedback_items(hierarchy: Hierarchy, baseline: Hierarchy | None) -> list[tuple[str, NativeNode, str, bool]]:
    """Each item of ``hierarchy`` with whether it is new against ``baseline`` (pure)."""
    before = {(kind, text) for kind, _, text in _found(baseline)} if baseline is not None else set()
    return [(kind, node, text, (kind, text) not in before) for kind, node, text in _found(hierarchy)]


async def find_feedback(session: NativeSession, args: FindFeedbackArgs) -> Reply:
    hierarchy = await session.read()
    baseline = session.action_baseline
    found = feedback_items(hierarchy, baseline)
    if args.new_only:
        found = [item for item in found if item[3]]
    items: list[JsonObject] = []
    for kind, node, text, new in found[: args.limit]:
        item: JsonObject = {"kind": kind, "ref": session.refs.ref_for(hierarchy, node), "role": node.role,
                                "text": text, "new": new}
        if node.test_id:
            item["testId"] = node.test_id
        items.append(item)
    return Reply.of(items=items, count=len(found), truncated=len(found) > len(items),
                    sinceAction=baseline is not None)
