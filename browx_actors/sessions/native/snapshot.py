"""Snapshot text over a native hierarchy (``find`` and ``text_search`` are in :mod:`.find`).

The text reads like the web engine's (``sessions/chromium/agent/snapshot.js``), so one agent skill
reads both: one line per node, ``role "name" [ref=eN] [state]... value="..."``, children
indented two spaces, names JSON-quoted and clipped with an ellipsis (names 100
characters, at a word break when there is one; values 80, texts 200), a password field's
value as the parsers give it (its placeholder, or ``********`` once it holds something),
and a node's own text after ``: `` when it differs from its name. A ``generic`` line of
an iOS element whose XCUITest type says more than ``Other`` (a type the role table does
not know: a map, a date picker) carries it as ``tag=XCUIElementTypeMap``; every other
line leaves the type to ``find``, ``verify_*`` and ``inspect``, since writing it on every
line would cost about three quarters again the snapshot's characters.

Which nodes get a line: visible nodes that are interactive (a flag or the role says so),
that have a name, text or value, or whose role is structure worth seeing (lists, progress
bars, web views). Every line carries a ref: on a native screen a text is something to
verify, not page furniture. Pure layout containers with nothing to say are folded, their
children lifted into their place, even when they carry a test id (``find`` and every
selector still reach them). A tappable node or a button-like role is named by the text
inside it (:func:`~.refs.accessible_name`), and the plain texts that name gave it are not
repeated under it; interactive descendants and descendants with a test id still are. A
tappable row with a label of its own (a React Native ``Pressable``'s accessibility label, an
iOS cell's) keeps it as its name, and what the screen shows inside it that the label does
not say (a subtitle, the ``Off`` beside a settings row, a row's value) follows after ``: ``,
so the snapshot says what ``text_search`` finds.

The thin-on-testIDs warning: a screen is *thin* when more than a quarter of its
interactive elements (and at least two of them) carry no test id. Their refs are
positional and go stale when the layout moves, so the warning names the count and lists
the first :data:`THIN_LISTED` of them by ref, a fixable list for the app team.
"""

from __future__ import annotations

import json
import re
import unicodedata

import attrs

from browx_actors.errors import ToolError

from ...devices.nodes import SECRET_MASK, NativeNode
from ...devices.wda_source import COARSE_TYPES, TYPE_PREFIX
from ...jsonsafe import JsonObject
from .refs import VALUE_ROLES, Hierarchy, RefBook, collapse, content_texts, is_interactive, names_from_content
from .selectors import resolve

__all__ = ["DEFAULT_MAX_NODES", "Snapshot", "clip", "clip_words", "quote", "scope_node", "shown_text", "snapshot",
           "speaks"]

DEFAULT_MAX_NODES = 2000
NAME_MAX = 100
TEXT_MAX = 200
VALUE_MAX = 80
#: A password field's value once it holds something (the parsers put it there).
PASSWORD_MASK = SECRET_MASK
#: Thin on testIDs: more than this share of the interactive elements has none...
THIN_SHARE = 0.25
#: ...and at least this many.
THIN_MIN = 2
#: Untagged elements the warning lists by ref.
THIN_LISTED = 8
#: Rows whose own value is something the screen shows beside their label (an iOS cell's "Off").
ROW_ROLES = frozenset({"listitem", "cell"})
#: Roles that get a line even with nothing to say: they are structure or state.
STRUCTURE_ROLES = frozenset({"list", "progressbar", "webview", "dialog", "alert", "alertdialog"})


_NEEDS_ESCAPE = frozenset('"\\' + "".join(map(chr, range(32))))


def quote(text: str) -> str:
    """JSON-quoted, as the web agent's ``JSON.stringify`` quotes (non-ASCII kept)."""
    if _NEEDS_ESCAPE.isdisjoint(text):
        return f'"{text}"'
    return json.dumps(text, ensure_ascii=False)


