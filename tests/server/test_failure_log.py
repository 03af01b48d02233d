"""A failure logs one bounded line (``server/failure_log.py``), through the real dispatch.

Before, a handler bug was logged with ``log.exception``: its whole traceback, chain and
all. A ``RecursionError`` raised while a thousand chained ``OSError`` each quoted a
4,000-character path wrote 6.6 MB to stderr, and a message quoting what a call was given
made single lines of 400 KB. Now the ERROR line is the exception's type and clipped
message, within 2,000 characters; the traceback is logged at DEBUG only, and clipped
too; and a registered secret cut by a clip is still masked in the log.
"""

from __future__ import annotations

import io
import logging
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from browx_actors.config import DEFAULT_CAPABILITIES
from browx_actors.secret_book import SecretBook
from browx_actors.secret_book.logs import mask_handlers
from browx_actors.server.catalog import Catalog
from browx_actors.server.dispatch import Dispatcher
from browx_actors.server.failure_log import (
    LINE_LIMIT,
    TRACEBACK_LIMIT,
    clipped,
    clipped_head,
    failure_line,
    failure_traceback,
)
from browx_actors.tools import Gates, NoArgs, Table, runs, runtime_tool
from browx_actors.tools.contract import READS

SECRET = "hunter2-correct-horse"
BUGGY = runtime_tool("buggy", NoArgs, title="Buggy", capability="read", hints=READS, summary="Fails as a bug.")
#: The prefix __main__ gives every stderr line.
FORMAT = "%(asctime)s %(name)s %(levelname)s %(message)s"


def _deep_recursion() -> RecursionError:
    """What making 2,000 missing folders raised: a RecursionError over a long chain of
    FileNotFoundErrors, each naming the whole path."""
    with tempfile.TemporaryDirectory() as root:
        try:
            Path(root, *(["a"] * 2000), "x.png").parent.mkdir(parents=True)
        except RecursionError as err:
            return err
    raise AssertionError("mkdir did not recurse")


@pytest.fixture
def stderr() -> Iterator[tuple[io.StringIO, SecretBook]]:
    """The dispatch's log as the server writes it to stderr: __main__'s format, masked."""
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setFormatter(logging.Formatter(FORMAT))
    logger = logging.getLogger("browx_actors.dispatch")
    book = SecretBook()
    book.register("default", "PASSWORD", SECRET)
    level = logger.level
    logger.setLevel(logging.INFO)
    logger.addHandler(handler)
    mask_handlers(logger, book.masks)
    yield stream, book
    logger.removeHandler(handler)
    logger.setLevel(level)


def _dispatcher(raised: BaseException, book: SecretBook) -> Dispatcher:
    async def buggy(context: object, args: NoArgs) -> dict[str, object]:
        raise raised

    catalog = Catalog.of([BUGGY], Table.of("runtime", [runs(BUGGY, buggy)]), {})
    return Dispatcher(catalog, context=None, gates=Gates(DEFAULT_CAPABILITIES, DEFAULT_CAPABILITIES),  # type: ignore[arg-type]
                      secrets=book)


@pytest.mark.parametrize("raised", [
    _deep_recursion(),
    ValueError("x" * 1936 + SECRET + "\n" + "quoted argument " * 25_000),
    KeyError("short"),
], ids=["deep-chain", "long-message", "short"])
async def test_a_bug_is_one_bounded_line_on_stderr(stderr: tuple[io.StringIO, SecretBook],
                                                   raised: BaseException) -> None:
    stream, book = stderr
    answer = (await _dispatcher(raised, book).dispatch("buggy", {})).envelope
    assert answer["code"] == "internal" and len(answer["error"]) <= LINE_LIMIT
    assert answer["error"].startswith(type(raised).__name__ + ":")
    text = stream.getvalue()
    lines = text.splitlines()
    assert len(lines) == 1, text[:500]
    (line,) = lines
    assert f"ERROR tool buggy failed: {type(raised).__name__}: " in line
    # Within the limit after the logger's prefix (masking may make a cut secret's head an alias).
    assert len(line.split(" ERROR ", 1)[1]) <= LINE_LIMIT + len("<PASSWORD>")
    assert "hunt" not in line and SECRET not in answer["error"]  # a secret cut at the clip is masked


async def test_the_traceback_is_logged_at_debug_only_and_clipped(stderr: tuple[io.StringIO, SecretBook]) -> None:
    stream, book = stderr
    logging.getLogger("browx_actors.dispatch").setLevel(logging.DEBUG)
    await _dispatcher(_deep_recursion(), book).dispatch("buggy", {})
    error, debug = stream.getvalue().split("\n", 1)
    assert " ERROR tool buggy failed: RecursionError: maximum recursion depth exceeded" in error
    assert " DEBUG tool buggy failed, traceback:\n" in debug
    assert len(debug) <= TRACEBACK_LIMIT + 200
    # What is kept is the end: the exception that failed the call, under its last frames.
    assert debug.rstrip().endswith("RecursionError: maximum recursion depth exceeded while calling a Python object")
    assert "(earlier exceptions left out)" in debug


def test_clipping_keeps_a_head_or_a_tail_and_says_how_long_it_was() -> None:
    assert clipped("short", 40) == "short"
    cut = clipped("a" * 5000, 100)
    assert len(cut) == 100 and cut.startswith("a" * 60) and cut.endswith("\u2026 [5,000 characters in all]")
    tail = clipped_head("a" * 4000 + "END", 100)
    assert len(tail) == 100 and tail.startswith("[4,003 characters in all, the first ones left out] \u2026")
    assert tail.endswith("aEND")
    assert failure_line(ValueError("one\ntwo\\three")) == "ValueError: one\\ntwo\\\\three"
    assert failure_line(ValueError()) == "ValueError"
    assert len(failure_line(ValueError("\n" * 10_000))) <= LINE_LIMIT


def test_a_chain_is_formatted_like_python_does_when_it_is_short() -> None:
    import traceback

    def fail() -> None:
        try:
            raise KeyError("a")
        except KeyError as err:
            raise ValueError("b") from err

    with pytest.raises(ValueError) as caught:
        fail()
    assert failure_traceback(caught.value) == "".join(traceback.format_exception(caught.value)).rstrip("\n")
