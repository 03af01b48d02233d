"""What counts as an editor holding the text a fill sent (pure: input/paste.py)."""

from __future__ import annotations

from browx_actors.sessions.chromium.input.commands import select_all
from browx_actors.sessions.chromium.input.paste import holds, pasting, shown_lines

CODE = "function add(a, b) {\n  return a + b;\n}"


def test_the_lines_sent_must_show_in_order_beside_a_gutter() -> None:
    drawn = "1\n2\n3\nfunction\u00a0add(a,\u00a0b)\u00a0{\n\u00a0\u00a0return\u00a0a\u00a0+\u00a0b;\n}"
    assert holds(CODE, drawn)
    # Monaco's rewrite of typed lines: indented twice, the brace doubled.
    assert not holds(CODE, "function add(a, b) {\n      return a + b;\n      }\n}")
    assert not holds(CODE, "function add(a, b) {\n}")
    assert not holds("let x = 2;", "1\nconst locked = true;")


def test_blank_lines_tabs_and_long_documents() -> None:
    # Rich text draws blank lines between paragraphs; a tab may be drawn as spaces.
    assert holds("Hello\nWorld", "Hello\n\nWorld\n")
    assert holds("if (x) {\n\treturn x;\n}", "if (x) {\n    return x;\n}")
    assert not holds("if (x) {\n\treturn x;\n}", "if (x) {\nreturn x;\n}")
    # A view that draws only what is in view shows the value's last lines.
    long = "\n".join(f"line {i}" for i in range(100))
    assert holds(long, "\n".join(f"{i + 1}" for i in range(90, 100)) + "\n" + "\n".join(long.split("\n")[90:]))
    assert not holds(long, "line 1\nline 2")
    # Emptied: nothing but the gutter's number.
    assert holds("", "1\n")
    assert not holds("", "1\nold text")
    assert shown_lines("a\u00a0 \n\n b") == ["a", " b"]


def test_a_paste_selects_first_and_submits_after() -> None:
    paste = pasting(CODE, submit=True)
    assert paste.keys == select_all() and paste.text == CODE
    assert [params["key"] for _, params in paste.after] == ["Enter", "Enter"]
    downs = [params for _, params in select_all() if params["type"] == "rawKeyDown"]
    assert [(p["key"], p["modifiers"]) for p in downs] == [("Control", 2), ("a", 2)]
