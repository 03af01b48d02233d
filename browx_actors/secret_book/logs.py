"""The server's log lines, masked like a result.

A log line can hold what a tool call held: the traceback of a call that failed inside
Playwright quotes the selector it was given, and an agent may have typed a raw value
there. The log is the process's, so it is masked with the secrets of every session of
every :class:`~browx_actors.secret_book.SecretBook` in the process
(:func:`~browx_actors.secret_book.every_secret`), in every spelling, and after the line
is whole: message, arguments and traceback together. ``browx-actors serve`` masks its
stderr handler so (``__main__.py``); a program embedding the runtime that logs
somewhere of its own passes its logger to :func:`mask_handlers` the same way.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from .masking import Secrets, masker, pairs_of

__all__ = ["MaskingFormatter", "mask_handlers"]


class MaskingFormatter(logging.Formatter):
    """Formats with ``inner``, then masks the whole text."""

    def __init__(self, inner: logging.Formatter, secrets: Callable[[], Secrets]) -> None:
        super().__init__()
        self.inner = inner
        self.secrets = secrets

    def format(self, record: logging.LogRecord) -> str:
        try:
            text = self.inner.format(record)
            compiled = masker(pairs_of(self.secrets()))
            return text if compiled is None else compiled.text(text)
        except Exception:
            # A formatter that raises makes logging print the record's raw message and
            # arguments to stderr; a line that cannot be masked is withheld instead.
            return f"{record.levelname} {record.name}: a log line was withheld (it could not be formatted and masked)"


def mask_handlers(logger: logging.Logger, secrets: Callable[[], Secrets]) -> None:
    """Every handler of ``logger`` formats through a :class:`MaskingFormatter` (once)."""
    for handler in logger.handlers:
        inner = handler.formatter or logging.Formatter()
        if not isinstance(inner, MaskingFormatter):
            handler.setFormatter(MaskingFormatter(inner, secrets))
