"""The session's dialog book (sessions/chromium/dialogs/book.py) without a browser: what an
open dialog interrupts, what the policies answer, what the next result lists. The
Playwright side is a plain asyncio loop on a thread here, as it is in the session."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import pytest
import trio
import trio.lowlevel

from browx_actors.errors import ToolError
from browx_actors.sessions.chromium.dialogs.book import DialogBook, OpenDialog, dialog_refusal, interrupted_reply


class FakeDialog:
    """Playwright's Dialog as the book uses it: type, message, default_value, page, and
    the two answers."""

    def __init__(self, page: object, type: str = "confirm", message: str = "Sure?", default: str = "") -> None:
        self.page, self.type, self.message, self.default_value = page, type, message, default
        self.answers: list[tuple[str, str | None]] = []

    async def accept(self, prompt_text: str | None = None) -> None:
        self.answers.append(("accept", prompt_text))

    async def dismiss(self) -> None:
        self.answers.append(("dismiss", None))


@pytest.fixture
def loop() -> Any:
    """An asyncio loop on its own thread, like the Playwright thread."""
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()
    yield loop
    loop.call_soon_threadsafe(loop.stop)
    thread.join(5)
    loop.close()


def _on_loop(loop: Any, fn: Any, *args: Any) -> Any:
    async def call() -> Any:
        return fn(*args)
    return asyncio.run_coroutine_threadsafe(call(), loop).result(5)


def _drain(loop: Any, book: DialogBook) -> None:
    """Wait until the answers the book started on the loop are done."""
    async def drain() -> None:
        await asyncio.gather(*list(book._answers))
    asyncio.run_coroutine_threadsafe(drain(), loop).result(5)


async def test_a_dialog_interrupts_the_innermost_scope_of_its_page(loop: Any) -> None:
    book, page, other = DialogBook(), object(), object()
    book.bind()
    dialog = FakeDialog(page)
    with book.interruptible(page) as outer:
        with book.interruptible(other) as elsewhere, book.interruptible(page) as inner:
            await trio.to_thread.run_sync(_on_loop, loop, book.on_dialog, dialog)
            await trio.sleep_forever()
        assert inner.cancelled_caught and not elsewhere.cancelled_caught
        await trio.lowlevel.checkpoint()  # the outer scope goes on: the inner one answered for the call
    assert not outer.cancelled_caught
    assert book.open_on(page) is not None and book.open_on(page).describe() == {
        "type": "confirm", "message": "Sure?", "defaultValue": ""}
    # While it is open a new scope is cancelled at once, unless it is the one answering.
    with book.interruptible(page) as late:
        await trio.sleep_forever()
    assert late.cancelled_caught
    with book.interruptible(page, open_already=False) as answering:
        answered = await trio.to_thread.run_sync(
            lambda: asyncio.run_coroutine_threadsafe(book.answer(page, True, "typed"), loop).result(5))
    assert not answering.cancelled_caught
    assert answered is not None and dialog.answers == [("accept", "typed")]
    assert book.open_on(page) is None
    assert book.take_answered() == []  # asked, not auto-answered


async def test_policies_answer_at_once_and_are_listed_once(loop: Any) -> None:
    book, page = DialogBook(), object()
    book.bind()
    book.policy = "accept"
    saved = FakeDialog(page, "alert", "Saved")
    with book.interruptible(page) as scope:
        await trio.to_thread.run_sync(_on_loop, loop, book.on_dialog, saved)
        await trio.to_thread.run_sync(_drain, loop, book)
    assert not scope.cancelled_caught and book.open_on(page) is None
    book.policy = "dismiss"
    asked = FakeDialog(page, "prompt", "Name?", "old")
    await trio.to_thread.run_sync(_on_loop, loop, book.on_dialog, asked)
    await trio.to_thread.run_sync(_drain, loop, book)
    assert saved.answers == [("accept", None)] and asked.answers == [("dismiss", None)]
    assert book.take_answered() == [
        {"type": "alert", "message": "Saved", "defaultValue": "", "answer": "accepted"},
        {"type": "prompt", "message": "Name?", "defaultValue": "old", "answer": "dismissed"},
    ]
    assert book.take_answered() == []


def test_the_refusal_and_the_interrupted_answer_name_the_way_out() -> None:
    page = object()
    pending = OpenDialog("prompt", "Name?", "old", page, FakeDialog(page))
    refusal = dialog_refusal(pending, 2, "snapshot")
    assert isinstance(refusal, ToolError) and refusal.code == "dialog-open"
    assert "handle_dialog" in refusal.message and "promptText" in refusal.message and "tab 2" in refusal.message
    assert refusal.details["dialog"] == {"type": "prompt", "message": "Name?", "defaultValue": "old"}
    reply = interrupted_reply(pending, "eval_js", "http://h/")
    envelope = reply.envelope()
    assert envelope["dialog"]["type"] == "prompt" and envelope["settled"] == {"by": "dialog"}
    assert "handle_dialog" in envelope["warnings"][0]


async def test_every_task_waiting_on_the_page_is_interrupted(loop: Any) -> None:
    """A wait that runs beside the mailbox (wait_for) is its own task: it is cut short
    too, not only the call registered last."""
    book, page = DialogBook(), object()
    book.bind()
    caught: list[str] = []

    async def waits(name: str, task_status: Any = trio.TASK_STATUS_IGNORED) -> None:
        with book.interruptible(page) as scope:
            task_status.started()
            await trio.sleep_forever()
        if scope.cancelled_caught:
            caught.append(name)

    async with trio.open_nursery() as nursery:
        await nursery.start(waits, "wait_for")
        await nursery.start(waits, "snapshot")
        await trio.to_thread.run_sync(_on_loop, loop, book.on_dialog, FakeDialog(page))
    assert sorted(caught) == ["snapshot", "wait_for"]
