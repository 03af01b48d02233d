"""The page agent: the script that gives the server snapshots, refs and lookups.

The page agent (the modules of ``agent/``, joined into one closure by
:mod:`.agent.source`) runs in the page's main world: installed with ``add_init_script``
for new documents and with a plain ``evaluate`` for pages that were already loaded. It
puts one frozen object under the non-enumerable ``window[AGENT_KEY]`` property; this
module holds its source and builds the small JavaScript snippets and argument dicts
that call it. It has no Playwright dependency: the callers evaluate what it returns.

Methods of the agent object (all arguments and results are JSON-able, except that
``resolve`` returns an Element and ``refFor`` / ``describe`` accept one):

- ``snapshot({scope?, maxNodes?, omit?, includeHidden?, urls?})`` ->
  ``{text, nodeCount, truncated, refCount, title, url}``
- ``resolve(ref)`` -> Element or null
- ``refFor(element)`` -> ref
- ``describe(refOrElement)`` -> ``{ref, role, name, tag, visible, enabled, focused, ...}``
- ``find({role?, name?, text?, testId?, exact?, limit?, scope?, includeHidden?})`` ->
  ``{matches: [{ref, role, name, selectorHint}], count}``
- ``textSearch({query, limit?, caseSensitive?})`` -> ``{matches: [{ref, role, snippet}], count}``
- ``mark()`` -> ``{marked: true}``; ``markedUrl()`` -> the document's URL at the mark;
  ``changes({limit?})`` ->
  ``{appeared, removed, truncated, leaving}`` (``leaving``: the url of a cross-document
  navigation started since the mark and not yet committed, else null); ``quiet({budgetMs?})``
  -> a Promise of ``{waited, ms, timedOut}``, once the animations, short timers and frames
  the page started since the mark are done
- ``count(selector)`` -> int; ``hit(x, y)`` -> ``{ref, role, name}`` or null
- ``aim({ref?, selector?, point?, mode?, acting?, mark?, scroll?})`` -> marks the page,
  finds an action's target and, for ``mode`` click / hover / fill, readies it for direct
  input: ``{count, target, ready?, via?, wait?, why?, coveredBy?, cannot?}``
  (``agent/reach.js``), ``{stale: true}``, ``{unknownRef: true}`` (a ref never issued in
  this document) or ``{notCss: true}``
- ``anchorOf({ref})`` -> ``{anchor, target, found, same}``; ``findAnchored([anchor])`` ->
  ``[{ref, role, name, count}]``: named refs (``agent/anchors.js``)
- ``findFeedback({limit?})`` -> ``{items, count, truncated, baseline}`` (``agent/feedback.js``)
- ``inspect({ref, styles?})`` -> ``{target, box, inViewport, styles, attributes, attributeCount}``
- ``fieldText(ref)`` -> ``{editor, text}``: the text an editor shows (``agent/editors.js``)
- ``findOption({trigger, name, exact?})`` -> ``{ref?, name?, count, scope, candidates, total}``;
  ``optionChosen({trigger, option, name})`` -> ``{chosen, by?, actual}`` (``agent/forms.js``)
- ``watchDrag()``; ``dragState(timeoutMs)`` -> a Promise of ``{moved, started, prevented}``
- ``visualTree({properties?, limit?})`` -> ``{document, root, count, omitted, url, title}``:
  the whole element tree for the compact v2 visual tree (``agent/visualtree.js``)
- ``visualRef({document, id})`` -> the ref of a captured node's element, or null
- ``visualIdOf(element)`` -> ``{document, id}``: the element's node id in this
  document's visual-tree captures

Errors the agent throws start with a code and a colon (``stale-element: ...``); see
:data:`AGENT_ERROR_CODES` and :func:`agent_error`.

**The page can reach the agent, and it grants the page nothing.** The property is
non-enumerable but any script can find it (``Object.getOwnPropertyNames(window)``) and
call every method. That is safe because of what the methods are: they read the
document through intrinsics captured at install (so a page that clobbers DOM methods
changes nothing), keep refs in a closure-private WeakMap, and return their answer to
whoever called; ``mark`` only sets the baseline ``changes`` compares against, and
``aim`` may scroll an element into view. None requests, opens, posts, stores, logs,
dispatches an event or changes a node, none touches anything of the server's (the
human bridge's binding lives only in its isolated world, CDP is not in the page), and
the object is frozen and its property neither writable nor configurable, so a page
cannot swap it for a forgery the server would then trust. A page that calls it learns
what it could read from its own DOM, and can at worst mislead the server about itself
(a ``mark`` of its own shrinks the next action's ``structure`` report), as it could by
changing its own document anyway. ``tests/chromium/test_agent_reach.py`` holds the
agent to this.
"""

