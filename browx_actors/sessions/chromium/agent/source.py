"""The page agent's script, joined at load from one module per concern.

The agent is evaluated as one script, so that an action stays one round trip (``aim``
marks the page, finds the target and readies it in a single evaluate), and it is one
closure, so that its refs and captured DOM methods are out of the page's reach. Its
source is split by concern into ``agent/*.js`` only so that a reader can hold one
concern at a time: each file is a fragment of that one closure, and
:func:`load_agent_source` wraps them, in :data:`MODULES` order, as
``(() => { 'use strict'; ... })();``. Every module therefore sees the others'
top-level constants and functions exactly as when they were one file.

A module starts with its header, the leading lines that begin with ``//`` in column 0:
what it holds and what it relies on. Under it is the closure's code, indented as the
closure's body. The headers are kept in the joined script, so the module boundaries
show when the agent is read in DevTools.

``python -m browx_actors.sessions.chromium.agent.source --compare PATH`` checks that the
modules, headers aside, are still PATH's agent line for line, wrapper aside: the proof
that a split or a re-cut moved code without changing it.
"""

from __future__ import annotations

import argparse
import difflib
import sys
from collections.abc import Iterable, Sequence
from importlib import resources
from pathlib import Path

__all__ = [
    "AGENT_KEY",
    "MODULES",
    "MODULE_LINE_LIMIT",
    "compare",
    "join_modules",
    "line_count",
    "load_agent_source",
    "module_bodies",
    "read_module",
    "script_body",
    "split_header",
]

#: Property of ``window`` the agent installs under; the script must declare the same.
AGENT_KEY = "__browxAgent_v1"

#: The agent's modules in closure order. The first holds the install guard, which has
#: to run before anything else; the last installs the object. A module may call a
#: function of a later one (declarations are hoisted), but top-level code runs in this
#: order, so it may only read what earlier modules have already set.
MODULES: tuple[str, ...] = (
    "prelude.js",
    "tables.js",
    "helpers.js",
    "visibility.js",
    "roles.js",
    "names.js",
    "states.js",
    "refs.js",
    "snapshot.js",
    "walks.js",
    "hints.js",
    "reading.js",
    "reach.js",
    "aim.js",
    "editors.js",
    "changes.js",
    "fades.js",
    "anchors.js",
    "feedback.js",
    "inspect.js",
    "forms.js",
    "dragwatch.js",
    "visualtree.js",
    "install.js",
)

#: Every module stays under this many lines, header included.
MODULE_LINE_LIMIT = 400

_PACKAGE = __package__  # the JavaScript modules sit beside this one
_WRAPPER_OPEN = ("(() => {", "  'use strict';")
_WRAPPER_CLOSE = "})();"
_HEADER_MARK = "//"


def read_module(name: str) -> str:
    """The text of one agent module, read from the package's resources."""
    return resources.files(_PACKAGE).joinpath(name).read_text(encoding="utf-8")


def line_count(text: str) -> int:
    """Lines in ``text``, counting a last line without a newline."""
    return len(text.splitlines())


def split_header(text: str) -> tuple[str, str]:
    """``(header, body)`` of a module: its leading column-0 ``//`` lines, and the rest."""
    lines = text.splitlines(keepends=True)
    end = 0
    while end < len(lines) and lines[end].startswith(_HEADER_MARK):
        end += 1
    return "".join(lines[:end]), "".join(lines[end:])


def join_modules(texts: Iterable[str]) -> str:
    """The one script: the modules' texts, in order, inside the closure's wrapper."""
    parts = [line + "\n" for line in _WRAPPER_OPEN]
    parts.extend(text if text.endswith("\n") else text + "\n" for text in texts)
    parts.append(_WRAPPER_CLOSE + "\n")
    return "".join(parts)


def load_agent_source() -> str:
    """The joined agent script, checked to install under :data:`AGENT_KEY`."""
    source = join_modules(read_module(name) for name in MODULES)
    declared = f"const AGENT_KEY = '{AGENT_KEY}';"
    if declared not in source:
        raise RuntimeError(f"the agent modules do not declare {declared!r}; the key and the script disagree")
    return source


def module_bodies() -> str:
    """What the modules hold under their headers, joined: the closure's body."""
    return "".join(split_header(read_module(name))[1] for name in MODULES)


def script_body(script: str) -> str:
    """A whole agent script less its wrapper lines (what lies outside them is kept).

    Raises :class:`ValueError` when the script is not wrapped as the loader wraps.
    """
    lines = script.splitlines(keepends=True)
    bare = [line.rstrip("\r\n") for line in lines]
    opening = len(_WRAPPER_OPEN)
    start = next(
        (i for i in range(len(bare) - opening + 1) if tuple(bare[i : i + opening]) == _WRAPPER_OPEN),
        None,
    )
    if start is None:
        raise ValueError(f"no closure opening {' '.join(_WRAPPER_OPEN)!r}")
    end = len(bare) - 1
    if end < start + opening or bare[end] != _WRAPPER_CLOSE:
        raise ValueError(f"the script does not end with {_WRAPPER_CLOSE!r}")
    return "".join(lines[:start] + lines[start + opening : end])


def compare(path: Path) -> str:
    """A unified diff of PATH's body against the modules' bodies; empty when equal."""
    expected = script_body(path.read_text(encoding="utf-8")).splitlines(keepends=True)
    actual = module_bodies().splitlines(keepends=True)
    return "".join(difflib.unified_diff(expected, actual, fromfile=str(path), tofile="agent modules"))


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m browx_actors.sessions.chromium.agent.source",
        description="Check that the page agent's modules are a given agent script, moved without change.",
    )
    parser.add_argument("--compare", required=True, type=Path, metavar="PATH", help="a whole agent script")
    args = parser.parse_args(argv)
    try:
        diff = compare(args.compare)
    except (OSError, ValueError) as exc:
        print(f"{args.compare}: {exc}", file=sys.stderr)
        return 2
    if diff:
        sys.stdout.write(diff)
        return 1
    print("OK")
    return 0


if __name__ == "__main__":
    sys.exit(main())
