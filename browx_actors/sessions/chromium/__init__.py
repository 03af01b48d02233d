"""The chromium engine: one session actor per isolated browser context, and its tools.

- :mod:`.session`: :class:`ChromiumSession`, the actor (context, tabs, raw CDP);
- :mod:`.pageagent` and ``agent/``: the script in the page that gives snapshots,
  refs, lookups and aiming in one round trip;
- :mod:`.actions` (with :mod:`.target`, :mod:`.input`, :mod:`.settle`): click, hover,
  fill, press, select, scroll;
- :mod:`.page`: navigation, screenshots, viewport, eval, waits;
- :mod:`.reading`: snapshot, find, text_search, verify_*;
- :mod:`.tabs` (with :mod:`.tabset`): list_tabs, select_tab, close_tab;
- :mod:`.visual` (with :mod:`.dom_provider`): the ``ui.*`` visual-tree tools, declared
  there with this engine's handlers (``TOOLS`` of their own: they are every engine's);
- :mod:`.driver`, :mod:`.aiobridge`, :mod:`.page_events`: Playwright on its asyncio
  thread, and the page events the session counts.

``TOOLS`` is every tool this engine implements, in the order the reference lists them.
"""

from . import actions, page, reading, tabs

__all__ = ["TOOLS"]

TOOLS = [
    page.navigate, page.go_back, page.go_forward,
    *tabs.TOOLS,
    reading.snapshot, reading.find, reading.text_search,
    *actions.TOOLS,
    page.wait_for, page.screenshot, page.set_viewport,
    reading.verify_visible, reading.verify_text, reading.verify_value, reading.verify_attribute,
    reading.verify_count,
    page.eval_js,
]
