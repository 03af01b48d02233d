"""The commands of one CDP socket still waiting for their replies, by id.

A command is parked here under its id before it is written and removed, in the
connection's ``finally``, once answered, failed or out of time, so a reply is matched
to its caller in one dict look-up on the reader's path and a late reply finds nothing
(it is counted, as ``unknown_replies``, and dropped). The table also owns the socket's
id counter, which the relay's renamed commands draw from too, so that no id of theirs
collides with ours. It does no I/O: :mod:`.connection` writes and reads, this only
settles.
"""

from __future__ import annotations

from collections.abc import Sequence

import outcome
import trio

from ..jsonsafe import JsonObject
from .protocol import CdpConnectionLost, CdpTimeout, Reply, error_from_reply
from .subscription import Ending

__all__ = ["PendingCommand", "PendingCommands", "command_result"]


class PendingCommand:
    """A command waiting for its reply: settled once, by the reader or by a loss."""

    __slots__ = ("done", "method", "outcome", "session_id")

    def __init__(self, method: str, session_id: str | None) -> None:
        self.method = method
        self.session_id = session_id
        self.done = trio.Event()
        self.outcome: outcome.Outcome[JsonObject] | None = None

    def settle(self, result: outcome.Outcome[JsonObject]) -> None:
        if self.outcome is None:
            self.outcome = result
            self.done.set()


def command_result(pending: PendingCommand, timeout: float, session_id: str | None) -> JsonObject:
    """A command's result; its error if it failed; a timeout if it never settled."""
    if pending.outcome is None:
        raise CdpTimeout(pending.method, timeout, session_id)
    return pending.outcome.unwrap()


class PendingCommands:
    """Every command of one socket that awaits its reply, and the socket's id counter."""

    __slots__ = ("_by_id", "_next_id", "replies", "unknown_replies")

    def __init__(self) -> None:
        self._next_id = 1
        self._by_id: dict[int, PendingCommand] = {}
        self.replies = 0
        self.unknown_replies = 0

    def __len__(self) -> int:
        return len(self._by_id)

    def claim_id(self) -> int:
        """The next id, for a command that is not parked here (the relay's)."""
        command_id = self._next_id
        self._next_id += 1
        return command_id

    def park(
        self, commands: Sequence[tuple[str, JsonObject | None]], session_id: str | None
    ) -> tuple[int, list[PendingCommand]]:
        """Park ``commands`` under consecutive ids; the first id, and their entries."""
        first_id = self._next_id
        self._next_id = first_id + len(commands)
        pendings = [PendingCommand(method, session_id) for method, _ in commands]
        for command_id, pending in enumerate(pendings, first_id):
            self._by_id[command_id] = pending
        return first_id, pendings

    def remove(self, first_id: int, count: int) -> None:
        """Forget the ``count`` commands parked from ``first_id`` on, settled or not."""
        for command_id in range(first_id, first_id + count):
            del self._by_id[command_id]

    def settle(self, reply: Reply) -> None:
        """Settle the command ``reply`` answers; count it as unknown if none waits."""
        pending = self._by_id.get(reply.id)
        if pending is None or pending.outcome is not None:
            self.unknown_replies += 1
            return
        self.replies += 1
        if reply.error is not None:
            pending.settle(outcome.Error(error_from_reply(pending.method, reply.error)))
        else:
            assert reply.result is not None
            pending.settle(outcome.Value(reply.result))

    def fail_session(self, session_id: str, ending: Ending) -> None:
        """Fail the commands still waiting on a flat session that just ended (the
        router's call, before it ends the session's subscriptions)."""
        for pending in self._by_id.values():
            if pending.session_id == session_id:
                pending.settle(outcome.Error(ending()))

    def fail_all(self, message: str) -> None:
        """Fail every command still waiting: the socket is lost, for ``message``."""
        for pending in self._by_id.values():
            pending.settle(outcome.Error(CdpConnectionLost(message)))
