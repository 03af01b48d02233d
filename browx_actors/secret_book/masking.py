"""Masking: every registered value, in every spelling, back to its ``<NAME>`` alias.

Masking runs on every result, so it is built once per set of secrets (:func:`masker`,
cached): for each value, its :func:`~.spellings.pattern` compiled, its base64 forms,
and its :func:`~.spellings.anchors`, longest value first, so a secret that contains
another is masked whole.

Most text holds no secret, and saying so is what costs. A value's pattern runs on a
text only when the text holds all of the value's anchors (its runs of letters, digits
and ``-._``, which every spelling keeps as they are), and its base64 forms are
substring tests; both are C searches, a few microseconds for a 10 KB text.
:meth:`Masker.deep` asks the whole value's JSON text first: every spelling stays a
spelling once JSON-escaped (the pattern takes any run of backslashes before an escaped
character), so a text that may hold nothing (and has no clipped fragment at an
ellipsis) means no string or key does, and the value goes on untouched, the very same
object. Only a result that may hold a secret is walked.

A page agent clips long text with an ellipsis; the clipped part of a secret is still a
secret, so at an ellipsis the head or tail of any spelling, down to
:data:`MIN_FRAGMENT` characters, is masked too.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Iterable, Mapping

import attrs

from ..jsonsafe import JsonValue
from .spellings import anchors, base64_forms, pattern, spellings

__all__ = ["ELLIPSIS", "MIN_FRAGMENT", "Masker", "Secrets", "masker", "pairs_of"]

#: Secrets to mask: name -> value, or (name, value) pairs when one name has several values.
Secrets = Mapping[str, str] | Iterable[tuple[str, str]]

#: Text the page agent clips gets this mark.
ELLIPSIS = "\u2026"
#: Shortest clipped fragment still masked. Shorter ones carry too little of the
#: value to matter and would mask ordinary words.
MIN_FRAGMENT = 3


def pairs_of(secrets: Secrets) -> tuple[tuple[str, str], ...]:
    """``secrets`` as (name, value) pairs, the key :func:`masker` caches by."""
    items = secrets.items() if isinstance(secrets, Mapping) else secrets
    return tuple(items)


@attrs.frozen
class _Value:
    """One registered value, compiled."""

    alias: str
    pattern: re.Pattern[str]
    anchors: tuple[str, ...]
    #: The base64 forms, longest first, and the shortest text that finds any of them.
    base64: tuple[str, ...]
    base64_probes: tuple[str, ...]

    def may_be_in(self, text: str) -> bool:
        return all(anchor in text for anchor in self.anchors) or any(form in text for form in self.base64_probes)

    def masked(self, text: str) -> str:
        if all(anchor in text for anchor in self.anchors):
            text = self.pattern.sub(self.alias, text)
        if any(form in text for form in self.base64_probes):
            for form in self.base64:
                text = text.replace(form, self.alias)
        return text


@attrs.frozen
class _Fragments:
    """Each distinct spelling of every value, by its first and by its last character:
    what a text clipped at an ellipsis is held to."""

    by_first: Mapping[str, tuple[tuple[str, str], ...]]
    by_last: Mapping[str, tuple[tuple[str, str], ...]]
    firsts: re.Pattern[str]
    lasts: re.Pattern[str]
    longest: int

    @classmethod
    def of(cls, forms: Iterable[tuple[str, str]]) -> _Fragments:
        by_first: dict[str, list[tuple[str, str]]] = {}
        by_last: dict[str, list[tuple[str, str]]] = {}
        for form, alias in sorted(set(forms), key=lambda pair: (-len(pair[0]), pair)):
            by_first.setdefault(form[0], []).append((form, alias))
            by_last.setdefault(form[-1], []).append((form, alias))
        longest = max((len(form) for group in by_first.values() for form, _ in group), default=0)
        return cls({k: tuple(v) for k, v in by_first.items()}, {k: tuple(v) for k, v in by_last.items()},
                   _one_of(by_first), _one_of(by_last), longest)

    def head(self, piece: str) -> tuple[int, str]:
        """The longest end of ``piece`` that is a proper start of a spelling (and its alias)."""
        start = max(0, len(piece) - self.longest + 1)
        for found in self.firsts.finditer(piece, start, len(piece) - MIN_FRAGMENT + 1):
            end = piece[found.start():]
            for form, alias in self.by_first[found.group()]:
                if len(form) > len(end) and form.startswith(end):
                    return len(end), alias
        return 0, ""

    def tail(self, piece: str) -> tuple[int, str]:
        """The longest start of ``piece`` that is a proper end of a spelling (and its alias)."""
        found = list(self.lasts.finditer(piece, MIN_FRAGMENT - 1, min(len(piece), self.longest - 1)))
        for last in reversed(found):
            start = piece[: last.end()]
            for form, alias in self.by_last[last.group()]:
                if len(form) > len(start) and form.endswith(start):
                    return len(start), alias
        return 0, ""


def _one_of(chars: Iterable[str]) -> re.Pattern[str]:
    """Any one of ``chars`` (nothing at all when there are none)."""
    listed = "".join(re.escape(char) for char in chars)
    return re.compile(f"[{listed}]" if listed else "(?!)")


@attrs.frozen
class Masker:
    """One set of secrets, compiled."""

    values: tuple[_Value, ...]
    fragments: _Fragments

    def text(self, text: str) -> str:
        """``text`` with every secret masked (the same object when there was none)."""
        masked = text
        for value in self.values:
            masked = value.masked(masked)
        if ELLIPSIS in masked:
            masked = self._clipped(masked)
        return text if masked == text else masked

    def may_hold(self, text: str) -> bool:
        """Whether ``text`` may hold a secret, whole or clipped (a no is certain)."""
        if any(value.may_be_in(text) for value in self.values):
            return True
        return ELLIPSIS in text and self._clipped(text) != text

    def deep(self, data: JsonValue, text: str | None = None) -> JsonValue:
        """Every string and key of JSON-shaped ``data`` masked; fields named ``*Base64``
        hold binary payloads (pixels), not text, and are left alone: a secret's bytes
        there would be a coincidence, and rewriting them corrupts the image. Returns
        ``data`` itself when nothing changed, copying only what did. ``text`` is
        ``data`` as JSON (non-ASCII as itself), when the caller has it."""
        if isinstance(data, str):
            return self.text(data)
        if text is None:
            try:
                text = json.dumps(data, ensure_ascii=False)
            except (TypeError, ValueError, RecursionError):  # not JSON data: walk it all
                return self._walk(data)
        return self._walk(data) if self.may_hold(text) else data

    def _walk(self, data: JsonValue) -> JsonValue:
        if isinstance(data, str):
            return self.text(data)
        if isinstance(data, dict):
            out = {}
            changed = False
            for key, value in data.items():
                new_key = self.text(key) if isinstance(key, str) else key
                skip = isinstance(key, str) and key.endswith("Base64")
                new_value = value if skip else self._walk(value)
                changed = changed or new_key is not key or new_value is not value
                out[new_key] = new_value
            return out if changed else data
        if isinstance(data, (list, tuple)):
            items = [self._walk(value) for value in data]
            if all(new is old for new, old in zip(items, data, strict=True)):
                return data
            return items
        return data

    def _clipped(self, text: str) -> str:
        """Mask a spelling's head cut off before an ellipsis, or its tail cut off after one."""
        pieces = text.split(ELLIPSIS)
        last = len(pieces) - 1
        for i, piece in enumerate(pieces):
            if i < last:  # text before an ellipsis: does it end with a head?
                size, alias = self.fragments.head(piece)
                if size:
                    piece = piece[: len(piece) - size] + alias
            if i > 0:  # text after an ellipsis: does it start with a tail?
                size, alias = self.fragments.tail(piece)
                if size:
                    piece = alias + piece[size:]
            pieces[i] = piece
        return ELLIPSIS.join(pieces)


