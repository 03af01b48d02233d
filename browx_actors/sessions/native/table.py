"""The lines both native engines' tables share: what any hierarchy source and input driver run,
and what no native screen has.

``sessions/android/table.py`` and ``sessions/ios/table.py`` each write their table as
these lines plus their own (screenshots, the touch primitives and pinch, ``go_back``, the
app lifecycle verbs their platform has), so a tool added here reaches both engines.
"""

from __future__ import annotations

from typing import Any

from ... import tools
from ...tools import Refusal, Runs, refuses, runs
from .. import visual
from . import actions, feedback, gestures, named, reading
from .refusals import (
    CANVAS,
    DEEP,
    DIALOG,
    FILL_FORM,
    HOVER,
    NETWORK,
    NO_FORWARD,
    NO_TABS,
    PERMISSIONS,
    POINTER,
    SCRIPT,
    SELECT,
    STORAGE,
    VIEWPORT,
    WAIT,
)
from .visual import provider

__all__ = ["COMMON"]

# Any: each line binds its own tool's argument class; the catalog checks them at start.
COMMON: tuple[Runs[Any, Any] | Refusal, ...] = (
    runs(tools.NAVIGATE, actions.navigate),
    refuses(tools.GO_FORWARD, NO_FORWARD),
    refuses(tools.LIST_TABS, NO_TABS),
    refuses(tools.SELECT_TAB, NO_TABS),
    refuses(tools.NEW_TAB, NO_TABS),
    refuses(tools.CLOSE_TAB, NO_TABS),
    runs(tools.SNAPSHOT, reading.snapshot),
    runs(tools.FIND, reading.find),
    runs(tools.TEXT_SEARCH, reading.text_search),
    refuses(tools.FRAMES_LIST, DEEP),
    runs(tools.NAME_REF, named.name_ref),
    runs(tools.LIST_NAMED_REFS, named.list_named_refs),
    runs(tools.FIND_FEEDBACK, feedback.find_feedback),
    refuses(tools.INSPECT, DEEP + " (snapshot and find show what the hierarchy holds)"),
    runs(tools.CLICK, actions.click),
    refuses(tools.HOVER, HOVER),
    runs(tools.FILL, actions.fill),
    runs(tools.PRESS, actions.press),
    refuses(tools.SELECT, SELECT),
    runs(tools.SCROLL, actions.scroll),
    refuses(tools.UPLOAD_FILE, DEEP + "; install files with app_install"),
    refuses(tools.HANDLE_DIALOG, DIALOG),
    refuses(tools.SET_DIALOG_POLICY, DIALOG),
    refuses(tools.SET_PERMISSION_POLICY, PERMISSIONS),
    refuses(tools.PERMISSION_STATE, PERMISSIONS),
    refuses(tools.MOUSE_DOWN, POINTER),
    refuses(tools.MOUSE_MOVE, POINTER),
    refuses(tools.MOUSE_UP, POINTER),
    refuses(tools.MOUSE_WHEEL, POINTER),
    refuses(tools.DOUBLE_CLICK, POINTER),
    runs(tools.GESTURE_SWIPE, gestures.gesture_swipe),
    refuses(tools.DRAG, POINTER),
    refuses(tools.FILL_FORM, FILL_FORM),
    refuses(tools.CHOOSE_OPTION, SELECT),
    refuses(tools.WAIT_FOR, WAIT),
    refuses(tools.PDF_SAVE, DEEP + "; no print surface"),
    refuses(tools.DOWNLOADS_LIST, DEEP),
    refuses(tools.SET_VIEWPORT, VIEWPORT),
    refuses(tools.EMULATE, DEEP),
    runs(tools.VERIFY_VISIBLE, reading.verify_visible),
    runs(tools.VERIFY_TEXT, reading.verify_text),
    runs(tools.VERIFY_VALUE, reading.verify_value),
    runs(tools.VERIFY_ATTRIBUTE, reading.verify_attribute),
    runs(tools.VERIFY_COUNT, reading.verify_count),
    refuses(tools.EVAL_JS, SCRIPT),
    refuses(tools.POLL_EVAL, SCRIPT),
    refuses(tools.CONSOLE_READ, DEEP),
    refuses(tools.NETWORK_READ, NETWORK),
    refuses(tools.NETWORK_BODY, NETWORK),
    refuses(tools.ROUTE, NETWORK),
    refuses(tools.UNROUTE, NETWORK),
    refuses(tools.ROUTE_QUEUE, NETWORK),
    refuses(tools.COOKIES_LIST, STORAGE),
    refuses(tools.COOKIES_SET, STORAGE),
    refuses(tools.COOKIES_DELETE, STORAGE),
    refuses(tools.COOKIES_CLEAR, STORAGE),
    refuses(tools.STORAGE_GET, STORAGE),
    refuses(tools.STORAGE_SET, STORAGE),
    refuses(tools.STORAGE_CLEAR, STORAGE),
    refuses(tools.STORAGE_STATE_SAVE, STORAGE),
    refuses(tools.STORAGE_STATE_LOAD, STORAGE),
    *visual.lines(provider),
    refuses(tools.CANVAS_CAPTURE, CANVAS),
    refuses(tools.GESTURE_CHAIN, CANVAS),
)
