"""Console events as the console shows them: one entry's level, text, place and stack.

The session records ``Runtime.consoleAPICalled`` (``console.log`` and kin),
``Runtime.exceptionThrown`` (uncaught errors and rejections) and ``Log.entryAdded``
(what the browser itself logs: a failed resource load, a blocked request, an
intervention). Each becomes a :class:`ConsoleEntry`: a level an agent can filter on, the
text as DevTools would print it (format specifiers applied, objects by their preview),
where it came from, and a short stack for the details view.

Pure: the functions take the events' ``params`` and return values.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

import attrs

from ....jsonsafe import JsonValue

__all__ = [
    "LEVELS",
    "TEXT_MAX",
    "ConsoleEntry",
    "entry_from_console_api",
    "entry_from_exception",
    "entry_from_log",
    "format_args",
    "level_rank",
    "summary_line",
]

#: Severity order, least first: ``console_read {level}`` returns that level and above.
LEVELS = ("debug", "info", "warn", "error")
#: Longest text kept per entry; longer text is clipped with an ellipsis.
TEXT_MAX = 2000
#: Frames kept of a stack, for the details view.
STACK_MAX = 10
#: Longest text in a summary line.
SUMMARY_TEXT_MAX = 200

#: consoleAPICalled ``type`` -> level.
_API_LEVELS = {
    "error": "error", "assert": "error",
    "warning": "warn",
    "debug": "debug", "trace": "debug", "profile": "debug", "profileEnd": "debug",
}
#: Log.entryAdded ``level`` -> level.
_LOG_LEVELS = {"error": "error", "warning": "warn", "verbose": "debug", "info": "info"}

_FORMAT = re.compile(r"%[sdifoOc%]")


@attrs.frozen
class ConsoleEntry:
    """One console message, uncaught exception or browser log line."""

    id: int
    #: The target id of the tab it came from (tools show the tab's number).
    target: str
    level: str
    #: The console method (``log``, ``error``, ``warning``, ``table``...), ``exception``
    #: for an uncaught error, or the browser's own level for what it logged
    #: (``error``, ``warning``, ``info``, ``verbose``).
    kind: str
    text: str
    #: ``console`` (the page's console calls), ``worker`` (a dedicated worker's),
    #: ``exception``, or the browser's source for what it logged itself (``network``,
    #: ``violation``, ``intervention``...).
    source: str = "console"
    url: str | None = None
    #: 1-based, as editors count.
    line: int | None = None
    column: int | None = None
    #: Milliseconds since the epoch, as the browser stamped it.
    at: float | None = None
    stack: tuple[str, ...] = ()

    @property
    def is_error(self) -> bool:
        return self.level == "error"

    def compat(self) -> dict[str, object]:
        """What an action's ``console`` list shows: ``{id, type, text}``, ``type`` as
        Playwright names it (``pageerror`` for an uncaught exception)."""
        return {"id": self.id, "type": "pageerror" if self.kind == "exception" else self.kind, "text": self.text}

    def details(self) -> dict[str, object]:
        return {
            "id": self.id, "level": self.level, "kind": self.kind, "source": self.source,
            "text": self.text,
            "url": self.url, "line": self.line, "column": self.column, "at": self.at, "stack": list(self.stack),
        }


def level_rank(level: str) -> int:
    return LEVELS.index(level)


def clip(text: str, limit: int = TEXT_MAX) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "\u2026"


def _number(value: object) -> str:
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e16:
        return str(int(value))
    return str(value)


def format_value(arg: Mapping[str, JsonValue]) -> str:
    """One argument as DevTools prints it: strings bare, objects by their preview."""
    kind = arg.get("type")
    if kind == "string":
        return str(arg.get("value", ""))
    if kind in ("number", "boolean", "bigint"):
        if "unserializableValue" in arg:
            return str(arg["unserializableValue"])
        if "description" in arg:
            return str(arg["description"])
        return _number(arg.get("value"))
    if kind == "undefined":
        return "undefined"
    if kind == "symbol":
        return str(arg.get("description", "Symbol()"))
    if kind == "function":
        return str(arg.get("description", "function")).split("\n", 1)[0]
    if kind == "object":
        if arg.get("subtype") == "null":
            return "null"
        if arg.get("subtype") == "error":
            return str(arg.get("description", "Error"))
        preview = arg.get("preview")
        if isinstance(preview, Mapping):
            return _preview(preview, arg.get("description"))
        return str(arg.get("description", "Object"))
    return str(arg.get("description", arg.get("value", "")))


def _preview(preview: Mapping[str, JsonValue], description: JsonValue) -> str:
    properties = preview.get("properties") or []
    array = preview.get("subtype") == "array"
    parts = []
    for prop in properties:
        value = prop.get("value", "")
        shown = f'"{value}"' if prop.get("type") == "string" else str(value)
        parts.append(shown if array else f"{prop.get('name')}: {shown}")
    if preview.get("overflow"):
        parts.append("\u2026")
    body = ", ".join(parts)
    if array:
        return f"{description or 'Array'} [{body}]"
    name = str(description or "Object")
    return f"{{{body}}}" if name == "Object" else f"{name} {{{body}}}"


def format_args(args: Sequence[Mapping[str, JsonValue]]) -> str:
    """The line ``console.log(...args)`` prints: ``%s %d %i %f %o %O %c`` in a first
    string argument take the arguments after it, the rest follow separated by spaces."""
    if not args:
        return ""
    rest = list(args)
    pieces: list[str] = []
    first = rest[0]
    if first.get("type") == "string" and "%" in str(first.get("value", "")):
        rest.pop(0)

        def substitute(match: re.Match[str]) -> str:
            spec = match.group(0)
            if spec == "%%":
                return "%"
            if not rest:
                return spec
            arg = rest.pop(0)
            if spec == "%c":
                return ""  # CSS for the styled console: nothing to print
            if spec in ("%d", "%i") and arg.get("type") == "number":
                return str(int(arg.get("value") or 0)) if isinstance(arg.get("value"), (int, float)) else "NaN"
            return format_value(arg)

        pieces.append(_FORMAT.sub(substitute, str(first.get("value", ""))))
    pieces.extend(format_value(arg) for arg in rest)
    return " ".join(pieces)


def _frames(stack: Mapping[str, JsonValue] | None) -> list[Mapping[str, JsonValue]]:
    if not isinstance(stack, Mapping):
        return []
    frames = stack.get("callFrames")
    return [f for f in frames if isinstance(f, Mapping)] if isinstance(frames, list) else []


def _stack_lines(frames: Sequence[Mapping[str, JsonValue]]) -> tuple[str, ...]:
    lines = []
    for frame in frames[:STACK_MAX]:
        name = frame.get("functionName") or "(anonymous)"
        lines.append(f"{name} ({frame.get('url') or '?'}:{int(frame.get('lineNumber', 0)) + 1}:"
                     f"{int(frame.get('columnNumber', 0)) + 1})")
    return tuple(lines)


def _place(frames: Sequence[Mapping[str, JsonValue]]) -> tuple[str | None, int | None, int | None]:
    if not frames:
        return None, None, None
    top = frames[0]
    return (top.get("url") or None, int(top.get("lineNumber", 0)) + 1, int(top.get("columnNumber", 0)) + 1)


def entry_from_console_api(entry_id: int, target: str, params: Mapping[str, JsonValue],
                           source: str = "console") -> ConsoleEntry:
    kind = str(params.get("type") or "log")
    frames = _frames(params.get("stackTrace"))
    url, line, column = _place(frames)
    args = params.get("args")
    text = format_args(args if isinstance(args, list) else [])
    if kind == "assert" and not text:
        text = "Assertion failed"
    return ConsoleEntry(entry_id, target, _API_LEVELS.get(kind, "info"), kind, clip(text), source, url, line,
                        column, _stamp(params.get("timestamp")), _stack_lines(frames))


def entry_from_exception(entry_id: int, target: str, params: Mapping[str, JsonValue]) -> ConsoleEntry:
    details = params.get("exceptionDetails") or {}
    exception = details.get("exception") or {}
    # The description is the error's own "Name: message" line and its stack; the text
    # is "Uncaught" for a throw, "Uncaught (in promise)" for a rejection.
    description = str(exception.get("description") or exception.get("value") or details.get("text") or "")
    message = description.split("\n", 1)[0] if description else str(details.get("text") or "exception")
    frames = _frames(details.get("stackTrace"))
    url, line, column = _place(frames)
    if url is None and details.get("url"):
        url = details["url"]
        line, column = int(details.get("lineNumber", 0)) + 1, int(details.get("columnNumber", 0)) + 1
    return ConsoleEntry(entry_id, target, "error", "exception", clip(message), "exception", url, line, column,
                        _stamp(params.get("timestamp")), _stack_lines(frames))


def entry_from_log(entry_id: int, target: str, params: Mapping[str, JsonValue]) -> ConsoleEntry:
    entry = params.get("entry") or {}
    kind = str(entry.get("level") or "info")
    line = entry.get("lineNumber")
    return ConsoleEntry(entry_id, target, _LOG_LEVELS.get(kind, "info"), kind, clip(str(entry.get("text") or "")),
                        str(entry.get("source") or "other"), entry.get("url") or None,
                        int(line) + 1 if isinstance(line, int) else None, None,
                        _stamp(entry.get("timestamp")), _stack_lines(_frames(entry.get("stackTrace"))))


def _stamp(value: object) -> float | None:
    return round(float(value), 3) if isinstance(value, (int, float)) else None


def summary_line(entry: ConsoleEntry) -> str:
    """``#12 error boom (app.js:3)``: the id, the level, the text's first line, where."""
    text = entry.text.split("\n", 1)[0]
    line = f"#{entry.id} {entry.level:<5} {clip(text, SUMMARY_TEXT_MAX)}"
    if entry.source not in ("console", "exception"):
        line += f" [{entry.source}]"
    elif entry.kind not in ("log", "info", "error", "warning", "debug", "exception"):
        line += f" [{entry.kind}]"
    if entry.url:
        name = entry.url.rsplit("/", 1)[-1] or entry.url
        line += f" ({name}:{entry.line})" if entry.line else f" ({name})"
    return line
