"""Playwright's device descriptors ("iPhone 15", "Pixel 7", ...), read from the installed
Playwright package at first use rather than copied here, so they stay the ones the
installed Playwright ships.

Recent Playwright bundles the table into its driver's ``coreBundle.js`` as a JavaScript
object literal (bare keys, double-quoted strings); older releases shipped it as
``lib/server/deviceDescriptorsSource.json``. Both are read: the JSON file when present,
else the literal, turned into JSON by quoting its keys (:func:`parse_bundle`, pure).
:func:`pick` (pure) finds one by name, or refuses naming ``device`` with close names.
"""

from __future__ import annotations

import difflib
import functools
import json
import re
from collections.abc import Mapping
from pathlib import Path

from ..errors import ToolError
from ..jsonsafe import JsonObject

__all__ = ["descriptors", "parse_bundle", "pick"]

_START = "deviceDescriptorsSource_default = {"
_KEY = re.compile(r"^(\s*)([A-Za-z_$][\w$]*):", re.MULTILINE)


def parse_bundle(text: str) -> dict[str, JsonObject]:
    """The descriptors in a ``coreBundle.js``: the object literal after :data:`_START`,
    up to its closing brace at the assignment's indentation, with its keys quoted."""
    at = text.index(_START)
    opening = text.index("{", at)
    indent = text[text.rindex("\n", 0, at) + 1:at]
    closing = text.index(f"\n{indent}}};", opening)
    literal = _KEY.sub(r'\1"\2":', text[opening:closing + len(indent) + 2])
    table: dict[str, JsonObject] = json.loads(literal)
    return table


@functools.cache
def descriptors() -> Mapping[str, JsonObject]:
    """The installed Playwright's descriptors, by name (read once)."""
    import playwright  # the package's files, not its API: no driver is started

    lib = Path(playwright.__file__).parent / "driver" / "package" / "lib"
    legacy = lib / "server" / "deviceDescriptorsSource.json"
    if legacy.is_file():
        table: dict[str, JsonObject] = json.loads(legacy.read_text(encoding="utf-8"))
        return table
    return parse_bundle((lib / "coreBundle.js").read_text(encoding="utf-8"))


def pick(name: str, table: Mapping[str, JsonObject]) -> JsonObject:
    """The descriptor called ``name`` (exactly, else ignoring case); unknown is
    ``bad-arg`` naming ``device`` with up to five close names."""
    if name in table:
        return table[name]
    folded = {known.casefold(): known for known in table}
    if name.casefold() in folded:
        return table[folded[name.casefold()]]
    close = difflib.get_close_matches(name, list(table), n=5, cutoff=0.5)
    hint = f"; close: {', '.join(close)}" if close else "; names as in Playwright's devices, e.g. iPhone 15, Pixel 7"
    raise ToolError("bad-arg", f"unknown device {name!r}{hint}", field="device", close=close)