def clip(text: str, limit: int) -> str:
    """Cut to ``limit`` characters with an ellipsis, as the web agent clips."""
    if len(text) <= limit:
        return text
    end = limit - 1
    if "\ud800" <= text[end - 1] <= "\udbff":  # never split a surrogate pair
        end -= 1
    return text[:end] + "\u2026"


#: Where a name may be cut short: between words, or between the parts of a path or an id.
_BREAKS = " /.,;:-_"


def clip_words(text: str, limit: int) -> str:
    """:func:`clip`, cutting at the last break (:data:`_BREAKS`) when the limit falls inside
    a word and a break falls in the second half of the kept text: a name cut mid-word
    reads as another word."""
    if len(text) <= limit:
        return text
    head = clip(text, limit)[:-1]
    if text[len(head)] not in _BREAKS:
        cut = max(head.rfind(char) for char in _BREAKS)
        if cut > limit // 2:
            head = head[:cut + (head[cut] != " ")]  # keep a "/" or "." that ends a part
    return head.rstrip() + "\u2026"


def _says(name: str, piece: str) -> bool:
    """Whether ``name`` already holds ``piece`` as a whole word run."""
    return piece == name or re.search(r"(?<!\w)" + re.escape(piece) + r"(?!\w)", name) is not None


def _icon_glyph(piece: str) -> bool:
    """An icon font's glyph (private-use characters only): drawn, but no text anyone reads."""
    return all(unicodedata.category(char) == "Co" or char == " " for char in piece)


def shown_text(node: NativeNode, name: str) -> str:
    """What a line shows after ``: ``: the node's own text when its name is not that, and
    for a row named by its own label, the texts inside it (and a row's value) the label
    does not already say, icon glyphs left out."""
    text = collapse(node.text)
    own = text if text and text != name else ""
    if not (node.children or node.value) or not name or not (node.name or text) or not names_from_content(node):
        return own  # most lines: nothing inside to add
    parts = [own] if own else []
    inside = content_texts(node)
    if node.value and node.role in ROW_ROLES:
        inside.append(collapse(node.value))
    for piece in inside:
        if piece and piece not in parts and not _says(name, piece) and not _icon_glyph(piece):
            parts.append(piece)
    return ", ".join(parts)


def speaks(node: NativeNode, hierarchy: Hierarchy, interactive: bool) -> bool:
    """Whether a node gets a snapshot line (and so a ref)."""
    # The name last: it may gather the text of a whole subtree.
    return bool(interactive or node.value or node.role in STRUCTURE_ROLES or collapse(node.text)
                or hierarchy.name_of(node))


def _states(node: NativeNode) -> str:
    if not (node.checked or node.selected or node.focused) and node.enabled:
        return ""  # most lines: one test, not four appends
    out = ""
    if node.checked:
        out += " [checked]"
    if not node.enabled:
        out += " [disabled]"
    if node.selected:
        out += " [selected]"
    if node.focused:
        out += " [focused]"
    return out


@attrs.frozen
class Snapshot:
    """A printed snapshot: ``node_count`` counts lines, ``ref_count`` the refs among them."""

    text: str
    node_count: int
    ref_count: int
    truncated: bool
    #: Interactive elements in the snapshotted tree, and those of them without a test id.
    interactive: int
    untagged: int
    warnings: tuple[str, ...] = ()

    def to_json(self) -> JsonObject:
        return {"snapshot": self.text, "nodeCount": self.node_count, "refCount": self.ref_count,
                "truncated": self.truncated, "warnings": list(self.warnings)}


