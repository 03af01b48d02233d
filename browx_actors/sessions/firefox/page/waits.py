"""``wait_for`` and ``poll_eval`` on firefox: ``Later`` waits that poll the page.

Both run as tasks in the session's nursery (a :class:`~...kernel.actor.Later`), so the
session keeps serving other calls while they wait, as on chromium. They are bound to
the tab current when they were asked (its BiDi context), not to whatever tab is current
later. Each check is one round trip; between checks a wait sleeps until the session's
next event (a navigation, a log line, a request: what may have changed the page) or
:data:`CHECK_S`, whichever comes first, since DOM changes send no BiDi event.

``wait_for`` checks in the page agent's sandbox: ``text`` / ``textGone`` find the
innermost elements whose text holds the words (case-insensitive, whitespace
collapsed, the text of scripts and styles left out), ``selector`` is CSS (the first
match, as Playwright's ``.first``), ``ref`` the agent's ref; ``visible`` is the
agent's own visibility test. ``url`` is matched against the tab's URL as the session
tracks it from navigation events, with Playwright's glob (``**`` anything, ``*``
anything but ``/``). A timeout answers ``timeout`` naming the condition and its
state, in chromium's words.

``poll_eval`` evaluates in the page's own realm as ``eval_js`` does (``script.evaluate``,
a function source called; a Promise awaited) and tests the value with ``until``
(``value => boolean``, default truthiness) in the page, the value passed by handle so
DOM nodes work; handles of an attempt are released when the next one is made.
"""

from __future__ import annotations

import contextlib
import json
import re
from typing import TYPE_CHECKING

import trio

from ....bidi import BidiError, BidiFailure, BidiTimeout
from ....bidi.values import to_json
from ....errors import ToolError
from ....jsonsafe import JsonObject, JsonValue
from ....kernel.actor import Later
from ....tools import Reply
from ....tools.network import glob_regex
from ....tools.page import PollEvalArgs, WaitForArgs
from ...chromium.losses import PageScriptError
from ...chromium.reading.poll import _LAST_VALUE_MAX, poll_until
from .. import sandbox

if TYPE_CHECKING:
    from ..session import FirefoxSession

__all__ = ["CHECK_S", "poll_eval", "url_matches", "wait_for"]

#: The longest a wait goes without checking the page again (DOM changes send no event).
CHECK_S = 0.1
#: One round trip of a check may take this long.
_CALL_S = 10.0

#: ``(agent, {condition, value, state})``: whether the condition holds now.
_CHECK = """(agent, c) => {
  const visible = el => !!el && el.isConnected && agent.describe(el).visible;
  let els;
  if (c.condition === 'ref') {
    const el = agent.resolve(c.value);
    els = el ? [el] : [];
  } else if (c.condition === 'selector') {
    try { const el = document.querySelector(c.value); els = el ? [el] : []; }
    catch (e) { return {badSelector: String(e.message || e)}; }
  } else {
    const norm = s => (s || '').replace(/\\s+/g, ' ').trim().toLowerCase();
    const want = norm(c.value);
    els = [];
    const skip = new Set(['SCRIPT', 'STYLE', 'NOSCRIPT', 'TEMPLATE']);
    // One pass, children first: [an element inside matched, this element's text]. The
    // innermost elements whose own text (scripts and styles left out) holds the words match.
    const walk = el => {
      let inner = false, text = '';
      for (const node of el.childNodes) {
        if (node.nodeType === 3) text += node.data;
        else if (node.nodeType === 1 && !skip.has(node.tagName)) {
          const [found, sub] = walk(node);
          inner = inner || found;
          text += sub;
        }
      }
      if (!inner && norm(text).includes(want)) { els.push(el); return [true, text]; }
      return [inner, text];
    };
    if (document.body) walk(document.body);
  }
  const state = c.condition === 'textGone' ? 'hidden' : c.state;
  if (state === 'attached') return {met: els.length > 0};
  if (state === 'detached') return {met: els.length === 0};
  const shown = c.condition === 'selector' || c.condition === 'ref' ? visible(els[0]) : els.some(visible);
  return {met: state === 'visible' ? shown : !shown};
}"""


def url_matches(url: str, pattern: str) -> bool:
    """Playwright's ``wait_for_url`` glob, over the whole URL."""
    try:
        return glob_regex(pattern).fullmatch(url) is not None
    except (ValueError, re.error):
        return url == pattern


async def wait_for(session: FirefoxSession, args: WaitForArgs) -> Later:
    """Waits run as a task in the session's nursery, so the session keeps serving."""
    conditions = (("text", args.text), ("textGone", args.text_gone), ("selector", args.selector), ("ref", args.ref),
                  ("url", args.url))
    condition, value = next((name, value) for name, value in conditions if value is not None)
    if condition == "url":
        try:
            glob_regex(value)
        except ValueError as err:
            raise ToolError("bad-arg", str(err), field="url") from err
    return Later.of(_wait, session, session.tab.context, condition, value, args.state, args.timeout_ms)


async def _met(session: FirefoxSession, context: str, condition: str, value: str, state: str) -> bool:
    tab = session.tabs.of(context)
    if tab is None:
        raise ToolError("tab-closed", f"the tab closed while wait_for waited for {condition}")
    if condition == "url":
        return url_matches(tab.url, value)
    try:
        answer = await sandbox.call(session.bidi, context, _CHECK,
                                    {"condition": condition, "value": value, "state": state}, timeout=_CALL_S)
    except (PageScriptError, BidiError, BidiTimeout):
        return False  # between documents, or a page busy for a moment: the next check tells
    if isinstance(answer, dict) and "badSelector" in answer:
        raise ToolError("bad-arg", f"selector {value!r} is not a CSS selector: firefox sessions take CSS "
                        f"(Playwright's text=, role= and >> engines are chromium's); {answer['badSelector']}",
                        field="selector")
    return isinstance(answer, dict) and bool(answer.get("met"))


