"""Diagnostics: the call recorder, its JSONL store, and the search and report over it.

- :mod:`.actor`: the Recorder, a permanent child of the runtime's root supervisor that
  the dispatch path hands every call record to (when the diagnostics capability is on);
- :mod:`.store`: the JSONL store on disk (paths, appends, discards, retention, reads);
- :mod:`.records`: the record shapes, built by pure functions;
- :mod:`.redaction`: the structural redaction of arguments before they are stored;
- :mod:`.taxonomy`: what an eval was for, and the failure kind of an error code;
- :mod:`.query`: ``diagnostics_search`` and ``diagnostics_report`` over records read;
- :mod:`.handlers`: the diagnostics tools' handlers.
"""

from .actor import Flush, Recorder, RecorderInbox, RecorderStats, RecordNote, SessionClosed, Sweep

__all__ = ["Flush", "RecordNote", "Recorder", "RecorderInbox", "RecorderStats", "SessionClosed", "Sweep"]
