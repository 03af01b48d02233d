"""The network: the session's requests, and the routes that answer them.

- :mod:`.log`: one tab's requests, as the ``Network`` domain reports them (pure);
- :mod:`.redact`: credentials out of what the log keeps (pure);
- :mod:`.handlers`: network_read, network_body, route, unroute, route_queue;
- :mod:`.route_rules`: routes as data: URL globs and the Fetch commands (pure);
- :mod:`.routes`: the session's routes and paused requests, and the Fetch handling on
  every tab.
"""