from __future__ import annotations

import json
import re

from ....jsonsafe import JsonObject, JsonValue
from .source import AGENT_KEY, load_agent_source

__all__ = [
    "AGENT_CALL",
    "AGENT_ERROR_CODES",
    "AGENT_KEY",
    "AGENT_METHODS",
    "AGENT_SOURCE",
    "agent_error",
    "call_expression",
    "call_function",
    "changes_args",
    "ensure_call_expression",
    "find_args",
    "highest_ref",
    "normalize_ref",
    "snapshot_args",
    "text_search_args",
]

#: The agent's methods, as callable through :func:`call_expression` / :func:`call_function`.
AGENT_METHODS = frozenset({
    "snapshot", "resolve", "refFor", "describe", "find", "textSearch",
    "mark", "changes", "quiet", "markedUrl", "count", "hit", "aim",
    "anchorOf", "findAnchored", "findFeedback", "inspect", "findOption", "optionChosen", "fieldText",
    "watchDrag", "dragState", "visualTree", "visualRef", "visualIdOf",
})

#: Codes the agent puts in front of an error message (``"stale-element: ref e5 ..."``).
AGENT_ERROR_CODES = ("stale-element", "unknown-ref", "not-found", "bad-selector", "bad-arg", "not-marked")

_REF_RE = re.compile(r"^\s*\[?\s*(?:ref\s*=\s*)?(e\d+)\s*\]?\s*$")
_REF_IN_TEXT = re.compile(r"\[ref=e(\d+)\]")
_REF_VALUE = re.compile(r"^e(\d+)$")
_ERROR_RE = re.compile(r"\b(" + "|".join(re.escape(c) for c in AGENT_ERROR_CODES) + r"):\s*(.*)")


#: The full script (the modules of ``agent/`` joined into one closure), ready for
#: ``add_init_script`` or ``evaluate``. Evaluating it again on a page that already has
#: the agent changes nothing (refs survive).
AGENT_SOURCE: str = load_agent_source()

#: ``([method, arg]) => agent[method](arg)``: one round trip to the agent, or
#: ``{__browxMissing: true}`` on a page that lacks it (created before the init script,
#: or a document it could not reach), where the caller installs it and asks again.
AGENT_CALL = f"""([method, arg]) => {{
  const agent = window[{AGENT_KEY!r}];
  if (!agent) return {{__browxMissing: true}};
  return agent[method](arg);
}}"""

_AGENT = f"window[{json.dumps(AGENT_KEY)}]"


def _check_method(method: str) -> None:
    if method not in AGENT_METHODS:
        raise ValueError(f"unknown page agent method {method!r}; known: {sorted(AGENT_METHODS)}")


def call_expression(method: str, *args: JsonValue) -> str:
    """A JS expression calling ``method`` with ``args`` embedded as JSON literals.

    For CDP ``Runtime.evaluate`` (``returnByValue``) or Playwright ``evaluate`` without
    an argument: ``call_expression("snapshot", {"maxNodes": 50})``.
    """
    _check_method(method)
    literals = ", ".join(json.dumps(arg) for arg in args)
    return f"{_AGENT}.{method}({literals})"


def ensure_call_expression(method: str, *args: JsonValue) -> str:
    """Like :func:`call_expression`, but installs the agent first when the page lacks it.

    It carries the whole script, so use it for a first call on a page that may not have
    the init script (an attached browser's existing tab), not for every call.
    """
    call = call_expression(method, *args)
    return f"(() => {{ if (!({json.dumps(AGENT_KEY)} in window)) {{ {AGENT_SOURCE}\n}} return {call}; }})()"


