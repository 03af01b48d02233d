"""``console_read``: what the session's tabs logged, one line per entry, details by id.

The records come from each tab's event session (:mod:`.tabs.events`): console calls,
uncaught exceptions and what the browser logs itself (a failed resource load, a blocked
request), from the moment the session adopted the tab, at most
:data:`~.tabs.records.CONSOLE_MAX` per tab. A result says what it left out: entries the
ring let go (``dropped``) and messages a flood sent faster than the tab records them
(``sampledOut``), counted by level all the same; of those, ``sampledInPage`` never left
the page, whose console the session samples at the source while it floods
(:mod:`.console.sampler`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ....errors import ToolError
from ....tools import Reply
from ....tools.network import ConsoleReadArgs
from ..tabs.records import ConsoleCounts
from ..tabs.tabset import Tab
from .sampler import PAGE_BUDGET
from .text import ConsoleEntry, level_rank, summary_line

if TYPE_CHECKING:
    from ..session import ChromiumSession

__all__ = ["console_read", "tabs_asked"]

DEFAULT_LIMIT = 50


def tabs_asked(session: ChromiumSession, tab: int | None, all_tabs: bool) -> list[Tab]:
    """The tabs a read covers: ``tab``, every tab with ``allTabs``, else the current one."""
    if all_tabs:
        return list(session.tabs)
    if tab is not None:
        return [session.tabs.get(tab)]
    current = session.tabs.current
    return [] if current is None else [current]


def tab_number(session: ChromiumSession, target: str) -> int | None:
    tab = session.tabs.of_target(target)
    return None if tab is None else tab.id


def _matches(entry: ConsoleEntry, args: ConsoleReadArgs) -> bool:
    """Whether an entry passes the read's filters: after ``since``, at least ``level``,
    holding ``text``."""
    if args.since is not None and entry.id <= args.since:
        return False
    if args.level is not None and level_rank(entry.level) < level_rank(args.level):
        return False
    return args.text is None or args.text.lower() in entry.text.lower()


async def console_read(session: ChromiumSession, args: ConsoleReadArgs) -> Reply:
    log = session.console
    warnings = [] if session.events.record else [
        "page recording is off (BROWX_PAGE_RECORDING=off): only errors are kept"]
    if args.id is not None:
        entry = log.find(args.id)
        if entry is None:
            raise ToolError("target-not-found", f"no console entry #{args.id} is kept (the newest "
                            f"1,000 per open tab are; the last id is {log.last_seq})", field="id")
        details = entry.details()
        details["tab"] = tab_number(session, entry.target)
        return Reply.of(entry=details, warnings=warnings)
    tabs = tabs_asked(session, args.tab, args.all_tabs)
    targets = [t.target_id for t in tabs if t.target_id is not None]
    matched = [e for e in log.entries(targets) if _matches(e, args)]
    limit = args.limit or DEFAULT_LIMIT
    shown = matched[-limit:]
    several = len(tabs) > 1
    lines = [(f"[tab {tab_number(session, e.target)}] " if several else "") + summary_line(e) for e in shown]
    counts: dict[str, ConsoleCounts] = {}
    for tab in tabs:
        if tab.target_id is not None:
            counts[str(tab.id)] = log.tab(tab.target_id).counts()
    if args.clear:
        log.clear(targets)
    reply = Reply.of(messages=lines, shown=len(shown), matched=len(matched), last=log.last_seq,
                     tabs=[t.id for t in tabs], counts=counts, warnings=warnings)
    if len(matched) > len(shown):
        reply.warn(f"{len(matched) - len(shown)} older matching entries left out; raise limit or pass since")
    for tab_id, count in counts.items():
        if count["sampledOut"]:
            in_page = (f", {count['sampledInPage']} of them held back in the page, which sends "
                       f"{PAGE_BUDGET} a second of each kind while it floods" if count["sampledInPage"] else "")
            reply.warn(f"tab {tab_id} logged faster than it is recorded: {count['sampledOut']} messages were "
                       f"counted but not kept{in_page}")
    if args.clear:
        reply["cleared"] = True
    return reply


