"""The runtime's table: every runtime tool, and the handler that runs it with the runtime context.

Runtime tools run in the dispatching task, not inside a session: they open and close
sessions, register secrets, report the tree, batch calls, manage devices, read the
diagnostics store, do canvas math and adapter calls, and wait for a human. Each handler
takes the :class:`~browx_actors.tools.context.RuntimeContext` and its tool's arguments.
"""

from __future__ import annotations

from .. import tools
from ..canvas import adapters
from ..devices import handlers as devices
from ..human import handlers as human
from ..recorder import handlers as diagnostics
from ..tools import Table, runs
from . import batch, canvas, handlers, policy

__all__ = ["RUNTIME"]

RUNTIME = Table.of("runtime", [
    runs(tools.OPEN_SESSION, handlers.open_session),
    runs(tools.CLOSE_SESSION, handlers.close_session),
    runs(tools.LIST_SESSIONS, handlers.list_sessions),
    runs(tools.REGISTER_SECRET, handlers.register_secret),
    runs(tools.RUNTIME_STATUS, handlers.runtime_status),
    runs(tools.BATCH, batch.tool_batch),
    runs(tools.DEVICE_LIST, devices.device_list),
    runs(tools.DEVICE_BOOT, devices.device_boot),
    runs(tools.DEVICE_SHUTDOWN, devices.device_shutdown),
    runs(tools.DIAGNOSTICS_NOTE, diagnostics.diagnostics_note),
    runs(tools.DIAGNOSTICS_SEARCH, diagnostics.diagnostics_search),
    runs(tools.DIAGNOSTICS_REPORT, diagnostics.diagnostics_report),
    runs(tools.CANVAS_DIFF, canvas.canvas_diff),
    runs(tools.CANVAS_WORLD_TO_SCREEN, canvas.canvas_world_to_screen),
    runs(tools.CANVAS_SCREEN_TO_WORLD, canvas.canvas_screen_to_world),
    runs(tools.CANVAS_QUERY, adapters.canvas_query, delegate=adapters.delegation),
    runs(tools.AWAIT_HUMAN, human.await_human),
    runs(tools.SET_CONFIRM_POLICY, policy.set_confirm_policy),
])
