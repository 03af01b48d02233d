"""Refs that reach into frames: their spelling, and one snapshot stitched from many.

Every frame runs its own copy of the page agent, which mints ``eN`` refs for its own
document. A ref into a child frame is spelled ``f<K>e<N>``: ``f<K>`` is the frame's id
in its tab (``frames_list`` shows them; stable for the frame's life, never reused), and
``e<N>`` the ref its agent minted, as Playwright MCP spells them. A bare ``eN`` is the
top document's, so every ref an agent had before frames were reachable still works.

A snapshot with frames is the top document's snapshot with each child frame's
snapshot under the line of the ``<iframe>`` element that holds it, one level deeper,
its refs qualified with the frame's id; a frame whose element is not in the snapshot
(hidden, or beyond ``maxNodes``) is not shown either.

Pure: no I/O.
"""

from __future__ import annotations

import re

import attrs

__all__ = ["FrameRef", "parse_ref", "qualify", "qualify_refs", "stitch"]

_REF = re.compile(r"^\s*\[?\s*(?:ref\s*=\s*)?(?:(f\d+))?(e\d+)\s*\]?\s*$")
_LINE_REF = re.compile(r"\[ref=(e\d+)\]")


@attrs.frozen
class FrameRef:
    """``f3e12`` as (``f3``, ``e12``); ``frame`` is None for a top-document ref."""

    frame: str | None
    local: str


def parse_ref(value: object) -> FrameRef | None:
    """``e5``, ``f2e5`` (also ``ref=f2e5`` and ``[ref=f2e5]``); None for anything else."""
    if not isinstance(value, str):
        return None
    match = _REF.match(value)
    return None if match is None else FrameRef(match.group(1), match.group(2))


def qualify(frame: str | None, local: str) -> str:
    return local if frame is None else f"{frame}{local}"


def qualify_refs(text: str, frame: str | None) -> str:
    """Every ``[ref=eN]`` of a frame's snapshot as ``[ref=<frame>eN]``."""
    if frame is None:
        return text
    return _LINE_REF.sub(lambda m: f"[ref={frame}{m.group(1)}]", text)


def stitch(text: str, owner_ref: str, child: str) -> tuple[str, bool]:
    """``child`` (already qualified) under the line of ``owner_ref`` in ``text``, one
    level deeper; False (and ``text`` as it was) when no line carries that ref."""
    lines = text.split("\n")
    marker = f"[ref={owner_ref}]"
    for i, line in enumerate(lines):
        if marker in line:
            indent = " " * (len(line) - len(line.lstrip(" ")) + 2)
            nested = [indent + row for row in child.split("\n") if row]
            return "\n".join(lines[: i + 1] + nested + lines[i + 1:]), True
    return text, False
