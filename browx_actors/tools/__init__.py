"""How tools are declared: parameters, rules between them, gates, replies, contexts.

A tool module needs only this package (and the engine it drives):

- :mod:`.params`: :class:`Param`, one declaration for the JSON Schema and validation;
- :mod:`.rules`: rules between arguments (:class:`ExactlyOne`, :class:`CapabilityWhen`...);
- :mod:`.tool`: :class:`Tool` and the :func:`runtime_tool` / :func:`session_tool`
  declarations, :func:`implement` for a second engine;
- :mod:`.reply`: :class:`Reply`, a result's fields, warnings and images;
- :mod:`.gates`: the server and client capability gates;
- :mod:`.after`: the ``after`` request every tool takes, declared once;
- :mod:`.context`: the protocols handlers are typed against.
"""

from ..tools.after import AFTER, AFTER_TOOLS
from ..tools.contract import (
    SESSION,
    Args,
    Delegation,
    Implementation,
    Tool,
    implement,
    runtime_tool,
    session_param,
    session_tool,
)
from ..tools.gates import Gates
from ..tools.params import Param, json_schema, validate_args
from ..tools.reply import Image, Reply, ToolOutput
from ..tools.rules import AtLeastOne, AtMostOne, CapabilityWhen, Check, ExactlyOne, Excludes, Requires, Rule

__all__ = [
    "AFTER",
    "AFTER_TOOLS",
    "SESSION",
    "Args",
    "AtLeastOne",
    "AtMostOne",
    "CapabilityWhen",
    "Check",
    "Delegation",
    "ExactlyOne",
    "Excludes",
    "Gates",
    "Image",
    "Implementation",
    "Param",
    "Reply",
    "Requires",
    "Rule",
    "Tool",
    "ToolOutput",
    "implement",
    "json_schema",
    "runtime_tool",
    "session_param",
    "session_tool",
    "validate_args",
]
