"""The native selector vocabulary, parsed and resolved over a :class:`~.refs.Hierarchy`.

============================  ======  ==========================================
form                          tier    matches
============================  ======  ==========================================
``~checkout-submit``          testID  the test id (Appium's accessibility-id spelling)
``testID=x`` / ``id=x``       testID  the same, spelled out
``[testID="x"]``              testID  iOS spellings: also ``[identifier=...]`` and
                                      ``[accessibilityIdentifier=...]``
``label=Place order``         label   the accessibility label (Android content-desc)
``text=Place order``          text    the rendered string
``role=button[name="Save"]``  role    the role, and the accessible name the snapshot
                                      shows in quotes (``role=button`` alone: any name)
``e12`` / ``[ref=e12]``       ref     a ref from snapshot or find, through the ref book
a bare string                 any     testID, then label, then text; the first tier
                                      with a match wins and is reported
============================  ======  ==========================================

Matching is exact after whitespace is collapsed and bidi controls dropped
(:func:`~.refs.collapse`; ``find`` is where substring search lives), and case-sensitive
unless a quoted value carries Playwright's ``i`` flag (``label="save"i``; ``s``, exact,
is accepted as the default it already is). A value may be bare or quoted (JSON double
quotes, or single quotes).

A testID query also matches a test id qualified the Android way: ``~submit`` matches
``submit`` and ``com.example.shop:id/submit`` (a query that is itself qualified matches
only exactly). iOS identifiers never contain ``:id/``, so the rule is inert there.

Resolution returns every match and the tier; the caller decides, usually through
:meth:`Resolution.one`, which refuses zero matches (``stale-element`` for a ref,
``target-not-found`` for a selector) and several (``ambiguous-target``, naming the
count): on a native screen a tap on the wrong element is worse than no tap. Hidden
nodes match only when no visible one does, so an ambiguity is never made of nodes the
user cannot see, and a hidden target can still be reported as such. Web selector syntax
(``css=``, ``xpath=``, ``//...``, ``internal:``, ``nth=``) is refused as ``bad-arg``, since it has no
meaning over a native hierarchy (a ``>>`` inside a value is just text).
"""

from __future__ import annotations

import json
import re

import attrs

from browx_actors.errors import ToolError

from ...devices.nodes import NativeNode
from .refs import Hierarchy, RefBook, collapse, parse_ref, short_test_id

__all__ = ["TIERS", "Resolution", "Selector", "matches_test_id", "parse_selector", "resolve"]


#: The tiers a selector can match through, and the order a bare string tries them in.
TIERS = ("ref", "testID", "label", "text", "role")
_BARE_ORDER = ("testID", "label", "text")

_PREFIXES = {
    "testid": "testID", "id": "testID", "identifier": "testID", "accessibilityidentifier": "testID",
    "label": "label", "text": "text", "role": "role",
}
_BRACKET = re.compile(r"^\[\s*([A-Za-z]+)\s*=\s*(.*?)\s*\]$", re.DOTALL)
_PREFIX = re.compile(r"^([A-Za-z]+)\s*=(.*)$", re.DOTALL)
_ROLE = re.compile(r"^([A-Za-z][\w-]*)\s*(?:\[\s*name\s*=\s*(.*?)\s*\])?$", re.DOTALL)
_WEB_SYNTAX = ("css=", "xpath=", "internal:", "nth=", "//")


@attrs.frozen
class Selector:
    """A parsed selector. ``kind`` is a tier, or ``any`` for a bare string."""

    kind: str
    value: str
    #: ``role=...[name=...]``: the name, or None for any name.
    name: str | None = None
    ignore_case: bool = False
    #: As the caller wrote it, for messages.
    source: str = ""


def _bad(message: str) -> ToolError:
    return ToolError("bad-arg", message, field="selector")


def _unquote(raw: str, source: str) -> tuple[str, bool]:
    """A bare or quoted value and whether it is case-insensitive."""
    value = raw.strip()
    ignore_case = False
    if value[:1] == '"':
        end = value.rfind('"')
        flag = value[end + 1:].strip()
        if end == 0 or flag not in ("", "s", "i"):
            raise _bad(f"selector {source!r}: unterminated or badly flagged quoted value")
        try:
            value = json.loads(value[:end + 1])
        except ValueError as err:
            raise _bad(f"selector {source!r}: bad quoted value ({err.args[0]})") from err
        ignore_case = flag == "i"
    elif value[:1] == "'":
        if len(value) < 2 or value[-1] != "'":
            raise _bad(f"selector {source!r}: unterminated quoted value")
        value = value[1:-1]
    value = collapse(value)
    if not value:
        raise _bad(f"selector {source!r} has an empty value")
    return value, ignore_case


