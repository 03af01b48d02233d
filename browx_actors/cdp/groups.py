"""The one real exception out of a nursery of ours.

A nursery we open around one body and its helper tasks (a connection's reader, the
relay's pumps, a websocket's reader) fails with a group: the exception that ended it,
plus at most the ``Cancelled`` of its siblings. Callers should see that exception, a
``CdpConnectionLost`` or a refused handshake, not a group around it.
"""

from __future__ import annotations

from typing import NoReturn

import trio

__all__ = ["raise_unwrapped"]


def raise_unwrapped(group: BaseExceptionGroup[BaseException]) -> NoReturn:
    """Re-raise the one real exception of ``group``, without the group's context; the
    group itself if several tasks failed for real."""
    real = [e for e in group.exceptions if not isinstance(e, trio.Cancelled)]
    if len(real) > 1:
        raise group
    sole = real[0] if real else group.exceptions[0]
    context = sole.__context__
    try:
        raise sole
    finally:
        sole.__context__ = context
        del sole, context
