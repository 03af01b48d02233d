"""The two taxonomies a diagnostics record carries, as pure functions with tables.

``classify_eval(expr)`` names what an ``eval_js`` expression was for, so the report can
say which curated primitive agents keep reaching past (``dom-query``,
``storage-access``, ``computed-style``, ``callback-trigger``, ``feature-detect``, or
``custom`` when no rule matches). The rules are ordered; the first that matches wins:

1. ``storage-access``: ``localStorage``, ``sessionStorage``, ``indexedDB``, ``caches``,
   ``cookieStore`` or ``document.cookie``. Storage needs no DOM, so a storage read that
   also queries the DOM is still about storage.
2. ``computed-style``: ``getComputedStyle``, ``getBoundingClientRect``,
   ``getClientRects``, ``offset|client|scroll`` + ``Width|Height|Top|Left``, or
   ``.style``. Style reads usually start with a DOM query; the style is the point.
3. ``callback-trigger``: calling ``.click() .focus() .blur() .submit() .reset()
   .requestSubmit() .dispatchEvent() .scrollIntoView() .select()``, or constructing an
   ``Event`` / ``CustomEvent`` / ``MouseEvent`` / ``KeyboardEvent`` / ``InputEvent`` /
   ``PointerEvent`` / ``FocusEvent``. Triggers also query first; the effect is the point.
4. ``feature-detect``: ``typeof``, ``'x' in window|navigator|document|globalThis|self``,
   ``navigator.<prop>``, ``CSS.supports``, ``matchMedia``, or a ``window.x`` compared
   with ``undefined``.
5. ``dom-query``: ``querySelector(All)``, ``getElementById``, ``getElementsBy*``,
   ``document.evaluate``, ``$(`` / ``$$(``, ``document.title|body|documentElement|forms|
   links|images|activeElement|readyState``, or reading ``.innerText .textContent
   .innerHTML .outerHTML .value .checked .getAttribute( .closest( .matches(``.
6. ``custom``: anything else.

``failure_kind(code)`` folds the envelope's ``code`` into the five failure
kinds through the error table (:mod:`browx_actors.errors`), where every code is listed
with its kind; a code the table does not name is ``internal``.
"""

from __future__ import annotations

import re

from ..errors import failure_kind as _failure_kind

__all__ = ["EVAL_TAXONOMY", "classify_eval", "failure_kind"]

#: Every taxonomy bucket, in the order the classifier tries them (custom last).
EVAL_TAXONOMY = ("storage-access", "computed-style", "callback-trigger", "feature-detect",
                 "dom-query", "custom")

_RULES: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("storage-access", re.compile(
        r"\b(?:localStorage|sessionStorage|indexedDB|caches|cookieStore)\b|\bdocument\s*\.\s*cookie\b")),
    ("computed-style", re.compile(
        r"\bgetComputedStyle\b|\bgetBoundingClientRect\b|\bgetClientRects\b"
        r"|\.\s*(?:offset|client|scroll)(?:Width|Height|Top|Left)\b|\.\s*style\b")),
    ("callback-trigger", re.compile(
        r"\.\s*(?:click|focus|blur|submit|reset|requestSubmit|dispatchEvent|scrollIntoView|select)\s*\("
        r"|\bnew\s+(?:Custom|Mouse|Keyboard|Input|Pointer|Focus)?Event\s*\(")),
    ("feature-detect", re.compile(
        r"\btypeof\b|\bin\s+(?:window|navigator|document|globalThis|self)\b|\bnavigator\s*\.\s*\w"
        r"|\bCSS\s*\.\s*supports\b|\bmatchMedia\b"
        r"|\bwindow\s*\.\s*[A-Za-z_$][\w$]*\s*[!=]==?\s*undefined\b")),
    ("dom-query", re.compile(
        r"\bquerySelector(?:All)?\b|\bgetElementById\b|\bgetElementsBy\w+|\bdocument\s*\.\s*evaluate\b"
        r"|(?<![\w$])\$\$?\s*\("
        r"|\bdocument\s*\.\s*(?:title|body|documentElement|forms|links|images|activeElement|readyState)\b"
        r"|\.\s*(?:innerText|textContent|innerHTML|outerHTML|value|checked)\b"
        r"|\.\s*(?:getAttribute|closest|matches)\s*\(")),
)


def classify_eval(expr: str) -> str:
    """The taxonomy bucket of one eval_js expression (see the module rules)."""
    for name, pattern in _RULES:
        if pattern.search(expr):
            return name
    return "custom"


def failure_kind(code: object) -> str:
    """One of capability-denied, timeout, target-not-found, bad-arg, internal: the kind
    :data:`browx_actors.errors.CODES` gives the code (``internal`` for anything else)."""
    return _failure_kind(code)
