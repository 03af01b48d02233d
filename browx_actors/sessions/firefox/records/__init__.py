"""What the firefox engine's pages logged, requested and stored, and the routes that answer them.

- :mod:`.books`: the console and network books, fed by BiDi's log and network events;
- :mod:`.console`, :mod:`.network`, :mod:`.collector`: console_read, network_read and network_body (the
  collector keeps the bodies);
- :mod:`.intercept`, :mod:`.routes`, :mod:`.route_tools`: route, unroute and route_queue;
- :mod:`.cookies`, :mod:`.webstorage`: cookies, web storage and storage state.
"""
