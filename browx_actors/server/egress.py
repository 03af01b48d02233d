"""What every result passes on its way out of the server, in one place.

The dispatch hands each envelope (and the arguments it records) through
:func:`outgoing` after the handler ran and before anything sees it: the MCP client,
the library caller, the recorder. Each step is a pure function over JSON-shaped data,
applied in order; today that is the masking of registered secrets.
"""

from __future__ import annotations

from typing import Any

from ..secrets import Secrets, mask_deep

__all__ = ["outgoing"]


def outgoing(data: Any, masks: Secrets) -> Any:
    """``data`` as it may leave the server: every registered secret back to its alias."""
    return mask_deep(data, masks)
