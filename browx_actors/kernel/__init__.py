"""The actor kernel: actors, their refs, call deadlines, and OTP-style supervision.

Everything above is built from these five modules and nothing else of Trio's
concurrency:

- :mod:`.actor`: :class:`~.actor.Actor`, the serving side (a nursery, a bounded mailbox,
  the failure rules) and :class:`~.actor.Later` for answers that wait;
- :mod:`.actor_ref`: :class:`~.actor_ref.ActorRef`, the caller's side (``call``, ``cast``,
  what a caller hears when the actor is gone);
- :mod:`.deadlines`: call deadlines kept by one task per actor;
- :mod:`.supervision`: child specs, strategies, events and the supervisor's messages,
  as plain data;
- :mod:`.supervisor`: :class:`~.supervisor.Supervisor`, the OTP rules.

The kernel imports nothing of the server's but :mod:`browx_actors.errors`.
"""