class _Printer:
    """One depth-first walk: prints lines, mints their refs, counts the untagged interactive."""

    def __init__(self, hierarchy: Hierarchy, refs: RefBook, max_nodes: int, omit: frozenset[str]) -> None:
        self.hierarchy = hierarchy
        self.refs = refs
        self.max_nodes = max_nodes
        self.omit = omit
        self.lines: list[str] = []
        self.truncated = False
        self.interactive = 0
        #: Interactive nodes without a test id, and the first THIN_LISTED of them described.
        self.untagged = 0
        self.listed: list[str] = []

    def visit(self, node: NativeNode, depth: int, absorbing: bool) -> None:
        if not node.visible:
            return
        interactive = is_interactive(node)
        if interactive:
            self.interactive += 1
        has_line = (not absorbing or interactive or node.test_id is not None) and node.role not in self.omit \
            and speaks(node, self.hierarchy, interactive)
        ref = None
        if has_line:
            if len(self.lines) >= self.max_nodes:
                self.truncated = True
            else:
                ref = self.print_line(node, depth)
            depth += 1
            absorbing = names_from_content(node) or (absorbing and not interactive)
        if interactive and not node.test_id:
            self.untagged += 1
            if len(self.listed) < THIN_LISTED:
                self.listed.append(f"{ref} {self.describe(node)}" if ref else self.describe(node))
        for child in node.children:
            self.visit(child, depth, absorbing)

    def describe(self, node: NativeNode) -> str:
        name = self.hierarchy.name_of(node)
        return f"{node.role} {quote(clip(name, 40))}" if name else node.role

    def print_line(self, node: NativeNode, depth: int) -> str:
        name = self.hierarchy.name_of(node)
        ref = self.refs.ref_for(self.hierarchy, node)
        line = "  " * depth + node.role
        if name:
            line += " " + quote(clip_words(name, NAME_MAX))
        line += f" [ref={ref}]" + _states(node)
        if node.role == "generic" and node.tag.startswith(TYPE_PREFIX) and node.tag not in COARSE_TYPES:
            line += " tag=" + node.tag
        if node.role in VALUE_ROLES:
            if node.value:
                line += " value=" + quote(clip(node.value, VALUE_MAX))
        else:
            text = shown_text(node, name)
            if text:
                line += ": " + clip(text, TEXT_MAX)
        self.lines.append(line)
        return ref

    def warnings(self) -> tuple[str, ...]:
        missing = self.untagged
        if missing < THIN_MIN or missing <= self.interactive * THIN_SHARE:
            return ()
        listed = ", ".join(self.listed)
        more = f" and {missing - THIN_LISTED} more" if missing > THIN_LISTED else ""
        return (f"thin on testIDs: {missing} of {self.interactive} interactive elements have no testID, so "
                f"their refs are positional and go stale when the layout moves: {listed}{more}. Give them a "
                "testID (Android resource-id, iOS accessibilityIdentifier) to make them stable.",)


def scope_node(scope: str | None, hierarchy: Hierarchy, refs: RefBook) -> NativeNode:
    """The node a ``scope`` argument (a ref or selector) names; the root when None."""
    if scope is None:
        return hierarchy.root
    try:
        return resolve(scope, hierarchy, refs).one()
    except ToolError as err:
        if err.code == "bad-arg":
            err.details["field"] = "scope"
        raise


def snapshot(
    hierarchy: Hierarchy,
    refs: RefBook,
    *,
    scope: str | None = None,
    max_nodes: int = DEFAULT_MAX_NODES,
    omit: frozenset[str] | set[str] = frozenset(),
) -> Snapshot:
    """The snapshot text of the tree, or of the subtree a ref or selector ``scope`` names.

    ``omit`` lists roles whose lines are left out; their children stay, in their place.
    """
    if max_nodes < 1:
        raise ToolError("bad-arg", "maxNodes must be at least 1", field="maxNodes")
    root = scope_node(scope, hierarchy, refs)
    printer = _Printer(hierarchy, refs, max_nodes, frozenset(omit))
    printer.visit(root, 0, False)
    return Snapshot(
        text="\n".join(printer.lines),
        node_count=len(printer.lines),
        ref_count=len(printer.lines),
        truncated=printer.truncated,
        interactive=printer.interactive,
        untagged=printer.untagged,
        warnings=printer.warnings(),
    )
