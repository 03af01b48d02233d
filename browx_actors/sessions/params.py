"""Parameters every engine's session tools share: how a call names its target.

``ref`` is a ref from a snapshot or find (``e12``); ``selector`` is the engine's
selector language (Playwright selectors on the web, the native vocabulary on apps);
``coords`` a point in the engine's input space.
"""

from __future__ import annotations

from ..tooling import AtMostOne, ExactlyOne, Param
from ..tooling.params import COORDINATE

__all__ = ["COORDS", "ELEMENT", "ONE_ELEMENT", "ONE_TARGET", "OPTIONAL_ELEMENT", "REF", "SELECTOR", "TIMEOUT_MS"]

REF = Param("ref", "string", "Element ref from a snapshot or find, e.g. e12.")
SELECTOR = Param("selector", "string",
                 "Playwright selector (CSS, text=, role=...) when no ref is at hand.")
COORDS = Param("coords", "object", "Viewport point in CSS pixels.",
               properties={"x": COORDINATE, "y": COORDINATE}, required_keys=("x", "y"))
TIMEOUT_MS = Param("timeoutMs", "integer", "How long to wait, in milliseconds.", default=5000,
                   minimum=0, maximum=60_000)

#: An element, by ref or selector.
ELEMENT = (REF, SELECTOR)
#: Exactly one of ref, selector, coords.
ONE_TARGET = ExactlyOne(("ref", "selector", "coords"))
#: Exactly one of ref, selector.
ONE_ELEMENT = ExactlyOne(("ref", "selector"))
#: At most one of ref, selector (none: the page itself).
OPTIONAL_ELEMENT = AtMostOne(("ref", "selector"))
