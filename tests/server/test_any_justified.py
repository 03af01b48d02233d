"""Every ``Any`` left in the package says why where it stands.

mypy runs strict; what it cannot check is an ``Any``. So each statement that names
``Any`` carries a comment (on one of its lines, or on the lines right above it) saying
why the value's type is open there: JSON from the wire (named once, ``JsonValue`` and
``JsonObject`` in ``jsonsafe.py``), a table line whose argument class is chosen at run
time, a third-party library without types. An import of ``Any`` is not a use of it.
"""

from __future__ import annotations

import io
import tokenize
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "browx_actors"


def _unjustified(path: Path) -> list[int]:
    """Line numbers of the statements in ``path`` that name ``Any`` without a comment."""
    source = path.read_text()
    lines = source.splitlines()
    found: list[int] = []
    statement: list[tokenize.TokenInfo] = []
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        statement.append(token)
        if token.type not in (tokenize.NEWLINE, tokenize.ENDMARKER):
            continue
        names = [t for t in statement if t.type == tokenize.NAME]
        uses = [t for t in names if t.string == "Any"]
        is_import = bool(names) and names[0].string in ("from", "import")
        if uses and not is_import and not any(t.type == tokenize.COMMENT for t in statement):
            first = min(t.start[0] for t in statement if t.type not in (tokenize.NL, tokenize.INDENT,
                                                                         tokenize.DEDENT, tokenize.COMMENT))
            above = first - 2
            while above >= 0 and lines[above].strip().startswith("@"):  # a decorated definition
                above -= 1
            if above < 0 or not lines[above].strip().startswith("#"):
                found.append(uses[0].start[0])
        statement = []
    return found


def test_every_any_in_the_package_is_justified_where_it_stands() -> None:
    unjustified = {str(path.relative_to(PACKAGE.parent)): lines
                   for path in sorted(PACKAGE.rglob("*.py")) if (lines := _unjustified(path))}
    assert unjustified == {}, "name the type, or say why it is open in a comment on or above the line"


def test_the_check_sees_an_unjustified_any(tmp_path: Path) -> None:
    source = tmp_path / "sample.py"
    source.write_text(
        "from typing import Any\n"
        "\n"
        "def bare(x: Any) -> None: ...\n"
        "\n"
        "# JSON from the wire: its shape is the protocol's.\n"
        "def justified(x: Any) -> None: ...\n"
        "def inline(x: Any) -> None: ...  # forwarded as it is\n"
        "def spread(\n"
        "    x: Any,  # the caller's own\n"
        ") -> None: ...\n"
        "# Decorated: the comment stands above the decorator.\n"
        "@property\n"
        "def page(self) -> Any: ...\n"
    )
    assert _unjustified(source) == [3]
