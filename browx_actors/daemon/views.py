"""The daemon's views: when to ack each frame, what it knows of each stream, frames on disk.

Pure apart from the file writes: an :data:`AckPolicy` decides per frame how late to
ack it (or never), :class:`ViewTrack` counts what one session's stream delivered and
notes each change of width (a new level), and :func:`write_frame` puts a frame on disk
whole (written, then renamed) in a folder per session that a session name cannot
climb out of.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable
from pathlib import Path
from urllib.parse import quote

import attrs

from ..streams.framing import Reassembler, ReceivedFrame

__all__ = ["AckPolicy", "ViewTrack", "ack_after", "frame_folder", "never_ack", "write_frame"]

#: Seconds to wait before acking a frame, or None never to ack it.
AckPolicy = Callable[[ReceivedFrame], float | None]


def ack_after(seconds: float) -> AckPolicy:
    """Ack every frame ``seconds`` after it was handed on (0: at once)."""
    return lambda frame: seconds


def never_ack(frame: ReceivedFrame) -> float | None:
    return None


@attrs.define
class ViewTrack:
    """What the daemon knows of one session's stream, and its delivered-fps meter."""

    session: str
    since: float  # start of the current fps period
    requested_fps: object = None
    reassembler: Reassembler = attrs.Factory(Reassembler)
    size: tuple[int, int] | None = None
    frames: int = 0
    period_frames: int = 0

    def delivered(self, frame: ReceivedFrame) -> str | None:
        """Count a frame; a note when it is the first or its width changed (a new level)."""
        self.frames += 1
        self.period_frames += 1
        previous, self.size = self.size, (frame.width, frame.height)
        if previous is None:
            return f"first frame {frame.width}x{frame.height}"
        if previous[0] != frame.width:
            return f"level change {previous[0]}x{previous[1]} -> {frame.width}x{frame.height}"
        return None

    def fps(self, now: float) -> float:
        """Frames per second delivered since the last call (or the start); starts the next period."""
        elapsed, frames = now - self.since, self.period_frames
        self.since, self.period_frames = now, 0
        return frames / elapsed if elapsed > 0 else 0.0


def frame_folder(frames_dir: Path, session: str) -> Path:
    """One folder per session; the name cannot climb out of ``frames_dir``."""
    name = quote(session, safe="", errors="replace").replace(".", "%2E")
    if len(name) > 120:
        name = f"{name[:80]}-{hashlib.sha256(session.encode('utf-8', 'replace')).hexdigest()[:16]}"
    return frames_dir / name


def write_frame(folder: Path, frame: ReceivedFrame, numbered: bool = False) -> Path:
    """Write ``latest.jpg`` (and ``<seq>.jpg``) atomically; the path of ``latest.jpg``."""
    folder.mkdir(parents=True, exist_ok=True)
    targets = [folder / "latest.jpg"] + ([folder / f"{frame.seq:08d}.jpg"] if numbered else [])
    for target in targets:
        partial = target.with_name(f".{target.name}.partial")
        partial.write_bytes(frame.jpeg)
        os.replace(partial, target)
    return targets[0]
