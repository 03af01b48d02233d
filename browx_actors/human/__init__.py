"""The human helper: the isolated-world ``__browx`` bridge, ``await_human`` and the
operator channel.

- :mod:`.prompts`: the pure rules (kinds, tickets, answers, the result's shape, the
  prompt text);
- :mod:`.desk`: the waiting room both channels share (tickets in, answers matched);
- :mod:`.bridge`: the per-session isolated world over raw CDP;
- :mod:`.contexts`: which execution contexts may answer through the bridge's binding;
- :mod:`.scripts`: the two ``__browx`` helpers' JavaScript;
- :mod:`.stderr`: where prompts are written, the server's stderr;
- :mod:`.await_human`: the tool's body inside the session, which picks the channel;
- :mod:`.handlers`: the ``await_human`` runtime tool's handler;
- :mod:`.operator`: the socket to the host daemon (its pure framing is
  :mod:`browx_actors.operator_wire`).
"""
