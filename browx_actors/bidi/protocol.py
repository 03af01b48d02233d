"""What a BiDi command can end with, as exceptions, and the defaults of the client.

A command answers ``{"type": "success", "id", "result"}`` or ``{"type": "error", "id",
"error", "message"}``; ``error`` is one of the protocol's error codes (``no such frame``,
``invalid argument``, ``no such alert``, ``unknown error``...), which
:class:`BidiError` keeps as it is so that callers can tell them apart.
"""

from __future__ import annotations

__all__ = ["DEFAULT_TIMEOUT", "BidiConnectionLost", "BidiError", "BidiFailure", "BidiTimeout"]

#: How long a command waits for its answer unless told otherwise.
DEFAULT_TIMEOUT = 30.0


class BidiFailure(Exception):
    """Base of every way a BiDi command can fail."""


class BidiError(BidiFailure):
    """The browser answered the command with an error."""

    def __init__(self, method: str, error: str, message: str) -> None:
        super().__init__(f"{method}: {error}: {message}" if message else f"{method}: {error}")
        self.method = method
        #: The protocol's error code (``no such frame``, ``invalid argument``...).
        self.error = error
        self.message = message


class BidiTimeout(BidiFailure):
    """No answer came before the command's deadline."""

    def __init__(self, method: str, timeout: float) -> None:
        super().__init__(f"{method}: no answer within {timeout:g} s")
        self.method = method


class BidiConnectionLost(BidiFailure):
    """The socket closed: the browser exited, crashed or was killed."""

    def __init__(self, url: str, reason: str) -> None:
        super().__init__(f"the BiDi connection to {url} was lost: {reason}")
        self.url = url
        self.reason = reason
