"""``find`` and ``text_search`` over a native hierarchy, answering with snapshot refs.

Both answer with the element whose snapshot line stands for what matched: a text that a
tappable row or a button took its name from answers with that row or button
(:func:`anchor_of`), so the ref is one the agent has seen. Results have the web engine's
fields (``ref``, ``role``, ``name``, ``selectorHint``; ``snippet`` for text matches) and
defaults (50 matches for ``find``, 20 for ``text_search``, snippets of 40 characters
either side).

A selector hint is a selector that names the element alone *today*, best first: the
test id (``~id``, the short form when it is unique, else the qualified one; iOS spells it
``[accessibilityIdentifier="..."]``, see :func:`identifier_hint`), then ``label=``, then
``text=``, then ``role=...[name="..."]``; None when nothing is unique, and then the ref
is the only handle. Uniqueness is counted over visible nodes, as selectors resolve.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable

import attrs

from browx_actors.errors import ToolError

from ...devices.nodes import NativeNode
from ...jsonsafe import JsonObject
from ...tools.reply import listed
from .refs import Hierarchy, RefBook, collapse, is_interactive, names_from_content, short_test_id
from .selectors import matches_test_id
from .snapshot import quote, scope_node, speaks

__all__ = [
    "FindMatch", "FindResult", "TextMatch", "TextSearchResult", "anchor_of", "find", "identifier_hint",
    "text_search", "tilde_hint",
]

SNIPPET_RADIUS = 40


def tilde_hint(test_id: str) -> str:
    """Android's (and Appium's) tier-1 spelling: ``~checkout-submit``."""
    return "~" + test_id


def identifier_hint(test_id: str) -> str:
    """iOS's tier-1 spelling: ``[accessibilityIdentifier="checkout-submit"]``."""
    return f"[accessibilityIdentifier={quote(test_id)}]"


@attrs.frozen
class FindMatch:
    ref: str
    role: str
    name: str
    #: A selector that names this element alone today, best first; None when none does.
    selector_hint: str | None
    test_id: str | None = None
    #: The platform's raw type (iOS: ``XCUIElementTypeCell``), when the engine reports it.
    tag: str | None = None

    def to_json(self) -> JsonObject:
        out = {"ref": self.ref, "role": self.role, "name": self.name, "selectorHint": self.selector_hint}
        if self.tag is not None:
            out["tag"] = self.tag
        if self.test_id is not None:
            out["testId"] = self.test_id
        return out


@attrs.frozen
class FindResult:
    matches: tuple[FindMatch, ...]
    count: int

    def to_json(self) -> JsonObject:
        return listed([m.to_json() for m in self.matches], self.count)


def _matcher(needle: str | None, exact: bool) -> Callable[[str], bool] | None:
    if needle is None:
        return None
    want = collapse(needle)
    if exact:
        return lambda value: value == want
    folded = want.casefold()
    return lambda value: folded in value.casefold()


def anchor_of(node: NativeNode, hierarchy: Hierarchy) -> NativeNode:
    """The node whose snapshot line stands for ``node`` (itself, or what absorbed its text)."""
    if is_interactive(node):
        return node
    fallback = None
    for depth in range(len(node.path) - 1, -1, -1):
        ancestor = hierarchy.at(node.path[:depth])
        if ancestor is None:
            break
        if is_interactive(ancestor):
            if names_from_content(ancestor) and not node.test_id:
                return ancestor
            fallback = fallback or ancestor
            break
        if fallback is None and speaks(ancestor, hierarchy, False):
            fallback = ancestor
    if speaks(node, hierarchy, False):
        return node
    return fallback or node


class _Hints:
    """Selector hints that name one element today, from counts over the visible tree."""

    def __init__(self, hierarchy: Hierarchy, id_hint: Callable[[str], str]) -> None:
        visible = [node for node in hierarchy.nodes if node.visible]
        self.hierarchy = hierarchy
        self.id_hint = id_hint
        self.full_ids = Counter(node.test_id for node in visible if node.test_id)
        self.short_ids = Counter(short_test_id(node.test_id) for node in visible if node.test_id)
        self.labels = Counter(collapse(node.name) for node in visible if node.name)
        self.texts = Counter(collapse(node.text) for node in visible if node.text)
        self.roles = Counter((node.role, hierarchy.name_of(node)) for node in visible)

    def hint(self, node: NativeNode) -> str | None:
        if not node.visible:
            return None
        if node.test_id:
            short = short_test_id(node.test_id)
            if self.short_ids[short] == 1:
                return self.id_hint(short)
            if self.full_ids[node.test_id] == 1:
                return self.id_hint(node.test_id)
        label, text = collapse(node.name), collapse(node.text)
        if label and self.labels[label] == 1:
            return "label=" + _bare_or_quoted(label)
        if text and self.texts[text] == 1:
            return "text=" + _bare_or_quoted(text)
        name = self.hierarchy.name_of(node)
        if name and self.roles[node.role, name] == 1:
            return f"role={node.role}[name={quote(name)}]"
        return None


