"""A session's tabs: its pages, their raw CDP sessions, what they record, and the tab tools.

- :mod:`.tabset`: the tabs and which one the tools act on;
- :mod:`.lifecycle`: a tab as it comes and goes: opened, adopted, wired, replaced,
  forgotten;
- :mod:`.wiring`: each tab's raw CDP sessions, one for commands, one for events;
- :mod:`.tap`: the tap on one event session, feeding the console and network records;
- :mod:`.events`: what the session records from its tabs' events;
- :mod:`.records`: the console records, and the counters an action's settle waits on;
- :mod:`.reads`: reading the page over its event session, from the Playwright thread;
- :mod:`.screencast`: the live view's frame source, and who watches the session;
- :mod:`.handlers`: list_tabs, select_tab, new_tab, close_tab.
"""
