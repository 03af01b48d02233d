"""What the firefox session's helpers need of it, as a protocol.

The session actor imports the helpers it holds or calls at start (frames routing, the
emulation it opens with, the storage state it loads, its downloads); those helpers name
the part of the session they use here, not the session class, so no module the session
imports imports it back (the rule ``docs/architecture.md`` gives every engine; chromium's
is ``sessions/chromium/host.py``). mypy checks at each call that the session is what the
helper needs.
"""

from __future__ import annotations

from pathlib import Path
from typing import Protocol

import trio

from ...bidi import BidiConnection
from ...jsonsafe import JsonObject
from .tabs import Tab, Tabs

__all__ = ["FirefoxHost"]


class FirefoxHost(Protocol):
    @property
    def session_id(self) -> str: ...

    @property
    def workspace(self) -> Path: ...

    @property
    def user_context(self) -> str | None: ...

    @property
    def bidi(self) -> BidiConnection: ...

    @property
    def tab(self) -> Tab: ...

    @property
    def tabs(self) -> Tabs: ...

    @property
    def nursery(self) -> trio.Nursery: ...

    @property
    def emulation(self) -> JsonObject:
        """What emulate set, by JSON name."""
        ...

    def left(self) -> float:
        """How long one command of the call in hand may take."""
        ...