async def _wait(session: FirefoxSession, context: str, condition: str, value: str, state: str,
                timeout: int) -> Reply:
    """Wait until ``condition`` (its JSON name) on ``value`` reaches ``state``."""
    started = trio.current_time()
    with trio.move_on_after(timeout / 1000):
        while not await _met(session, context, condition, value, state):
            await session.news(CHECK_S)
        tab = session.tabs.of(context)
        return Reply.of(condition=condition, state=state, waitedMs=round((trio.current_time() - started) * 1000, 1),
                        url=None if tab is None else tab.url)
    raise ToolError("timeout", f"waited {timeout} ms for {condition} ({state}): not met")


# -- poll_eval ------------------------------------------------------------------------


_SERIALIZE: JsonObject = {"maxDomDepth": 0, "maxObjectDepth": 20}
_CALL_IT = "function () { return this(); }"
_TRUTHY = "(value) => !!value"


class _Evaluator:
    """The BiDi calls of one poll on one tab: evaluate, test; the value's handles owned
    until the next attempt."""

    def __init__(self, session: FirefoxSession, context: str, expr: str, until: str | None) -> None:
        self.session = session
        self.context = context
        self.expr = expr
        self.until = until or _TRUTHY
        self.handles: list[str] = []

    async def _send(self, method: str, params: JsonObject, what: str) -> JsonObject:
        """One call in the page realm; a script that threw comes back as ``{"thrown": message}``."""
        params = {**params, "target": {"context": self.context}, "awaitPromise": True,
                  "serializationOptions": _SERIALIZE}
        try:
            answer = await self.session.bidi.send(method, params, timeout=_CALL_S)
        except BidiTimeout as err:
            raise ToolError("timeout", f"poll_eval: the page did not answer ({what})") from err
        except BidiError as err:
            if err.error == "no such frame":
                raise ToolError("tab-closed", "the tab closed while poll_eval waited") from err
            raise ToolError("eval-error", f"{what}: {err.message or err.error}") from err
        if answer.get("type") != "exception":
            handle = (answer.get("result") or {}).get("handle")
            if isinstance(handle, str):
                self.handles.append(handle)
            return answer
        details = answer.get("exceptionDetails") or {}
        message = str(details.get("text") or "an error").splitlines()[0]
        if message.startswith("SyntaxError"):  # it will never run: say so now
            raise ToolError("eval-error", f"{what}: {message}")
        return {"thrown": f"{what} threw: {message}"}

    async def probe(self) -> tuple[bool, JsonObject]:
        """One attempt: whether the condition holds, and the value (BiDi's remote value,
        or ``{"thrown": message}``: the page may not be ready yet)."""
        await self.release()
        reply = await self._send("script.evaluate", {"expression": self.expr, "resultOwnership": "root"}, "expr")
        if "thrown" in reply:
            return False, reply
        value = reply["result"]
        if value.get("type") == "function":
            reply = await self._send("script.callFunction", {"functionDeclaration": _CALL_IT,
                                                             "this": {"handle": value["handle"]},
                                                             "resultOwnership": "root"}, "expr")
            if "thrown" in reply:
                return False, reply
            value = reply["result"]
        argument = {"handle": value["handle"]} if "handle" in value else value
        test = await self._send("script.callFunction", {"functionDeclaration": self.until, "arguments": [argument],
                                                        "resultOwnership": "none"}, "until")
        if "thrown" in test:
            return False, test
        return bool(to_json(test.get("result"))), value

    async def release(self) -> None:
        handles, self.handles = self.handles, []
        if handles:
            # A document that is gone took its objects with it.
            with contextlib.suppress(BidiFailure):
                await self.session.bidi.send("script.disown", {"handles": handles, "target": {"context": self.context}},
                                             timeout=_CALL_S)


def _sized(value: JsonValue, max_bytes: int) -> JsonValue:
    size = len(json.dumps(value, default=str))
    if size > max_bytes:
        raise ToolError("too-large", f"the value is {size} bytes of JSON, above maxBytes={max_bytes}",
                        sizeBytes=size)
    return value


async def poll_eval(session: FirefoxSession, args: PollEvalArgs) -> Later:
    return Later.of(_poll, session, session.tab.context, args)


async def _poll(session: FirefoxSession, context: str, args: PollEvalArgs) -> Reply:
    evaluator = _Evaluator(session, context, args.expr, args.until)
    try:
        result = await poll_until(evaluator.probe, interval_s=args.interval_ms / 1000,
                                  timeout_s=args.timeout_ms / 1000)
        elapsed = round(result.elapsed_s * 1000, 1)
        last = result.value
        if not result.met:
            details: dict[str, object] = {"attempts": result.attempts, "elapsedMs": elapsed}
            if last is not None and "thrown" in last:
                details["lastError"] = last["thrown"]
            elif last is not None:
                shown = to_json(last)
                if len(json.dumps(shown, default=str)) <= min(args.max_bytes, _LAST_VALUE_MAX):
                    details["lastValue"] = shown
            raise ToolError("timeout", f"poll_eval: the condition did not hold within {args.timeout_ms} ms "
                            f"({result.attempts} attempts)", **details)
        assert last is not None
        return Reply.of(value=_sized(to_json(last), args.max_bytes), attempts=result.attempts, elapsedMs=elapsed)
    finally:
        with trio.CancelScope(shield=True), trio.move_on_after(2):
            await evaluator.release()
