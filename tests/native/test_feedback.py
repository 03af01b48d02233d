"""find_feedback's pure part over native hierarchies: dialogs, snackbars and field errors
by the ids and classes apps build them of, each once, and new against the screen the last
action acted on."""

from __future__ import annotations

from browx_actors.devices.nodes import NativeNode, Rect
from browx_actors.sessions.native.feedback import feedback_items
from browx_actors.sessions.native.refs import Hierarchy

BOX = Rect(0, 0, 100, 40)


def node(role: str, tag: str, path: tuple[int, ...], *, text: str = "", test_id: str | None = None,
         children: tuple[NativeNode, ...] = ()) -> NativeNode:
    return NativeNode(role, tag, text=text, test_id=test_id, bounds=BOX, path=path, children=children)


def screen(*children: NativeNode) -> Hierarchy:
    return Hierarchy(node("generic", "android.widget.FrameLayout", (), children=children))


def _email_error(text: str) -> NativeNode:
    return node("text", "android.widget.TextView", (0,), text=text, test_id="email-error")


SNACKBAR = node("generic", "com.google.android.material.snackbar.Snackbar$SnackbarLayout", (1,), children=(
    node("text", "android.widget.TextView", (1, 0), text="Saved to cart",
         test_id="com.example.shop:id/snackbar_text"),))
DIALOG = node("generic", "android.widget.FrameLayout", (2,), test_id="android:id/parentPanel", children=(
    node("text", "android.widget.TextView", (2, 0), text="Delete item?", test_id="android:id/alertTitle"),
    node("text", "android.widget.TextView", (2, 1), text="It cannot be undone.", test_id="android:id/message")))


def test_each_kind_is_found_once_with_the_text_inside() -> None:
    found = feedback_items(screen(_email_error("Enter an email"), SNACKBAR, DIALOG), None)
    assert [(kind, text) for kind, _, text, _ in found] == [
        ("invalid", "Enter an email"), ("toast", "Saved to cart"), ("dialog", "Delete item? It cannot be undone.")]
    assert all(new for *_, new in found), "no action yet: everything is new"


def test_new_is_against_the_screen_the_last_action_acted_on() -> None:
    before = screen(_email_error("Enter an email"), SNACKBAR)
    after = screen(_email_error("That email is taken"), SNACKBAR)
    assert [(kind, new) for kind, _, _, new in feedback_items(after, before)] == [("invalid", True), ("toast", False)]


def test_quiet_screens_and_empty_texts_say_nothing() -> None:
    assert feedback_items(screen(node("button", "android.widget.Button", (0,), text="Error log",
                                      test_id="open-log")), None) == []
    assert feedback_items(screen(_email_error("")), None) == []
