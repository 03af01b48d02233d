"""``console_read`` on firefox: what the session's tabs logged, from BiDi's ``log.entryAdded``.

The arguments, lines, counts and warnings are chromium's (:mod:`...chromium.console.handlers`);
the entries come from :class:`~.records.ConsoleBook`, fed by the session's event router.
BiDi's log module reports console calls and uncaught errors (``type: javascript``);
what the browser logs about a failed resource load is not among them (the request
shows in network_read). There is no in-page sampler on firefox: ``sampledOut`` stays 0,
every message of a flood crosses the socket, and the newest 1,000 per tab are kept
(``dropped`` counts the rest).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ....errors import ToolError
from ....tools import Reply
from ....tools.network import ConsoleReadArgs
from ...chromium.console.text import ConsoleEntry, level_rank, summary_line
from ...chromium.tabs.records import ConsoleCounts
from ..tabs import Tab
from .books import KEEP

if TYPE_CHECKING:
    from ..session import FirefoxSession

__all__ = ["console_read", "tab_number", "tabs_asked"]

DEFAULT_LIMIT = 50


def tabs_asked(session: FirefoxSession, tab: int | None, all_tabs: bool) -> list[Tab]:
    """The tabs a read covers: ``tab``, every tab with ``allTabs``, else the current one."""
    if all_tabs:
        return list(session.tabs)
    if tab is not None:
        found = session.tabs.by_id(tab)
        if found is None:
            ids = [t.id for t in session.tabs]
            # chromium's tabs.get answers the same for a tab it does not have.
            raise ToolError("target-not-found", f"no open tab {tab} (open: {ids or 'none'})", field="tab", tabs=ids)
        return [found]
    current = session.tabs.current
    return [] if current is None else [current]


def tab_number(session: FirefoxSession, context: str) -> int | None:
    tab = session.tabs.of(context)
    return None if tab is None else tab.id


def _matches(entry: ConsoleEntry, args: ConsoleReadArgs) -> bool:
    if args.since is not None and entry.id <= args.since:
        return False
    if args.level is not None and level_rank(entry.level) < level_rank(args.level):
        return False
    return args.text is None or args.text.lower() in entry.text.lower()


async def console_read(session: FirefoxSession, args: ConsoleReadArgs) -> Reply:
    log = session.console.log
    if args.id is not None:
        entry = log.find(args.id)
        if entry is None:
            raise ToolError("target-not-found", f"no console entry #{args.id} is kept (the newest "
                            f"{KEEP:,} per open tab are; the last id is {log.last_seq})", field="id")
        details = entry.details()
        details["tab"] = tab_number(session, entry.target)
        return Reply.of(entry=details, warnings=[])
    tabs = tabs_asked(session, args.tab, args.all_tabs)
    contexts = [t.context for t in tabs]
    matched = [e for e in log.entries(contexts) if _matches(e, args)]
    limit = args.limit or DEFAULT_LIMIT
    shown = matched[-limit:]
    several = len(tabs) > 1
    lines = [(f"[tab {tab_number(session, e.target)}] " if several else "") + summary_line(e) for e in shown]
    counts: dict[str, ConsoleCounts] = {str(t.id): log.tab(t.context).counts() for t in tabs}
    if args.clear:
        log.clear(contexts)
    reply = Reply.of(messages=lines, shown=len(shown), matched=len(matched), last=log.last_seq,
                     tabs=[t.id for t in tabs], counts=counts, warnings=[])
    if len(matched) > len(shown):
        reply.warn(f"{len(matched) - len(shown)} older matching entries left out; raise limit or pass since")
    if args.clear:
        reply["cleared"] = True
    return reply