def _searched_first(runs: tuple[str, ...]) -> tuple[str, ...]:
    """Anchors longest first: the likeliest to be missing, so the search stops soonest."""
    return tuple(sorted(runs, key=lambda run: -len(run)))


def _unpadded(forms: tuple[str, ...]) -> tuple[str, ...]:
    """What to look for to find any of the base64 forms: each padded one holds its
    unpadded start, and standard and URL-safe are often the same."""
    return tuple(dict.fromkeys(form.rstrip("=") for form in forms))


@functools.lru_cache(maxsize=64)
def masker(pairs: tuple[tuple[str, str], ...]) -> Masker | None:
    """The compiled masker of one set of (name, value) pairs (None for no secrets)."""
    aliases: dict[str, str] = {}
    for name, value in pairs:
        aliases.setdefault(value, f"<{name}>")
    if not aliases:
        return None
    # Longest value first: where one holds another, the one that holds it is masked whole.
    ordered = sorted(aliases.items(), key=lambda item: (-len(item[0]), item[0]))
    values = tuple(_compiled(value, alias) for value, alias in ordered)
    forms = [(form, alias) for value, alias in ordered for form in _fragments_of(value)]
    return Masker(values, _Fragments.of(forms))


# Each value is compiled once, whatever set it is in: a session registering its tenth
# secret compiles that one, not all ten again.
@functools.lru_cache(maxsize=1024)
def _compiled(value: str, alias: str) -> _Value:
    encoded = base64_forms(value)
    return _Value(alias, re.compile(pattern(value)), _searched_first(anchors(value)), encoded, _unpadded(encoded))


@functools.lru_cache(maxsize=1024)
def _fragments_of(value: str) -> tuple[str, ...]:
    return tuple(dict.fromkeys(form for form in spellings(value).values() if len(form) > MIN_FRAGMENT))
