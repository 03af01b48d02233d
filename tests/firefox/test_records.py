"""The console and network books of a firefox session (browx_actors/sessions/firefox/records.py)."""

from __future__ import annotations

from browx_actors.sessions.firefox.records.books import KEEP, ConsoleBook, NetworkBook


def log_entry(text: str, level: str = "info", kind: str = "console") -> dict:
    return {"level": level, "text": text, "type": kind,
            "stackTrace": {"callFrames": [{"url": "http://x/a.js", "lineNumber": 7}]}}


def test_console_entries_keep_level_kind_and_where() -> None:
    book = ConsoleBook()
    entry = book.add("ctx", log_entry("boom", "error", "javascript"))
    # An uncaught error reads as chromium's exception entry; BiDi's 0-based line is shown 1-based.
    assert (entry.id, entry.level, entry.kind, entry.text, entry.url, entry.line) == (
        1, "error", "exception", "boom", "http://x/a.js", 8)
    assert book.add("ctx", {"level": "warn", "text": "careful"}).level == "warn"
    assert book.add("ctx", {"level": "trace", "text": "?"}).level == "info"  # an unknown level reads as info
    assert book.last == 3


def test_console_since_filters_by_id_context_and_errors() -> None:
    book = ConsoleBook()
    book.add("a", log_entry("one"))
    book.add("b", log_entry("two", "error"))
    book.add("a", log_entry("three", "error"))
    assert [e.text for e in book.since(1)] == ["two", "three"]
    assert [e.text for e in book.since(0, contexts={"a"})] == ["one", "three"]
    assert [e.text for e in book.since(0, errors_only=True)] == ["two", "three"]


def test_console_book_is_bounded_and_ids_keep_growing() -> None:
    book = ConsoleBook()
    for i in range(KEEP + 5):
        book.add("a", log_entry(str(i)))
    kept = book.since(0)
    assert len(kept) == KEEP
    assert kept[0].id == 6 and book.last == KEEP + 5
    assert [e.text for e in book.since(KEEP + 3)] == [str(KEEP + 3), str(KEEP + 4)]


def started(request: str, url: str = "http://x/") -> dict:
    return {"request": {"request": request, "url": url, "method": "GET"}}


def test_a_request_finishes_with_its_status_and_type() -> None:
    book = NetworkBook()
    book.started("a", started("r1"))
    assert book.pending({"a"}, 0) == 1
    book.finished({"request": {"request": "r1"}, "response": {"status": 200, "mimeType": "text/html"}})
    (request,) = book.requests
    assert (request.status, request.mime, request.done) == (200, "text/html", True)
    assert book.pending({"a"}, 0) == 0


def test_a_failed_request_keeps_its_error() -> None:
    book = NetworkBook()
    book.started("a", started("r1"))
    book.failed({"request": {"request": "r1"}, "errorText": "NS_ERROR_CONNECTION_REFUSED"})
    assert book.requests[0].failure == "NS_ERROR_CONNECTION_REFUSED" and book.requests[0].done


def test_a_redirect_is_a_new_hop_of_the_same_request() -> None:
    book = NetworkBook()
    book.started("a", started("r1", "http://x/old"))
    book.started("a", {**started("r1", "http://x/new"), "redirectCount": 1})
    assert [(r.url, r.done) for r in book.requests] == [("http://x/old", True), ("http://x/new", False)]
    book.finished({"request": {"request": "r1"}, "response": {"status": 200}})
    assert book.requests[1].status == 200 and book.pending({"a"}, 0) == 0


def test_pending_counts_only_the_contexts_and_the_requests_after_since() -> None:
    book = NetworkBook()
    book.started("a", started("r1"))
    book.started("b", started("r2"))
    book.started("a", started("r3"))
    assert book.pending({"a"}, 0) == 2
    assert book.pending({"a"}, 1) == 1
    assert book.pending({"a", "b"}, 0) == 3


def test_answers_for_unknown_requests_are_ignored() -> None:
    book = NetworkBook()
    book.finished({"request": {"request": "ghost"}, "response": {"status": 200}})
    book.failed({"request": {"request": "ghost"}})
    assert list(book.requests) == []