def call_function(method: str) -> str:
    """A JS function ``(arg) => agent.method(arg)`` for ``page.evaluate(fn, arg)``.

    ``resolve`` and ``describe`` pair with ``evaluate_handle`` / element handles:
    ``page.evaluate_handle(call_function("resolve"), "e5")``.
    """
    _check_method(method)
    if method == "hit":
        return f"([x, y]) => {_AGENT}.hit(x, y)"
    if method == "mark":
        return f"() => {_AGENT}.mark()"
    return f"(arg) => {_AGENT}.{method}(arg)"


def normalize_ref(value: str) -> str | None:
    """``"e5"``, ``"ref=e5"`` and ``"[ref=e5]"`` -> ``"e5"``; anything else -> None."""
    match = _REF_RE.match(value)
    return match.group(1) if match else None


def _compact(**fields: JsonValue) -> JsonObject:
    return {key: value for key, value in fields.items() if value is not None}


def snapshot_args(
    scope: str | None = None,
    max_nodes: int | None = None,
    omit: list[str] | tuple[str, ...] | None = None,
    include_hidden: bool = False,
    urls: bool | str | None = None,
) -> JsonObject:
    """Argument object of ``snapshot``; unset fields take the agent's defaults.

    ``urls`` is ``True`` (always list short link urls), ``False`` (never) or ``"auto"``
    (the default: listed while the snapshot has at most 50 links).
    """
    if max_nodes is not None and max_nodes < 1:
        raise ValueError("max_nodes must be at least 1")
    if urls is not None and urls not in (True, False, "auto"):
        raise ValueError("urls must be True, False or 'auto'")
    return _compact(
        scope=scope,
        maxNodes=max_nodes,
        omit=list(omit) if omit else None,
        includeHidden=True if include_hidden else None,
        urls=urls,
    )


def find_args(
    role: str | None = None,
    name: str | None = None,
    text: str | None = None,
    test_id: str | None = None,
    exact: bool = False,
    limit: int | None = None,
    scope: str | None = None,
) -> JsonObject:
    """Argument object of ``find``; at least one of role, name, text, test_id."""
    if role is None and name is None and text is None and test_id is None:
        raise ValueError("find needs at least one of role, name, text, test_id")
    return _compact(role=role, name=name, text=text, testId=test_id,
                    exact=True if exact else None, limit=limit, scope=scope)


def text_search_args(query: str, limit: int | None = None, case_sensitive: bool = False) -> JsonObject:
    """Argument object of ``textSearch``."""
    if not query.strip():
        raise ValueError("query must not be blank")
    return _compact(query=query, limit=limit, caseSensitive=True if case_sensitive else None)


def changes_args(limit: int | None = None) -> JsonObject:
    """Argument object of ``changes``."""
    return _compact(limit=limit)


def agent_error(message: str) -> tuple[str, str] | None:
    """``(code, detail)`` of an error the agent threw, found in a driver's message.

    Playwright reports a page exception as ``"Error: stale-element: ref e5 ..."`` plus a
    stack; the first code found wins and the detail stops at the end of its line.
    """
    match = _ERROR_RE.search(message)
    if not match:
        return None
    return match.group(1), match.group(2).strip()


def highest_ref(data: JsonValue) -> int:
    """The highest ref number a result hands the agent: ``[ref=eN]`` in a snapshot's
    text (or in a string of a list), ``"ref": "eN"`` anywhere in its fields (targets,
    matches, appeared nodes).

    Refs count up from e1 in each document, so a session that remembers the highest it
    has shown can tell a ref from an earlier page (stale) from one it never issued.
    A loop over a stack, not recursion: it runs over every result, and a visual tree's
    is tens of thousands of values with no ref among them.
    """
    best = 0
    stack = [data]
    pop, push = stack.pop, stack.append
    while stack:
        item = pop()
        if isinstance(item, dict):
            for key, value in item.items():
                if isinstance(value, (dict, list)):
                    push(value)
                elif key == "ref" and isinstance(value, str):
                    match = _REF_VALUE.match(value)
                    if match:
                        best = max(best, int(match.group(1)))
                elif key == "snapshot" and isinstance(value, str):
                    best = max(best, _highest_in_text(value))
        elif isinstance(item, list):
            stack.extend(item)
        elif isinstance(item, str):
            best = max(best, _highest_in_text(item))
    return best


def _highest_in_text(text: str) -> int:
    return max((int(n) for n in _REF_IN_TEXT.findall(text)), default=0) if "[ref=" in text else 0
