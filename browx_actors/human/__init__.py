"""The human helper: the isolated-world ``__browx`` bridge, ``await_human`` and the
operator channel.

:mod:`.prompts` holds the pure rules (kinds, tickets, answers, result shape),
:mod:`.desk` the waiting room both channels share, :mod:`.bridge` the per-session
isolated world over raw CDP, :mod:`.await_human` the tool's body, and
:mod:`.operator` (with the pure framing in :mod:`browx_actors.operator_wire`) the socket to the
host daemon.
"""
