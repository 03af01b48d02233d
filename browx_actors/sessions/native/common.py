"""The session tools every native engine serves with the same handler.

Reading, acting, feedback, named refs, navigation and the swipe work alike over any
hierarchy source and input driver (``sessions/native/``), so both engines take this
table whole and add what only they have or say: Android's touch primitives, ``go_back``
and its pinch refusal; iOS's pinch and its simctl lifecycle verbs; each engine's
screenshot encodings. A tool added here reaches every native engine at once.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from ...tools.contract import Handler
from . import actions, feedback, gestures, named, reading

__all__ = ["COMMON_HANDLERS"]

COMMON_HANDLERS: Mapping[str, Handler] = MappingProxyType({
    "snapshot": reading.snapshot, "find": reading.find, "text_search": reading.text_search,
    "verify_visible": reading.verify_visible, "verify_text": reading.verify_text,
    "verify_value": reading.verify_value, "verify_attribute": reading.verify_attribute,
    "verify_count": reading.verify_count,
    "click": actions.click, "fill": actions.fill, "press": actions.press, "scroll": actions.scroll,
    "find_feedback": feedback.find_feedback,
    "name_ref": named.name_ref, "list_named_refs": named.list_named_refs,
    "navigate": actions.navigate,
    "gesture_swipe": gestures.gesture_swipe,
})