def parse_selector(text: str) -> Selector:
    """Parse one selector; malformed ones are ``bad-arg`` naming the field ``selector``."""
    source = text.strip()
    if not source:
        raise _bad("selector is empty")
    ref = parse_ref(source)
    if ref is not None:
        return Selector("ref", ref, source=source)
    if source.startswith(_WEB_SYNTAX):
        raise _bad(f"selector {source!r} is web selector syntax, which has no meaning over a native "
                   "hierarchy: use ~testID, label=..., text=..., role=...[name=...] or a ref")
    if source.startswith("~"):
        value, ignore_case = _unquote(source[1:], source)
        return Selector("testID", value, ignore_case=ignore_case, source=source)
    bracket = _BRACKET.match(source)
    if bracket:
        attr = bracket.group(1)
        if _PREFIXES.get(attr.lower()) != "testID":
            raise _bad(f"selector {source!r}: no native attribute {attr!r} (use [testID=...], "
                       "[identifier=...] or [accessibilityIdentifier=...])")
        value, ignore_case = _unquote(bracket.group(2), source)
        return Selector("testID", value, ignore_case=ignore_case, source=source)
    prefixed = _PREFIX.match(source)
    kind = _PREFIXES.get(prefixed.group(1).lower()) if prefixed else None
    if prefixed is None or kind is None:
        return Selector("any", collapse(source), source=source)
    rest = prefixed.group(2)
    if kind != "role":
        value, ignore_case = _unquote(rest, source)
        return Selector(kind, value, ignore_case=ignore_case, source=source)
    role = _ROLE.match(rest.strip())
    if role is None:
        raise _bad(f"selector {source!r}: expected role=<role> or role=<role>[name=\"...\"]")
    if role.group(2) is None:
        return Selector("role", role.group(1), source=source)
    name, ignore_case = _unquote(role.group(2), source)
    return Selector("role", role.group(1), name=name, ignore_case=ignore_case, source=source)


@attrs.frozen
class Resolution:
    """Every node a selector matched, and the tier that matched (None when nothing did)."""

    selector: Selector
    tier: str | None
    matches: tuple[NativeNode, ...]

    def one(self) -> NativeNode:
        """The single match, or the refusal: none matched, or several did (see the module notes)."""
        count = len(self.matches)
        if count == 1:
            return self.matches[0]
        source = self.selector.source or self.selector.value
        if count == 0 and self.selector.kind == "ref":
            raise ToolError("stale-element", f"ref {self.selector.value} no longer matches an element on "
                            "the screen: take a new snapshot", ref=self.selector.value)
        if count == 0:
            tried = ", ".join(_BARE_ORDER) if self.selector.kind == "any" else self.selector.kind
            raise ToolError("target-not-found", f"nothing on the screen matches selector {source!r} "
                            f"(tried {tried})", selector=source)
        raise ToolError("ambiguous-target", f"{source!r} matches {count} elements ({self.tier} tier), so "
                        "nothing was done: narrow it, or give the element a unique testID",
                        count=count, tier=self.tier, selector=source)


def resolve(
    selector: str | Selector,
    hierarchy: Hierarchy,
    refs: RefBook,
    *,
    scope: NativeNode | None = None,
) -> Resolution:
    """Every node of ``hierarchy`` (under ``scope``, itself included) the selector means."""
    parsed = parse_selector(selector) if isinstance(selector, str) else selector
    if parsed.kind == "ref":
        found = refs.resolve(parsed.value, hierarchy)
        return Resolution(parsed, "ref", _prefer_visible(_within(found, scope)))
    candidates = hierarchy.nodes if scope is None else tuple(scope.walk())
    tiers = _BARE_ORDER if parsed.kind == "any" else (parsed.kind,)
    for tier in tiers:
        matches = tuple(node for node in candidates if _matches(tier, parsed, node, hierarchy))
        if matches:
            return Resolution(parsed, tier, _prefer_visible(matches))
    return Resolution(parsed, None, ())


def _matches(tier: str, selector: Selector, node: NativeNode, hierarchy: Hierarchy) -> bool:
    if tier == "testID":
        return node.test_id is not None and matches_test_id(node.test_id, selector.value, selector.ignore_case)
    if tier == "label":
        return _same(node.name, selector.value, selector.ignore_case)
    if tier == "text":
        return _same(node.text, selector.value, selector.ignore_case)
    if node.role != selector.value:
        return False
    return selector.name is None or _same(hierarchy.name_of(node), selector.name, selector.ignore_case)


def matches_test_id(test_id: str, query: str, ignore_case: bool = False) -> bool:
    """``query`` names ``test_id`` exactly, or names its unqualified part (``pkg:id/x``)."""
    if ignore_case:
        test_id, query = test_id.casefold(), query.casefold()
    return test_id == query or (":id/" not in query and short_test_id(test_id) == query)


def _same(value: str, wanted: str, ignore_case: bool) -> bool:
    if not value:
        return False
    value = collapse(value)
    return value.casefold() == wanted.casefold() if ignore_case else value == wanted


def _within(nodes: tuple[NativeNode, ...], scope: NativeNode | None) -> tuple[NativeNode, ...]:
    if scope is None:
        return nodes
    depth = len(scope.path)
    return tuple(node for node in nodes if node.path[:depth] == scope.path)


def _prefer_visible(nodes: tuple[NativeNode, ...]) -> tuple[NativeNode, ...]:
    visible = tuple(node for node in nodes if node.visible)
    return visible or nodes
