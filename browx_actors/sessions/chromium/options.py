"""How one chromium session is set up: its viewport, its input, what it records, its browser.

The runtime makes a :class:`SessionOptions` from its configuration and an
``open_session`` call's arguments; the chrome-android engine narrows one to its phone
(the phone's browser, the phone's screen). A leaf, so that they and the session's
helpers (:mod:`.host`) name it without importing the session actor.
"""

from __future__ import annotations

from collections.abc import Callable

import attrs

from ...config import CDP_TIMEOUT, DOWNLOAD_MAX_BYTES
from ...kernel.actor_ref import ActorRef
from ...origins import OriginPolicy
from ...policy.confirm import ConfirmPolicy
from ...policy.file import OperatorPolicy
from ..context_options import ContextOptions

__all__ = ["DEFAULT_VIEWPORT", "SessionOptions"]

#: A browser context's viewport when the session asks for none.
DEFAULT_VIEWPORT = (1280, 720)


@attrs.frozen
class SessionOptions:
    #: The pages' viewport; None keeps the browser's own (a phone's screen).
    viewport: tuple[int, int] | None = DEFAULT_VIEWPORT
    #: Click, hover and fill send the session's own CDP input to an element that is
    #: ready (False: Playwright performs every action; BROWX_ACTION_INPUT=playwright).
    direct_input: bool = True
    #: Keep console and network records for console_read / network_read
    #: (BROWX_PAGE_RECORDING=off keeps only what an action's result needs).
    record_page_events: bool = True
    #: Attach to the browser at this CDP endpoint instead of the pool's (see :mod:`.attached`).
    cdp_endpoint: str | None = None
    #: Headers every lookup and socket to ``cdp_endpoint`` carries (``--cdp-header``).
    cdp_headers: tuple[tuple[str, str], ...] = attrs.field(default=(), repr=False)
    #: Seconds each step of reaching ``cdp_endpoint`` may take (``--cdp-timeout``).
    cdp_timeout: float = CDP_TIMEOUT
    #: The operator's origin policy, enforced in the browser's request layer (routes.py).
    origins: OriginPolicy = attrs.field(factory=OriginPolicy)
    #: The largest download saved; a larger one is cancelled (BROWX_DOWNLOAD_MAX_BYTES).
    download_max_bytes: int = DOWNLOAD_MAX_BYTES
    #: What open_session asked of the context besides its size (a device, a locale, ...).
    context: ContextOptions = attrs.field(factory=ContextOptions)
    #: The operator's dialog and permission policies, in force from the start.
    policy: OperatorPolicy = attrs.field(factory=OperatorPolicy)
    #: The operator channel, when it is on: where an ask-human dialog or permission goes.
    operator: Callable[[], ActorRef | None] = attrs.field(default=lambda: None, eq=False, repr=False)
    #: The confirm rules in force for the session (the operator's and its own): a
    #: download rule is matched in the session, where downloads are seen.
    confirm: Callable[[], ConfirmPolicy] = attrs.field(default=ConfirmPolicy, eq=False, repr=False)
    #: The Chromium a session on a persistent profile runs (``userDataDir``: its own
    #: browser, not the pool's), and whether it shows its window.
    executable: str | None = None
    headless: bool = True
