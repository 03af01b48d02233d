"""Diagnostics: the call recorder, its JSONL store, and the search and report over it.

``redaction``, ``taxonomy``, ``records`` and ``query`` are pure; ``store`` does the file
I/O; ``actor`` is the Recorder, a permanent child of the runtime's root supervisor that
the dispatch path hands every call record to (when the diagnostics capability is on).
"""

from .actor import Flush, Recorder, RecorderInbox, RecorderStats, RecordNote, SessionClosed, Sweep

__all__ = ["Flush", "RecordNote", "Recorder", "RecorderInbox", "RecorderStats", "SessionClosed", "Sweep"]
