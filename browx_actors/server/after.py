"""The dispatch's ``after`` step: check the captures a call asks for, run them once it has run.

``after`` is declared in :mod:`browx_actors.tools.after`; this is what the dispatch
does with it, in two places of its one path:

- with the call's arguments (:func:`check_after`): the request's own shape, then each
  capture's arguments against the capturing tool's own declaration and rules (a bad one
  is ``bad-arg`` naming ``after.visualTree.maxDepth``, say) and that tool's capability
  against both gates. A refused call therefore captures nothing, and acquires nothing;
- once the call has run, whether it succeeded or failed (:func:`run_after`): each
  capture runs through the same session path as the tool itself would (inside the
  call's session, ordered with its other calls), never opening a session the call did
  not leave open, and answers its own envelope under ``after``. A capture that fails
  says so there; it never replaces the call's own ``ok`` and ``code``.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Mapping

import attrs

from ..errors import ToolError
from ..jsonsafe import JsonObject, JsonValue
from ..tools import AFTER, AFTER_TOOLS, AnyTool, Gates, ToolOutput, validate_args
from ..tools.context import RuntimeContext
from .failure_log import failure_line, log_failure

__all__ = ["AfterCapture", "check_after", "run_after"]

log = logging.getLogger("browx_actors.dispatch")

#: How a capture runs: the dispatch's own step 7, answering what the tool's handler answered.
Run = Callable[[AnyTool, JsonObject], Awaitable[object]]


@attrs.frozen
class AfterCapture:
    """One capture of an ``after`` request: its key, its tool, its checked arguments."""

    key: str
    tool: AnyTool
    args: JsonObject


def _checked_by(tool: AnyTool, key: str, value: JsonObject) -> JsonObject:
    own = tuple(p for p in tool.params if p.name != "session")
    try:
        args = validate_args(own, value)
        for rule in tool.rules:
            rule.check(args)
    except ToolError as err:
        field = err.details.get("field", "arguments")
        where = f"after.{key}" if field == "arguments" else f"after.{key}.{field}"
        raise ToolError(err.code, f"after.{key} ({tool.name}): {err.message}", **{**err.details, "field": where}) \
            from err
    return args


def check_after(value: JsonValue, tools: Mapping[str, AnyTool], gates: Gates) -> tuple[AfterCapture, ...]:
    """The captures ``value`` asks for, checked as their own tools' calls would be."""
    request = validate_args((AFTER,), {"after": value})["after"]
    if not request:
        raise ToolError("bad-arg", f"after asks for nothing: give {' or '.join(AFTER_TOOLS)}", field="after")
    captures = []
    for key, inner in request.items():
        tool = tools.get(AFTER_TOOLS[key])
        if tool is None:
            raise ToolError("bad-arg", f"after.{key} needs {AFTER_TOOLS[key]}, which this server does not have",
                            field=f"after.{key}")
        args = _checked_by(tool, key, inner)
        for capability in tool.needed_capabilities(args):
            gates.require(capability, tool.name)
        captures.append(AfterCapture(key, tool, args))
    return tuple(captures)


async def run_after(
    captures: tuple[AfterCapture, ...], session_id: str, context: RuntimeContext, run: Run,
) -> ToolOutput:
    """Run each capture in ``session_id``: ``{key: envelope}`` and their images, in order."""
    entries: JsonObject = {}
    images: list[tuple[str, bytes]] = []
    open_now = session_id in await context.session_ids()
    for capture in captures:
        try:
            if not open_now:
                raise ToolError("unknown-session", f"after: no open session {session_id!r} to capture (after never "
                                "opens one)", session=session_id)
            output = ToolOutput.of(capture.tool.name, await run(capture.tool, {**capture.args, "session": session_id}))
        except ToolError as err:
            output = ToolOutput(err.to_envelope())
        except Exception as exc:  # a bug in the capturing tool: report it here, keep the call's result
            log_failure(log, f"after.{capture.key} ({capture.tool.name})", exc)
            output = ToolOutput({"ok": False, "code": "internal", "error": failure_line(exc)})
        entries[capture.key] = output.envelope
        images.extend(output.images)
    return ToolOutput(entries, tuple(images))
