"""Element keys and the session's ref book: what a native ``[ref=eN]`` stands for.

A web ref points at a live DOM object. A native hierarchy has no live objects: every read
is a fresh tree of plain values, so a ref has to name *which node of the next tree* it
means. That is the :class:`ElementKey`:

- A node whose test id (Android resource-id, iOS accessibilityIdentifier) is unique in
  its tree is **anchored**: the key is the test id with an empty path and nothing else.
  The ref survives a layout change that moves the node, and a later tree that holds the
  test id twice makes the ref ambiguous (the caller refuses, naming the count) instead of
  silently picking one.
- Any other node is keyed on its **full index path plus what it looked like there**:
  role, raw tag, accessible name and (except for editable fields, whose text is the value
  being typed) its text. Such a ref is snapshot-local: when a later tree holds a
  different-looking node at that path, or none, the ref resolves to nothing
  (``stale-element``); it never resolves to whatever now occupies the spot. A test id
  that several nodes share (list rows inflated from one layout) cannot anchor, so those
  nodes are keyed this way too, the shared test id included.

A clickable container takes its accessible name from the text inside it (see
:func:`accessible_name`), so two list rows of the same class at the same path, before and
after a scroll, have different keys: "moved" is detected, not papered over.

The :class:`RefBook` mints ``eN`` once per key and hands the same ref back for the same
key, for the whole session. It is bounded: past :data:`REF_BOOK_CAPACITY` keys the least
recently used are forgotten, and a forgotten ref resolves to nothing, as a stale one does.

:class:`Hierarchy` is one read of the tree with the indexes every lookup needs (by path,
by test id) and the per-read caches of names; build one per read and throw it away.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import NamedTuple

from ...devices.nodes import NativeNode

__all__ = [
    "REF_BOOK_CAPACITY",
    "ElementKey",
    "Hierarchy",
    "RefBook",
    "accessible_name",
    "collapse",
    "content_texts",
    "is_interactive",
    "parse_ref",
    "short_test_id",
]

#: Distinct keys a session's ref book remembers before it forgets the least recent.
REF_BOOK_CAPACITY = 20_000

#: Roles an agent acts on, whatever the node's flags say (iOS reports no clickable flag).
INTERACTIVE_ROLES = frozenset({
    "button", "link", "textbox", "searchbox", "checkbox", "radio", "switch", "slider", "combobox",
    "spinbutton", "tab", "menuitem", "scrollview",
})
#: Roles whose text is the value being edited: it is neither their name nor their identity.
VALUE_ROLES = frozenset({"textbox", "searchbox", "combobox", "spinbutton", "slider"})
#: Roles that take their name from the text inside them, like ARIA's name-from-content.
NAME_FROM_CONTENT_ROLES = frozenset({
    "button", "link", "checkbox", "radio", "switch", "tab", "menuitem", "listitem", "cell",
})
#: Characters gathered for a name from content before it is cut (the snapshot clips further).
NAME_GATHER_MAX = 200

#: Builds a key from all its fields, skipping the named tuple's argument handling.
_NEW = tuple.__new__

_REF = re.compile(r"^\s*\[?\s*(?:ref\s*=\s*)?(e\d+)\s*\]?\s*$")
# Android qualifies a native view's id with its package: ``com.example.shop:id/submit``.
_QUALIFIER = ":id/"


#: The invisible marks and embeddings that steer bidirectional text (LRM, RLM, ALM, the
#: embeddings, overrides and isolates). Platforms put them into labels around text of the
#: other direction (WhatsApp's "\u200eTodas filtro", Safari's address field): no one reads
#: them, and a selector written from the screen has none. Joiners (ZWJ, ZWNJ) spell words.
_BIDI_CONTROLS = dict.fromkeys(map(ord, "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"))


def collapse(text: str) -> str:
    """Whitespace runs as one space, trimmed, bidi controls dropped: how names and texts
    are compared and shown."""
    if not text:
        return ""
    # Most texts are already collapsed; say so in C. The only printable whitespace is
    # the plain space, so a printable text with no doubled, leading or trailing one is
    # (a bidi control is not printable).
    if text.isprintable() and "  " not in text and text[0] != " " and text[-1] != " ":
        return text
    return " ".join(text.translate(_BIDI_CONTROLS).split())


def parse_ref(value: str) -> str | None:
    """``e5``, ``ref=e5`` and ``[ref=e5]`` name ref ``e5``; anything else is not a ref."""
    match = _REF.match(value)
    return match.group(1) if match else None


def short_test_id(test_id: str) -> str:
    """The unqualified part of a test id: ``pkg:id/submit`` -> ``submit``; others unchanged."""
    _, sep, name = test_id.rpartition(_QUALIFIER)
    return name if sep else test_id


def is_interactive(node: NativeNode) -> bool:
    """Something an agent can act on: a flag says so, or the role does."""
    return (
        node.clickable
        or node.long_clickable
        or node.checkable
        or node.scrollable
        or node.role in INTERACTIVE_ROLES
    )


def names_from_content(node: NativeNode) -> bool:
    """Whether an unlabelled node is named by the text inside it (a tappable row, a button)."""
    if node.role in VALUE_ROLES or node.scrollable:
        return False
    return node.clickable or node.long_clickable or node.role in NAME_FROM_CONTENT_ROLES


def accessible_name(node: NativeNode) -> str:
    """The name a node is known by: its label, else its own text, else the text inside it.

    An editable field is named by its label only (its text is the value). Text inside a
    tappable node is :func:`content_texts`, joined by spaces.
    """
    if node.name:
        return collapse(node.name)
    if node.role in VALUE_ROLES:
        return ""
    own = collapse(node.text)
    if own or not names_from_content(node):
        return own
    return " ".join(content_texts(node))[:NAME_GATHER_MAX]


def content_texts(node: NativeNode) -> list[str]:
    """The texts inside a node: its visible, non-interactive descendants' labels or texts
    in document order, stepping over interactive ones (which speak for themselves) and
    stopping once :data:`NAME_GATHER_MAX` characters are gathered."""
    # A plain loop, not a generator: every tappable row of a list is named this way on
    # every read.
    parts: list[str] = []
    size = 0
    stack = list(node.children[::-1])
    while stack:
        child = stack.pop()
        if not child.visible or is_interactive(child):
            continue
        piece = collapse(child.name or child.text)
        if piece:
            parts.append(piece)
            size += len(piece) + 1
            if size >= NAME_GATHER_MAX:
                break
        if child.children:
            stack.extend(child.children[::-1])
    return parts


class ElementKey(NamedTuple):
    """What a ref means in the next tree.

    An anchored key has a ``test_id``, an empty ``path`` and an empty ``identity``. A path
    key has the node's ``path`` and ``identity`` (role, tag, name, text as read there) and
    keeps the test id the node had, if any (a shared one).

    A named tuple, like the nodes: a snapshot mints one per line and the ref book hashes
    and compares each, which a tuple does in C (an attrs class took 6x as long).
    """

    test_id: str | None
    path: tuple[int, ...] = ()
    identity: tuple[str, ...] = ()

    @property
    def anchored(self) -> bool:
        return not self.identity


class Hierarchy:
    """One read of a native tree, indexed by path and test id, with per-read name caches."""

    __slots__ = ("_by_path", "_by_test_id", "_names", "nodes", "root")

    def __init__(self, root: NativeNode) -> None:
        self.root = root
        self.nodes: tuple[NativeNode, ...] = tuple(root.walk())
        self._by_path: dict[tuple[int, ...], NativeNode] = {}
        self._by_test_id: dict[str, list[NativeNode]] = {}
        #: Names by node identity: the nodes live as long as this read, and an int hashes
        #: faster than a path.
        self._names: dict[int, str] = {}
        for node in self.nodes:
            self._by_path[node.path] = node
            if node.test_id:
                self._by_test_id.setdefault(node.test_id, []).append(node)

    def __iter__(self) -> Iterator[NativeNode]:
        return iter(self.nodes)

    def __len__(self) -> int:
        return len(self.nodes)

    def at(self, path: tuple[int, ...]) -> NativeNode | None:
        return self._by_path.get(path)

    def with_test_id(self, test_id: str) -> tuple[NativeNode, ...]:
        """Every node whose test id is exactly ``test_id``."""
        return tuple(self._by_test_id.get(test_id, ()))

    def test_ids(self) -> dict[str, int]:
        """How many nodes carry each test id."""
        return {test_id: len(nodes) for test_id, nodes in self._by_test_id.items()}

    def name_of(self, node: NativeNode) -> str:
        """:func:`accessible_name`, computed once per node of this read."""
        name = self._names.get(id(node))
        if name is None:
            name = self._names[id(node)] = accessible_name(node)
        return name

    def identity_of(self, node: NativeNode) -> tuple[str, ...]:
        text = "" if node.role in VALUE_ROLES else collapse(node.text)
        return (node.role, node.tag, self.name_of(node), text)

    def key_for(self, node: NativeNode) -> ElementKey:
        test_id = node.test_id
        if test_id and len(self._by_test_id[test_id]) == 1:
            return _NEW(ElementKey, (test_id, (), ()))
        return _NEW(ElementKey, (test_id, node.path, self.identity_of(node)))

    def resolve(self, key: ElementKey) -> tuple[NativeNode, ...]:
        """The nodes of this read a key means: one, none (stale) or several (ambiguous)."""
        if key.anchored:
            assert key.test_id is not None
            return self.with_test_id(key.test_id)
        node = self._by_path.get(key.path)
        if node is None or node.test_id != key.test_id or self.identity_of(node) != key.identity:
            return ()
        return (node,)


class RefBook:
    """A session's refs: ``eN`` minted once per :class:`ElementKey`, reused for it after.

    Not thread-safe; a session actor owns one.
    """

    def __init__(self, capacity: int = REF_BOOK_CAPACITY) -> None:
        if capacity < 1:
            raise ValueError("capacity must be positive")
        self._capacity = capacity
        self._by_key: dict[ElementKey, str] = {}
        self._by_ref: dict[str, ElementKey] = {}
        self._minted = 0
        #: Names given with name_ref: kept apart from the refs, so no eviction drops them.
        self.names: dict[str, ElementKey] = {}

    def __len__(self) -> int:
        return len(self._by_ref)

    def ref_for(self, hierarchy: Hierarchy, node: NativeNode) -> str:
        """The node's ref, minted on first sight of its key."""
        key = hierarchy.key_for(node)
        ref = self._by_key.pop(key, None)
        if ref is None:
            self._minted += 1
            ref = f"e{self._minted}"
            if len(self._by_key) >= self._capacity:
                oldest = next(iter(self._by_key))
                del self._by_ref[self._by_key.pop(oldest)]
        self._by_key[key] = ref  # (re)inserted last: the most recently used
        self._by_ref[ref] = key
        return ref

    def key_of(self, ref: str) -> ElementKey | None:
        """The key behind a ref (``e5``, ``ref=e5``, ``[ref=e5]``) or a name given with
        name_ref (names cannot be spelled ``e<digits>``); None when unknown."""
        name = parse_ref(ref)
        return self.names.get(ref.strip()) if name is None else self._by_ref.get(name)

    def resolve(self, ref: str, hierarchy: Hierarchy) -> tuple[NativeNode, ...]:
        """The nodes of a fresh read the ref means; empty when unknown or stale."""
        key = self.key_of(ref)
        return () if key is None else hierarchy.resolve(key)
