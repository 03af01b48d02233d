"""How a call that failed as a bug is told: one bounded line, the traceback only at DEBUG.

A handler bug answers ``internal`` and is logged, and both must stay readable whatever
the exception holds. A message can be as long as what the call was given (a Playwright
error quotes a 400 KB script or selector), and a traceback as long as the failure was
deep: a ``RecursionError`` raised while handling a chain of a thousand ``OSError`` each
naming a 4,000-character path printed 6.6 MB to stderr. So:

- the ``internal`` envelope and the ERROR line say the exception's type and its
  message, newlines written as ``\\n``, clipped to :data:`LINE_LIMIT` characters in all
  (:func:`failure_line`);
- the traceback is logged at DEBUG only, clipped to :data:`TRACEBACK_LIMIT` characters,
  formatted only as far as that (:func:`failure_traceback`).

Text is clipped with an ellipsis right after what is kept: the log's masking (and the
envelope's) masks a registered secret cut there by its head, as it does in text a page
clipped, so a clip never leaves part of a secret readable.

Pure but for :func:`log_failure`, which writes the two lines.
"""

from __future__ import annotations

import logging
import traceback

__all__ = ["LINE_LIMIT", "TRACEBACK_LIMIT", "clipped", "clipped_head", "failure_line", "failure_traceback",
           "log_failure"]

#: The longest message a failure's ERROR line (or its ``internal`` envelope) carries.
LINE_LIMIT = 2_000
#: The longest traceback logged at DEBUG.
TRACEBACK_LIMIT = 20_000
#: Frames kept of each exception's stack in the DEBUG traceback, the innermost ones.
_FRAMES = 40
#: Exceptions of a chain (``raise ... from``, or raised while handling another) shown.
_CHAINED = 5
_CAUSE = "\nThe above exception was the direct cause of the following exception:\n\n"
_CONTEXT = "\nDuring handling of the above exception, another exception occurred:\n\n"
#: What marks a cut (the masking's ellipsis, see the module notes).
_ELLIPSIS = "\u2026"


def clipped(text: str, limit: int, *, total: int | None = None) -> str:
    """``text`` if it fits in ``limit`` characters, else its head, an ellipsis and how
    long it was (``total`` when ``text`` is itself the head of something longer), all
    within ``limit`` (for any ``limit`` of 40 or more)."""
    total = len(text) if total is None else total
    if len(text) <= limit and total <= len(text):
        return text
    tail = f"{_ELLIPSIS} [{total:,} characters in all]"
    return text[:max(0, limit - len(tail))] + tail


def _message(exc: BaseException) -> str:
    try:
        return str(exc)
    except Exception:  # an exception whose own __str__ fails
        return "<the message could not be read>"


def failure_line(exc: BaseException, limit: int = LINE_LIMIT) -> str:
    """``Type: message`` on one line (newlines written ``\\n``), at most ``limit`` characters."""
    message = _message(exc)
    name = type(exc).__name__
    if not message:
        return clipped(name, limit)
    # Cut before escaping, so a message of megabytes costs no more than its head.
    head = message[:limit].replace("\\", "\\\\").replace("\r", "\\r").replace("\n", "\\n")
    return clipped(f"{name}: {head}", limit, total=len(name) + 2 + len(message))


def failure_traceback(exc: BaseException, limit: int = TRACEBACK_LIMIT) -> str:
    """The traceback of ``exc`` and of the last few exceptions it was raised from, each
    stack to its innermost frames, at most ``limit`` characters: the end is kept, where
    the exception that failed the call is."""
    chain: list[tuple[BaseException, str]] = []  # newest first, each with what links it to the one before
    seen: set[int] = set()
    current: BaseException | None = exc
    link = ""
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        if len(chain) == _CHAINED:
            chain.append((current, "(earlier exceptions left out)\n\n"))
            break
        chain.append((current, link))
        if current.__cause__ is not None:
            current, link = current.__cause__, _CAUSE
        elif current.__context__ is not None and not current.__suppress_context__:
            current, link = current.__context__, _CONTEXT
        else:
            current = None
    pieces: list[str] = []
    for index, (raised, _) in enumerate(reversed(chain)):
        if index == 0 and len(chain) > _CHAINED:
            pieces.append(chain[-1][1])
            continue
        pieces.extend(_one(raised))
        linked = chain[len(chain) - 1 - index][1]
        if linked:
            pieces.append(linked)
    return clipped_head("".join(pieces).rstrip("\n"), limit)


def _one(raised: BaseException) -> list[str]:
    """One exception's traceback alone (``TracebackException`` would first build one for
    every exception of its chain, thousands for the chain in the module notes)."""
    stack = traceback.StackSummary.extract(traceback.walk_tb(raised.__traceback__), limit=-_FRAMES,
                                           lookup_lines=False)
    head = ["Traceback (most recent call last):\n"] if stack else []
    kind = type(raised)
    name = kind.__qualname__
    if kind.__module__ not in ("builtins", "__main__"):
        name = f"{kind.__module__}.{name}"
    message = _message(raised)
    # Not traceback.format_exception_only: it too builds the whole chain first.
    return [*head, *stack.format(), f"{name}: {message}\n" if message else f"{name}\n"]


def clipped_head(text: str, limit: int) -> str:
    """``text`` if it fits in ``limit`` characters, else how long it was, an ellipsis and
    its tail (all within ``limit``, for any ``limit`` of 40 or more)."""
    if len(text) <= limit:
        return text
    head = f"[{len(text):,} characters in all, the first ones left out] {_ELLIPSIS}"
    return head + text[len(text) - max(0, limit - len(head)):]


def log_failure(log: logging.Logger, what: str, exc: BaseException) -> None:
    """Log that ``what`` failed with ``exc``: one ERROR line of at most :data:`LINE_LIMIT`
    characters after the logger's own prefix, and the clipped traceback at DEBUG."""
    subject = clipped(what, 200)
    log.error("%s failed: %s", subject, failure_line(exc, LINE_LIMIT - len(subject) - len(" failed: ")))
    if log.isEnabledFor(logging.DEBUG):
        log.debug("%s failed, traceback:\n%s", subject, failure_traceback(exc))
