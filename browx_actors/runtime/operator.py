"""The operator channel's place in the runtime tree, and how a tool reaches it.

The operator channel is the one child whose input comes from another program (the
host daemon), so it is fenced off the OTP way: it restarts under a supervisor of its
own (3 restarts in 5 s), and that supervisor is a *temporary* child of the root. When
the channel keeps failing, its supervisor gives up and ends; the root does not restart
a temporary child and does not count its exit against its own intensity, so the server
serves on without the link (``await_human`` then answers ``unavailable``) instead of
escalating to the top and exiting. A misbehaving daemon can at worst lose its own link.

:class:`OperatorWiring` is held by :class:`~.tree.Runtime`, which puts its child spec
in the root and asks it for the link; kept apart because none of it is about sessions.
"""

from __future__ import annotations

from collections.abc import Callable

from ..config import RuntimeConfig
from ..errors import ToolError
from ..human.operator import OperatorChannel
from ..kernel.actor_ref import ActorRef
from ..kernel.supervision import ChildSpec, EventLog, Restart, Strategy
from ..kernel.supervisor import Supervisor

__all__ = ["OperatorWiring"]


class OperatorWiring:
    """The operator channel's supervisor spec, and its link while it runs."""

    def __init__(self, config: RuntimeConfig, events: EventLog,
                 streams: Callable[[], ActorRef | None]) -> None:
        self.config = config
        self.events = events
        self.streams = streams
        #: The operator channel's own supervisor, while it runs (see the module notes).
        self._supervisor: Supervisor | None = None

    def children(self) -> list[ChildSpec]:
        """The OperatorChannel under its own supervisor, only when the operator-channel
        capability is on; temporary in the root, so its failures stop at it."""
        if "operator-channel" not in self.config.capabilities:
            return []
        return [ChildSpec("operator-channel", self._new_supervisor, Restart.TEMPORARY, shutdown=6)]

    def _new_supervisor(self) -> Supervisor:
        supervisor = Supervisor(
            "operator", [ChildSpec("link", self._new_channel, Restart.PERMANENT, shutdown=5)],
            strategy=Strategy.ONE_FOR_ONE, intensity=3, period=5.0, events=self.events,
        )
        self._supervisor = supervisor
        return supervisor

    def _new_channel(self) -> OperatorChannel:
        assert self.config.operator_socket and self.config.operator_token
        return OperatorChannel(self.config.operator_socket, self.config.operator_token,
                               live_view="live-view" in self.config.capabilities, streams=self.streams)

    def ref(self) -> ActorRef | None:
        """Where await_human asks when operator-channel is on (None when it is off)."""
        if "operator-channel" not in self.config.capabilities:
            return None
        ref = self.link()
        if ref is None:
            raise ToolError("unavailable", "the operator channel is not running: it failed repeatedly and its "
                            "supervisor stopped it (runtime_status shows why); restart the server to reconnect",
                            component="operator-channel")
        return ref

    def link(self) -> ActorRef | None:
        """The channel's actor while it and its supervisor are alive, else None."""
        supervisor = self._supervisor
        if supervisor is None or not supervisor.ref.alive:
            return None
        ref = supervisor.child_ref("link")
        return ref if ref is not None and ref.alive else None
