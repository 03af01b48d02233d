"""What every result passes on its way out of the server, in one place.

The dispatch hands each envelope (and the arguments it records) through
:func:`outgoing` after the handler ran and before anything sees it: the MCP client,
the library caller, the recorder. Each step is a pure function over JSON-shaped data,
applied in order:

1. :func:`mask_secrets`: every registered secret back to its ``<NAME>`` alias;
2. :func:`valid_unicode`: lone UTF-16 surrogates (a page's ``document.title =
   '\\ud800'``) replaced by U+FFFD, so every string can be written as UTF-8;
3. :func:`finite_numbers`: NaN and infinities (a page's ``0/0``) become ``null``,
   since JSON has no such numbers and strict readers refuse a bare ``NaN``.

Masking runs first so it sees the text exactly as the page produced it. Steps 2 and 3
return their input unchanged (the same object, no copy) when there is nothing to fix.
The MCP writer keeps a last line of defence of its own (``mcp_stdio.py``): a result
that still cannot be written is answered as an ``internal`` error, never a crash.
"""

from __future__ import annotations

from typing import Any

from ..jsonsafe import finite_numbers, valid_unicode
from ..secrets import Secrets, mask_deep

__all__ = ["finite_numbers", "mask_secrets", "outgoing", "valid_unicode"]


def mask_secrets(data: Any, masks: Secrets) -> Any:
    """Every registered secret value, in every encoding a page produces, as ``<NAME>``."""
    return mask_deep(data, masks)


def outgoing(data: Any, masks: Secrets) -> Any:
    """``data`` as it may leave the server (the steps above, in order)."""
    return finite_numbers(valid_unicode(mask_secrets(data, masks)))
