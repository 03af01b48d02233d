"""The chromium engine's table: every session tool, and the handler that runs it here.

Chromium runs every session tool but the app lifecycle, which needs a device. Each
handler takes the session actor and its tool's arguments; named refs (``name_ref``)
are resolved before any of them runs (:meth:`~.session.ChromiumSession.run_tool`).
"""

from __future__ import annotations

from ... import tools
from ...tools import Table, refuses, runs
from .. import visual
from .console import handlers as console
from .dialogs import handlers as dialogs
from .frames import tree as frames
from .input import actions, chain, drag, files, forms, pointer, scrolling, selects, touch
from .network import handlers as network
from .page import canvas, pdf, permission_tools, storage
from .page import handlers as page
from .reading import feedback, inspect, poll
from .reading import handlers as reading
from .reading import names as named_refs
from .reading.dom_provider import DomProvider
from .tabs import handlers as tabs

__all__ = ["NO_DEVICE", "TABLE"]

#: Why a browser session refuses the app lifecycle.
NO_DEVICE = ("a browser session has no device or apps: open_session with engine android-app or ios-app "
             "(native-device capability) drives one")

TABLE = Table.of("chromium", [
    runs(tools.NAVIGATE, page.navigate),
    runs(tools.GO_BACK, page.go_back),
    runs(tools.GO_FORWARD, page.go_forward),
    runs(tools.LIST_TABS, tabs.list_tabs),
    runs(tools.SELECT_TAB, tabs.select_tab),
    runs(tools.NEW_TAB, tabs.new_tab),
    runs(tools.CLOSE_TAB, tabs.close_tab),
    runs(tools.SNAPSHOT, reading.snapshot),
    runs(tools.FIND, reading.find),
    runs(tools.TEXT_SEARCH, reading.text_search),
    runs(tools.FRAMES_LIST, frames.frames_list),
    runs(tools.NAME_REF, named_refs.name_ref),
    runs(tools.LIST_NAMED_REFS, named_refs.list_named_refs),
    runs(tools.FIND_FEEDBACK, feedback.find_feedback),
    runs(tools.INSPECT, inspect.inspect),
    runs(tools.CLICK, actions.click),
    runs(tools.HOVER, actions.hover),
    runs(tools.FILL, actions.fill),
    runs(tools.PRESS, actions.press),
    runs(tools.SELECT, selects.select),
    runs(tools.SCROLL, scrolling.scroll),
    runs(tools.UPLOAD_FILE, files.upload_file),
    runs(tools.HANDLE_DIALOG, dialogs.handle_dialog),
    runs(tools.SET_DIALOG_POLICY, dialogs.set_dialog_policy),
    runs(tools.SET_PERMISSION_POLICY, permission_tools.set_permission_policy),
    runs(tools.PERMISSION_STATE, permission_tools.permission_state),
    runs(tools.MOUSE_DOWN, pointer.mouse_down),
    runs(tools.MOUSE_MOVE, pointer.mouse_move_tool),
    runs(tools.MOUSE_UP, pointer.mouse_up),
    runs(tools.MOUSE_WHEEL, pointer.mouse_wheel_tool),
    runs(tools.DOUBLE_CLICK, pointer.double_click),
    runs(tools.TOUCH_START, touch.touch_start_tool),
    runs(tools.TOUCH_MOVE, touch.touch_move_tool),
    runs(tools.TOUCH_END, touch.touch_end_tool),
    runs(tools.GESTURE_SWIPE, touch.gesture_swipe),
    runs(tools.GESTURE_PINCH, touch.gesture_pinch),
    runs(tools.DRAG, drag.drag),
    runs(tools.FILL_FORM, forms.fill_form),
    runs(tools.CHOOSE_OPTION, forms.choose_option),
    runs(tools.WAIT_FOR, page.wait_for),
    runs(tools.SCREENSHOT, page.screenshot),
    runs(tools.SCREENSHOT_REGION, page.screenshot_region),
    runs(tools.PDF_SAVE, pdf.pdf_save),
    runs(tools.DOWNLOADS_LIST, files.downloads_list),
    runs(tools.SET_VIEWPORT, page.set_viewport),
    runs(tools.EMULATE, page.emulate),
    runs(tools.VERIFY_VISIBLE, reading.verify_visible),
    runs(tools.VERIFY_TEXT, reading.verify_text),
    runs(tools.VERIFY_VALUE, reading.verify_value),
    runs(tools.VERIFY_ATTRIBUTE, reading.verify_attribute),
    runs(tools.VERIFY_COUNT, reading.verify_count),
    runs(tools.EVAL_JS, page.eval_js),
    runs(tools.POLL_EVAL, poll.poll_eval),
    runs(tools.CONSOLE_READ, console.console_read),
    runs(tools.NETWORK_READ, network.network_read),
    runs(tools.NETWORK_BODY, network.network_body),
    runs(tools.ROUTE, network.route),
    runs(tools.UNROUTE, network.unroute),
    runs(tools.ROUTE_QUEUE, network.route_queue),
    runs(tools.COOKIES_LIST, storage.cookies_list),
    runs(tools.COOKIES_SET, storage.cookies_set),
    runs(tools.COOKIES_DELETE, storage.cookies_delete),
    runs(tools.COOKIES_CLEAR, storage.cookies_clear),
    runs(tools.STORAGE_GET, storage.storage_get),
    runs(tools.STORAGE_SET, storage.storage_set),
    runs(tools.STORAGE_CLEAR, storage.storage_clear),
    runs(tools.STORAGE_STATE_SAVE, storage.storage_state_save),
    runs(tools.STORAGE_STATE_LOAD, storage.storage_state_load),
    *visual.lines(DomProvider),
    refuses(tools.APP_LIST, NO_DEVICE),
    refuses(tools.APP_INSTALL, NO_DEVICE),
    refuses(tools.APP_UNINSTALL, NO_DEVICE),
    refuses(tools.APP_LAUNCH, NO_DEVICE),
    refuses(tools.APP_TERMINATE, NO_DEVICE),
    refuses(tools.APP_RESET, NO_DEVICE),
    refuses(tools.APP_FOREGROUND, NO_DEVICE),
    runs(tools.CANVAS_CAPTURE, canvas.canvas_capture),
    runs(tools.GESTURE_CHAIN, chain.gesture_chain),
])
