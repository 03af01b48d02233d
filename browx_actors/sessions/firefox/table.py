"""The firefox engine's table: every session tool, and the handler that runs it on BiDi.

Every web tool runs. What is refused is refused for what Firefox or a browser lacks,
named in the refusal: touch (desktop Firefox fires no touch events) and the app
lifecycle (a browser session has no device). ``docs/engines.md`` shows it.
"""

from __future__ import annotations

from ... import tools
from ...tools import Table, refuses, runs
from ..chromium.reading import feedback, names
from ..chromium.reading import handlers as chromium_reading
from ..chromium.table import NO_DEVICE
from ..visual import lines as visual_lines
from .input import actions, chain, files, forms, pointer
from .page import canvas, emulation, navigation, waits
from .page import handlers as page
from .reading import frames
from .reading import handlers as reading
from .reading.visual import FirefoxDomProvider
from .records import console, cookies, network, route_tools, webstorage

__all__ = ["TABLE"]

#: What desktop Firefox does not do for touch input.
_NO_TOUCH = ("desktop Firefox fires no touch events (BiDi's touch pointers reach a page as pointer events only), "
             "so a page that listens for touches would not hear them; a chromium session emulates touch")

#: Why the permission tools are chromium's only, for now.
_NO_PERMISSIONS = ("the permission policy's gate and its ask-human answers are built on CDP (Browser.setPermission "
                   "for every origin at once); BiDi's permissions.setPermission is per origin and not wired here yet: "
                   "open a chromium session")

TABLE = Table.of("firefox", [
    runs(tools.NAVIGATE, navigation.navigate),
    runs(tools.GO_BACK, navigation.go_back),
    runs(tools.GO_FORWARD, navigation.go_forward),
    runs(tools.LIST_TABS, navigation.list_tabs),
    runs(tools.SELECT_TAB, navigation.select_tab),
    runs(tools.NEW_TAB, navigation.new_tab),
    runs(tools.CLOSE_TAB, navigation.close_tab),
    runs(tools.SNAPSHOT, reading.snapshot),
    runs(tools.FIND, chromium_reading.find),
    runs(tools.TEXT_SEARCH, chromium_reading.text_search),
    runs(tools.FRAMES_LIST, frames.frames_list),
    runs(tools.NAME_REF, names.name_ref),
    runs(tools.LIST_NAMED_REFS, names.list_named_refs),
    runs(tools.FIND_FEEDBACK, feedback.find_feedback),
    runs(tools.INSPECT, reading.inspect),
    runs(tools.CLICK, actions.click),
    runs(tools.HOVER, actions.hover),
    runs(tools.FILL, actions.fill),
    runs(tools.PRESS, actions.press),
    runs(tools.SELECT, actions.select),
    runs(tools.SCROLL, actions.scroll),
    runs(tools.UPLOAD_FILE, files.upload_file),
    runs(tools.HANDLE_DIALOG, page.handle_dialog),
    runs(tools.SET_DIALOG_POLICY, page.set_dialog_policy),
    refuses(tools.SET_PERMISSION_POLICY, _NO_PERMISSIONS),
    refuses(tools.PERMISSION_STATE, _NO_PERMISSIONS),
    runs(tools.MOUSE_DOWN, pointer.mouse_down),
    runs(tools.MOUSE_MOVE, pointer.mouse_move),
    runs(tools.MOUSE_UP, pointer.mouse_up),
    runs(tools.MOUSE_WHEEL, pointer.mouse_wheel),
    runs(tools.DOUBLE_CLICK, actions.double_click),
    refuses(tools.TOUCH_START, _NO_TOUCH),
    refuses(tools.TOUCH_MOVE, _NO_TOUCH),
    refuses(tools.TOUCH_END, _NO_TOUCH),
    refuses(tools.GESTURE_SWIPE, _NO_TOUCH),
    refuses(tools.GESTURE_PINCH, _NO_TOUCH),
    runs(tools.DRAG, pointer.drag),
    runs(tools.FILL_FORM, forms.fill_form),
    runs(tools.CHOOSE_OPTION, forms.choose_option),
    runs(tools.WAIT_FOR, waits.wait_for),
    runs(tools.SCREENSHOT, page.screenshot),
    runs(tools.SCREENSHOT_REGION, page.screenshot_region),
    runs(tools.PDF_SAVE, emulation.pdf_save),
    runs(tools.DOWNLOADS_LIST, page.downloads_list),
    runs(tools.SET_VIEWPORT, page.set_viewport),
    runs(tools.EMULATE, emulation.emulate),
    runs(tools.VERIFY_VISIBLE, reading.verify_visible),
    runs(tools.VERIFY_TEXT, reading.verify_text),
    runs(tools.VERIFY_VALUE, reading.verify_value),
    runs(tools.VERIFY_ATTRIBUTE, reading.verify_attribute),
    runs(tools.VERIFY_COUNT, reading.verify_count),
    runs(tools.EVAL_JS, page.eval_js),
    runs(tools.POLL_EVAL, waits.poll_eval),
    runs(tools.CONSOLE_READ, console.console_read),
    runs(tools.NETWORK_READ, network.network_read),
    runs(tools.NETWORK_BODY, network.network_body),
    runs(tools.ROUTE, route_tools.route),
    runs(tools.UNROUTE, route_tools.unroute),
    runs(tools.ROUTE_QUEUE, route_tools.route_queue),
    runs(tools.COOKIES_LIST, cookies.cookies_list),
    runs(tools.COOKIES_SET, cookies.cookies_set),
    runs(tools.COOKIES_DELETE, cookies.cookies_delete),
    runs(tools.COOKIES_CLEAR, cookies.cookies_clear),
    runs(tools.STORAGE_GET, webstorage.storage_get),
    runs(tools.STORAGE_SET, webstorage.storage_set),
    runs(tools.STORAGE_CLEAR, webstorage.storage_clear),
    runs(tools.STORAGE_STATE_SAVE, webstorage.storage_state_save),
    runs(tools.STORAGE_STATE_LOAD, webstorage.storage_state_load),
    *visual_lines(FirefoxDomProvider),
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