def _bare_or_quoted(value: str) -> str:
    return quote(value) if value[0] in "\"'" else value


def find(
    hierarchy: Hierarchy,
    refs: RefBook,
    *,
    role: str | None = None,
    name: str | None = None,
    text: str | None = None,
    test_id: str | None = None,
    exact: bool = False,
    limit: int = 50,
    scope: str | None = None,
    id_hint: Callable[[str], str] = tilde_hint,
    tags: bool = False,
) -> FindResult:
    """Visible elements by role, name, text and test id (all given must match).

    ``name`` and ``text`` match as case-insensitive substrings, or exactly with ``exact``;
    ``test_id`` matches as a testID selector does. A text match answers with the element
    whose snapshot line shows that text (a button named by it, say). With ``tags`` each
    match carries its node's raw type.
    """
    if role is None and name is None and text is None and test_id is None:
        raise ToolError("bad-arg", "give at least one of role, name, text, testId", field="role")
    root = scope_node(scope, hierarchy, refs)
    name_match, text_match = _matcher(name, exact), _matcher(text, exact)
    found: dict[tuple[int, ...], NativeNode] = {}
    for node in root.walk():
        if not node.visible:
            continue
        if text_match is not None:
            if not text_match(collapse(node.text)):
                continue
            node = anchor_of(node, hierarchy)
        if node.path in found:
            continue
        if test_id is not None and not (node.test_id and matches_test_id(node.test_id, test_id)):
            continue
        if role is not None and node.role != role:
            continue
        if name_match is not None and not name_match(hierarchy.name_of(node)):
            continue
        found[node.path] = node
    hints = _Hints(hierarchy, id_hint)
    matches = tuple(
        FindMatch(refs.ref_for(hierarchy, node), node.role, hierarchy.name_of(node), hints.hint(node),
                  node.test_id, node.tag if tags else None)
        for node in list(found.values())[:max(0, limit)]
    )
    return FindResult(matches, len(found))


# -- text_search --------------------------------------------------------------------


@attrs.frozen
class TextMatch:
    ref: str
    role: str
    snippet: str

    def to_json(self) -> JsonObject:
        return {"ref": self.ref, "role": self.role, "snippet": self.snippet}


@attrs.frozen
class TextSearchResult:
    matches: tuple[TextMatch, ...]
    count: int

    def to_json(self) -> JsonObject:
        return listed([m.to_json() for m in self.matches], self.count)


def text_search(
    hierarchy: Hierarchy,
    refs: RefBook,
    query: str,
    *,
    limit: int = 20,
    case_sensitive: bool = False,
) -> TextSearchResult:
    """Every occurrence of ``query`` in the visible texts, each with its element's ref."""
    needle = collapse(query)
    if not needle:
        raise ToolError("bad-arg", "query must be a non-empty string", field="query")
    # lower(), not casefold(): the snippet is cut by offsets into the haystack.
    folded = needle if case_sensitive else needle.lower()
    matches: list[TextMatch] = []
    count = 0
    for node in hierarchy.nodes:
        text = collapse(node.text)
        if not node.visible or not text:
            continue
        haystack = text if case_sensitive else text.lower()
        at = haystack.find(folded)
        while at >= 0:
            count += 1
            if len(matches) < limit:
                anchor = anchor_of(node, hierarchy)
                start = max(0, at - SNIPPET_RADIUS)
                end = min(len(text), at + len(needle) + SNIPPET_RADIUS)
                snippet = ("\u2026" if start else "") + text[start:end] + ("\u2026" if end < len(text) else "")
                matches.append(TextMatch(refs.ref_for(hierarchy, anchor), anchor.role, snippet))
            at = haystack.find(folded, at + len(folded))
    return TextSearchResult(tuple(matches), count)
