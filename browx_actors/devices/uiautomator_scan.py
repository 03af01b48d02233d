"""A fast reader for the ``uiautomator dump`` that AOSP writes, with expat behind it.

Expat costs a Python call per start tag and per end tag and a dict of attributes per
node: on a 2,000-node screen that floor alone was most of the snapshot's budget. AOSP's
dumper writes every node the same way (``AccessibilityNodeInfoDumper``: optional
``NAF="true"``, then ``index text resource-id class package content-desc``, the ten
flags, ``bounds="[l,t][r,b]"``, and on some releases more attributes after bounds), so
one compiled pattern reads a whole node's fields in C and the loop here does the rest.

The pattern only ever reads what it accounts for whole: the tokens it matches must tile
the document from the ``<hierarchy>`` tag to ``</hierarchy>`` with nothing skipped, every
entity must be one XML defines, and every text a well-formed attribute value. Anything
else (another attribute order, a comment, an unknown entity, a raw control character,
bytes that are not UTF-8, a duplicate attribute) makes :func:`scan_dump` answer None and
the caller parse with expat, which either reads it or names what is broken. So the fast
path is an optimisation, never a second dialect: a test holds both readers to equal
trees over every recorded dump and over generated ones. Both refuse a node deeper than
:data:`~browx_actors.devices.nodes.MAX_DEPTH` the same way, as they reach it.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from browx_actors.devices.nodes import MAX_DEPTH, NativeNode, Rect, too_deep

__all__ = ["FLAG_ATTRIBUTES", "NodeBuilder", "scan_dump"]

#: The flags in AOSP's order, as NodeBuilder receives them.
FLAG_ATTRIBUTES = ("checkable", "checked", "clickable", "enabled", "focusable", "focused", "scrollable",
                   "long-clickable", "password", "selected")
_KNOWN = frozenset({"NAF", "index", "text", "resource-id", "class", "package", "content-desc", "bounds",
                    *FLAG_ATTRIBUTES})

#: Builds one node: class, text, resource-id, content-desc, hint, bounds, the flags in
#: :data:`FLAG_ATTRIBUTES` order, path, children.
NodeBuilder = Callable[
    [str, str, str, str, str, "Rect | None", "tuple[bool, ...]", "tuple[int, ...]", "tuple[NativeNode, ...]"],
    NativeNode,
]

# An attribute value as XML allows it: no quote, no '<', no raw control character (expat
# would normalise tabs and newlines to spaces and refuse the others; entities are checked
# on their own below).
_VALUE = r'[^"<\x00-\x1f]*'
_PROLOG = re.compile(
    r"""(?:<\?xml version=(["'])1\.0\1(?: encoding=(["'])(?i:utf-8)\2)?(?: standalone=(["'])(?:yes|no)\3)? ?\?>)?"""
    r'[ \t\r\n]*<hierarchy(?: rotation="\d+")?>'
)
#: One token, whole (group 1), with a start tag's fields (an end tag leaves them empty).
_TOKEN = re.compile(
    r'([ \t\r\n]*(?:'
    rf'<node (?:NAF="true" )?index="\d+" text="({_VALUE})" resource-id="({_VALUE})" class="({_VALUE})" '
    rf'package="({_VALUE})" content-desc="({_VALUE})" '
    r'(' + "".join(f'{name}="(?:true|false)" ' for name in FLAG_ATTRIBUTES) + ')'
    r'bounds="\[(-?\d+),(-?\d+)\]\[(-?\d+),(-?\d+)\]"'
    rf'((?: [A-Za-z_][\w.:-]*="{_VALUE}")*) ?(/?)>'
    r'|</node>))'
)
_EXTRA = re.compile(rf' ([A-Za-z_][\w.:-]*)="({_VALUE})"')
_END = "</hierarchy>"
_ENTITY = re.compile(r"&(?:(amp|lt|gt|quot|apos)|#([0-9]+)|#x([0-9A-Fa-f]+));|&")
_NAMED = {"amp": "&", "lt": "<", "gt": ">", "quot": '"', "apos": "'"}
#: The flags' text -> their booleans; a screen has a handful of distinct combinations.
_FLAGS: dict[str, tuple[bool, ...]] = {}
#: Builds a rect from its four fields, skipping the named tuple's argument handling.
_NEW = tuple.__new__


class _NotPlain(Exception):
    """What the scanner does not account for; the caller parses with expat instead."""


def _flags(text: str) -> tuple[bool, ...]:
    flags = _FLAGS.get(text)
    if flags is None:
        flags = _FLAGS[text] = tuple(part.endswith('"true"') for part in text.split())
    return flags


def _entity(match: re.Match[str]) -> str:
    named, decimal, hexadecimal = match.groups()
    if named:
        return _NAMED[named]
    if decimal is None and hexadecimal is None:
        raise _NotPlain  # a bare '&' or an entity XML does not define
    code = int(decimal) if decimal is not None else int(hexadecimal, 16)
    # The characters XML 1.0 allows; expat refuses a reference to any other.
    if code in (0x9, 0xA, 0xD) or 0x20 <= code <= 0xD7FF or 0xE000 <= code <= 0xFFFD or 0x10000 <= code <= 0x10FFFF:
        return chr(code)
    raise _NotPlain


def _unescape(value: str) -> str:
    return _ENTITY.sub(_entity, value) if "&" in value else value


def _hint(extras: str) -> str:
    """The ``hint`` among the attributes after bounds; a repeated or known name is not plain."""
    found = _EXTRA.findall(extras)
    names = [name for name, _ in found]
    if len(set(names)) != len(names) or not _KNOWN.isdisjoint(names):
        raise _NotPlain
    return _unescape(next((value for name, value in found if name == "hint"), ""))


def _unescaped(fields: tuple[str, ...]) -> tuple[str, ...]:
    """A node's fields with their entities replaced (the package and the attributes after
    bounds are only checked: the package is not kept, and the hint is read by :func:`_hint`)."""
    whole, text, resource_id, class_name, package, desc, flags, left, top, right, bottom, extras, closing = fields
    _unescape(package)
    _unescape(extras)
    return (whole, _unescape(text), _unescape(resource_id), _unescape(class_name), package, _unescape(desc),
            flags, left, top, right, bottom, extras, closing)


def scan_dump(xml: str, build: NodeBuilder) -> list[NativeNode] | None:
    """The ``hierarchy`` element's children, built with ``build``; None when the text is
    anything but the plain dump the pattern accounts for whole (parse it with expat)."""
    head = _PROLOG.match(xml)
    if head is None or not xml.endswith(_END):
        return None
    # Whitespace before the end tag belongs to no token (a pattern search for it would
    # try every position of the document).
    end = len(xml) - len(_END)
    while end > head.end() and xml[end - 1] in " \t\r\n":
        end -= 1
    try:
        return _tokens(xml, head.end(), end, build)
    except _NotPlain:
        return None


def _tokens(xml: str, pos: int, end: int, build: NodeBuilder) -> list[NativeNode] | None:
    # One frame per open node: its fields, its path, and its parent's children and path.
    stack: list[tuple[tuple[str, ...], tuple[int, ...], list[NativeNode], tuple[int, ...]]] = []
    push, pop = stack.append, stack.pop
    top: list[NativeNode] = []
    children = top
    path: tuple[int, ...] = ()
    flag_sets = _FLAGS
    entities = "&" in xml
    # The matches are disjoint and in [pos, end): they tile it exactly when their lengths
    # add up to its length, which is cheaper to keep than each match's position.
    covered = 0
    for match in _TOKEN.finditer(xml, pos, end):
        fields = match.groups()
        covered += len(fields[0])
        kids: tuple[NativeNode, ...]
        if fields[6]:  # a start tag (an end tag matches no flags)
            if entities and "&" in fields[0]:
                fields = _unescaped(fields)
            own = (*path, len(children))
            if len(own) > MAX_DEPTH:
                raise too_deep("uiautomator dump")
            if not fields[12]:  # not self-closing: built at its end tag, with its children
                push((fields, own, children, path))
                children, path = [], own
                continue
            kids = ()
        elif stack:  # </node>
            fields, own, parent_children, path = pop()
            kids = tuple(children)
            children = parent_children
        else:
            return None
        _, text, resource_id, class_name, _, desc, flags, left, top_, right, bottom, extras, _ = fields
        x, y = int(left), int(top_)
        children.append(build(
            class_name, text, resource_id, desc, _hint(extras) if extras else "",
            _NEW(Rect, (x, y, int(right) - x, int(bottom) - y)), flag_sets.get(flags) or _flags(flags), own, kids))
    if covered != end - pos or stack:
        return None
    return top
