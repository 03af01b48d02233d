"""The one interface every engine's visual-tree provider implements.

It sits apart from :mod:`.model` because it names a :class:`~.snapshots.Capture`,
which is built from the model's nodes: here both are below it.
"""

from __future__ import annotations

from typing import Protocol

from ..tools import Reply
from .model import Action, CaptureOptions, ProviderIdentity, RawNode, RawTree
from .snapshots import Capture

__all__ = ["Provider"]


class Provider(ProviderIdentity, Protocol):
    """One engine's view of its screen, as the visual tree reads it.

    ``capture`` reads the whole hierarchy once; ``perform`` carries out one of
    :data:`ACTIONS` on a node of ``capture`` (the source's latest: the caller checked the
    reference) and answers what the engine's action answered (``value`` is the text of
    ``setValue`` and ``typeText``). A provider that cannot do an action refuses with
    :func:`unsupported_action`, which names it, and one the node does not offer with
    :func:`not_offered`; it never reports a success it did not do.
    """

    async def capture(self, options: CaptureOptions) -> RawTree: ...

    async def perform(self, capture: Capture, node: RawNode, action: Action, value: str | None = None) -> Reply: ...
