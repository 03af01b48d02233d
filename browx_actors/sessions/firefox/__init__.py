"""The firefox engine: stock Firefox over WebDriver BiDi (``browx_actors.bidi``).

- :mod:`.pool`: the pool actor that owns the Firefox process and its BiDi session;
- :mod:`.session`: one session actor per session: a user context and its tabs;
- :mod:`.tabs`: the tabs (top-level browsing contexts) and which is current;
- :mod:`.sandbox`: the page agent in a BiDi sandbox realm, out of the page's reach;
- :mod:`.records`: the page's console and requests, from BiDi's log and network events;
- the handlers, one module per concern, and :mod:`.table`, the engine's one table.
"""
