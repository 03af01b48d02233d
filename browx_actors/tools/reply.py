"""What a tool answers: the fields of its envelope, its warnings and its images.

A handler builds one :class:`Reply` and hands it (or the helpers it calls) what they
have to add: a warning, an image. The dispatch turns it into the envelope
``{"ok": true, **fields, "warnings": [...]}`` (``warnings`` only when there is one) and
the images that ride beside it over MCP. A failure is not a Reply: it is a raised
:class:`~browx_actors.errors.ToolError`.
"""

from __future__ import annotations

import attrs

from ..jsonsafe import JsonObject, JsonValue

__all__ = ["Image", "Reply", "ToolOutput", "listed"]


@attrs.frozen
class Image:
    mime: str
    data: bytes = attrs.field(repr=lambda data: f"<{len(data)} bytes>")


@attrs.define
class Reply:
    """``fields`` go into the envelope as they are, and ``warnings`` after them when
    there is at least one: an empty list says nothing an agent should pay to read."""

    fields: JsonObject = attrs.field(factory=dict)
    warnings: list[str] | None = None
    images: list[Image] = attrs.field(factory=list)

    @classmethod
    def of(cls, *, warnings: list[str] | None = None, **fields: JsonValue) -> Reply:
        return cls(fields, None if warnings is None else list(warnings))

    def warn(self, text: str) -> None:
        if self.warnings is None:
            self.warnings = []
        self.warnings.append(text)

    def attach(self, mime: str, data: bytes) -> None:
        self.images.append(Image(mime, data))

    def __getitem__(self, key: str) -> JsonValue:
        return self.fields[key]

    def __setitem__(self, key: str, value: JsonValue) -> None:
        self.fields[key] = value

    def envelope(self) -> JsonObject:
        out = {"ok": True, **self.fields}
        if self.warnings:
            out["warnings"] = list(self.warnings)
        return out


def listed(matches: list[JsonValue], count: int) -> JsonObject:
    """A search's answer on every engine (find, text_search): the matches listed, how
    many there were, and ``truncated`` only when not all are listed."""
    out: JsonObject = {"matches": matches, "count": count}
    if count > len(matches):
        out["truncated"] = True
    return out


@attrs.frozen
class ToolOutput:
    """What the dispatch answers for one call: the envelope plus any images, as the
    MCP layer sends them (``(mime_type, raw bytes)`` pairs after the text)."""

    envelope: JsonObject
    images: tuple[tuple[str, bytes], ...] = ()
    #: The envelope's compact JSON text, when the dispatch's egress already wrote it
    #: (``jsonsafe.compact_json``); None means write it from ``envelope``.
    text: str | None = attrs.field(default=None, repr=False)

    @classmethod
    def of(cls, tool: str, result: object) -> ToolOutput:
        """What a handler answered, as the output of a call: a :class:`Reply` or an
        envelope dict (``{"ok": bool, ...}``); anything else is a bug in ``tool``."""
        if isinstance(result, Reply):
            return cls(result.envelope(), tuple((image.mime, image.data) for image in result.images))
        if isinstance(result, dict) and isinstance(result.get("ok"), bool):
            return cls(dict(result))
        raise TypeError(f"{tool} answered {type(result).__name__}, not a Reply")
