"""A tiny MCP server over stdio for tests/server/test_mcp_stdio.py, run as a real subprocess.

Its dispatch stands in for the real one (``server/dispatch.py``): it answers every name
it is given (unknown ones included) and does no schema validation, so the tests can tell what the protocol layer
does on its own from what the dispatch decides.
"""

from __future__ import annotations

import logging
import os
import struct
import sys
import zlib
from typing import Any

import trio

from browx_actors.server.mcp_stdio import ToolOutput, ToolSpec, serve_stdio


def _png_1x1() -> bytes:
    """A valid 1x1 opaque red PNG, built rather than pasted so its bytes are checkable."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    header = struct.pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0)
    pixels = zlib.compress(b"\x00\xff\x00\x00")
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", pixels) + chunk(b"IEND", b"")


PNG = _png_1x1()
SLOW_SECONDS = 2.0

TOOLS = (
    ToolSpec(
        name="echo",
        description="Answer with the arguments it was given.",
        input_schema={
            "type": "object",
            "properties": {"text": {"type": "string"}},
            "required": ["text"],
            "additionalProperties": True,
        },
    ),
    ToolSpec(
        name="fail",
        description="Always refuse, naming the field, as a dispatch does for a bad argument.",
        input_schema={"type": "object", "properties": {}},
    ),
    ToolSpec(
        name="image",
        description="Answer with a 1x1 PNG.",
        input_schema={"type": "object", "properties": {}},
    ),
    ToolSpec(
        name="slow",
        description=f"Sleep `seconds` (default {SLOW_SECONDS}), then answer.",
        input_schema={"type": "object", "properties": {"seconds": {"type": "number"}}},
    ),
    ToolSpec(
        name="stray",
        description="Write junk to stdout the way a careless handler or child process would.",
        input_schema={"type": "object", "properties": {}},
    ),
    ToolSpec(
        name="boom",
        description="Raise inside the dispatch.",
        input_schema={"type": "object", "properties": {}},
    ),
    ToolSpec(
        name="surrogate",
        description="Answer with text holding a lone surrogate, as a page's title can.",
        input_schema={"type": "object", "properties": {}},
    ),
    ToolSpec(
        name="unwritable",
        description="Answer with a value that is not JSON data at all.",
        input_schema={"type": "object", "properties": {}},
    ),
)


async def dispatch(name: str, arguments: dict[str, Any]) -> ToolOutput:
    """Answer per tool; anything else is refused here, as the real dispatch would."""
    match name:
        case "echo":
            return ToolOutput({"ok": True, "args": arguments})
        case "fail":
            return ToolOutput({"ok": False, "code": "bad-arg", "error": "field 'x' is required", "field": "x"})
        case "image":
            return ToolOutput({"ok": True, "width": 1, "height": 1}, images=(("image/png", PNG),))
        case "slow":
            seconds = float(arguments.get("seconds", SLOW_SECONDS))
            await trio.sleep(seconds)
            return ToolOutput({"ok": True, "slept": seconds})
        case "stray":
            print("stray print to stdout", flush=True)
            os.write(1, b"stray raw write to fd 1\n")
            return ToolOutput({"ok": True})
        case "boom":
            raise RuntimeError("dispatch bug")
        case "surrogate":
            return ToolOutput({"ok": True, "title": "before\ud800after"})
        case "unwritable":
            return ToolOutput({"ok": True, "value": object()})
        case _:
            return ToolOutput({"ok": False, "code": "unknown-tool", "error": f"no tool named {name!r}"})


def main() -> None:
    logging.basicConfig(stream=sys.stderr, level=logging.WARNING)
    trio.run(serve_stdio, TOOLS, dispatch)


if __name__ == "__main__":
    main()
