"""``after``: the capture any tool call can ask for, riding back in the same result.

Every tool takes ``after`` beside its own arguments: ``{"visualTree": {...}}``,
``{"screenshot": {...}}`` or both, each holding the arguments of the tool that makes the
capture (``ui.get_visual_tree``, ``screenshot``; ``{}`` takes their defaults, and the
call's own session is theirs). It is declared once, here, and the dispatch owns it:
every tool's input schema carries :data:`AFTER`, the dispatch takes it out before it
checks the tool's own arguments, validates each capture's arguments against the
capturing tool's own declaration and rules, gates that tool's capability, and once the
call has run, runs the captures through the same session path and puts their envelopes
in the result's ``after``. A capture that fails says so in its own envelope there; the
call's ``ok`` and ``code`` stay its own.
"""

from __future__ import annotations

from ..jsonsafe import JsonValue
from .params import Param

__all__ = ["AFTER", "AFTER_TOOLS", "split_after"]

#: What each key of ``after`` captures, and with which tool.
AFTER_TOOLS = {"visualTree": "ui.get_visual_tree", "screenshot": "screenshot"}

AFTER = Param(
    "after", "object",
    "Also capture once the call has run, in the same result's `after`: {\"visualTree\": {ui.get_visual_tree "
    "arguments}, \"screenshot\": {screenshot arguments}}, either or both; {} takes the defaults. Each capture "
    "answers as its tool does; its failure never replaces the call's own result.",
    properties={
        "visualTree": {"type": "object", "description": "ui.get_visual_tree's arguments (maxDepth, maxNodes, "
                       "rootNodeId, properties); {} for its defaults."},
        "screenshot": {"type": "object", "description": "screenshot's arguments (format, fullPage, maxDimension, "
                       "...); {} for its defaults."},
    },
)


def split_after(raw_args: JsonValue) -> tuple[JsonValue, JsonValue]:
    """``(the call's own arguments, its after request or None)``; anything not an object
    is left for the tool's own validation to refuse."""
    if not isinstance(raw_args, dict) or "after" not in raw_args:
        return raw_args, None
    own = dict(raw_args)
    return own, own.pop("after")
