"""The tools about the runtime itself: sessions, registered secrets, and status.

Runtime tools: their handlers get the :class:`~browx_actors.tools.context.RuntimeContext`
and run in the dispatching task. What they need of the tree (starting a session actor,
asking each session to describe itself, reading the supervisors) the runtime does.
"""

from __future__ import annotations

from ..clients import named
from ..credentials import redact_url
from ..errors import ToolError
from ..sessions.context_options import masked
from ..tools import Reply
from ..tools.arguments import NoArgs
from ..tools.context import RuntimeContext
from ..tools.contract import SessionArgs
from ..tools.sessions import OpenSessionArgs, RegisterSecretArgs
from .opening import register_proxy_password, session_options

__all__ = []


async def open_session(runtime: RuntimeContext, args: OpenSessionArgs) -> Reply:
    # A device's screen is the size it is: only a browser context takes a viewport (and
    # a device, a user agent, ...), the call's own or the server's default. What
    # firefox cannot set is refused before it opens.
    options, not_applied = session_options(runtime.config, args.engine, args.json())
    register_proxy_password(runtime.secrets, args.session, options)
    if args.cdp_endpoint:
        options["cdpEndpoint"] = args.cdp_endpoint
    if args.bidi_endpoint:
        options["bidiEndpoint"] = args.bidi_endpoint
    opened = await runtime.open_session(args.session, args.engine, options)
    for endpoint in ("cdpEndpoint", "bidiEndpoint"):
        if endpoint in opened:
            opened[endpoint] = redact_url(str(opened[endpoint]))
    if not_applied:
        opened["notApplied"] = list(not_applied)
    return Reply.of(**masked(opened))


async def close_session(runtime: RuntimeContext, args: SessionArgs) -> Reply:
    if not await runtime.close_session(args.session):
        raise ToolError("unknown-session", f"no open session {args.session!r}", session=args.session)
    return Reply.of(session=args.session, closed=True)


async def list_sessions(runtime: RuntimeContext, args: NoArgs) -> Reply:
    sessions = await runtime.describe_sessions()
    return Reply.of(sessions=sessions, count=len(sessions))


async def register_secret(runtime: RuntimeContext, args: RegisterSecretArgs) -> Reply:
    # A secret for a session that does not exist would wait, unused, for whoever opens
    # that id next. "default" is the exception: it opens by itself on first use, and
    # registering before that first use is how an agent starts.
    session = args.session
    if named(session) != "default" and session not in await runtime.session_ids():
        raise ToolError("unknown-session", f"no open session {session!r}; open it with open_session first",
                        session=session)
    runtime.secrets.register(session, args.name, args.value)
    return Reply.of(name=args.name, alias=f"<{args.name}>", session=args.session)


async def runtime_status(runtime: RuntimeContext, args: NoArgs) -> Reply:
    return Reply.of(**await runtime.status())


