"""Raw CDP over trio-websocket: one browser-level socket, flat sessions, Chromium launch/attach.

- :mod:`.protocol`: the I/O-free part (messages, errors, routing decisions);
- :mod:`.connection`: the websocket and its reader task, shared by every flat session;
- :mod:`.opening`: opens a connection and runs its reader for the ``async with``;
- :mod:`.pending`: the commands still waiting for their replies, by id;
- :mod:`.transport`: opens and closes the socket, with sizes that fit CDP;
- :mod:`.routing`: hands the reader's events to subscriptions and taps, and ends what a
  lost flat session leaves behind;
- :mod:`.subscription`: one subscriber's bounded stream of events;
- :mod:`.link`: :class:`~.link.TargetLink`, a flat session to one target;
- :mod:`.probe`: does a connection or a link still answer;
- :mod:`.launcher`: the Chromium process family, launched;
- :mod:`.attach`: a browser someone else runs (a remote Chrome, a fleet), reached once;
- :mod:`.process`: a browser process that dies with the server;
- :mod:`.profiles`: private profiles in the temporary folder, and the sweep of stale ones.
"""

from .attach import resolve_attach_endpoint
from .connection import (
    DEFAULT_BUFFER,
    DEFAULT_MAX_MESSAGE_SIZE,
    DEFAULT_TIMEOUT,
    CdpConnection,
    CdpSubscription,
    TargetLink,
)
from .launcher import (
    CHROMIUM_FLAGS,
    ChromiumError,
    ChromiumNotFound,
    ChromiumProcess,
    ChromiumStartupError,
    chromium_command,
    find_chromium,
    launch_chromium,
    parse_devtools_active_port,
)
from .opening import open_cdp_connection
from .probe import answers
from .protocol import (
    CdpConnectionLost,
    CdpEndpointError,
    CdpError,
    CdpEvent,
    CdpFailure,
    CdpStats,
    CdpTimeout,
    EventTap,
    TargetLinkLost,
    peek_event,
)

__all__ = [
    "CHROMIUM_FLAGS",
    "DEFAULT_BUFFER",
    "DEFAULT_MAX_MESSAGE_SIZE",
    "DEFAULT_TIMEOUT",
    "CdpConnection",
    "CdpConnectionLost",
    "CdpEndpointError",
    "CdpError",
    "CdpEvent",
    "CdpFailure",
    "CdpStats",
    "CdpSubscription",
    "CdpTimeout",
    "ChromiumError",
    "ChromiumNotFound",
    "ChromiumProcess",
    "ChromiumStartupError",
    "EventTap",
    "TargetLink",
    "TargetLinkLost",
    "answers",
    "chromium_command",
    "find_chromium",
    "launch_chromium",
    "open_cdp_connection",
    "parse_devtools_active_port",
    "peek_event",
    "resolve_attach_endpoint",
]
