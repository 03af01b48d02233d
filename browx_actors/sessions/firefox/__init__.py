"""The firefox engine: stock Firefox over WebDriver BiDi (``browx_actors.bidi``).

- :mod:`.pool`: the pool actor that owns the Firefox process and its BiDi session;
- :mod:`.session`: one session actor per session: a user context and its tabs;
- :mod:`.tabs`: the tabs (top-level browsing contexts), their frames, which is current;
- :mod:`.events`: the browser's events, sorted into a session's tabs, dialogs and records;
- :mod:`.host`: what the session's helpers need of it, as a protocol;
- :mod:`.sandbox`: the page agent in a BiDi sandbox realm, out of the page's reach;
- ``input/``: actions and what they set off; ``page/``: navigation, captures, emulation,
  downloads and waits; ``reading/``: snapshots, frames and the visual tree;
  ``records/``: console, network, routes, cookies and storage;
- :mod:`.table`: the engine's one table.
"""
