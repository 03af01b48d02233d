"""A page that floods its console is sampled in the page itself, before DevTools sees it.

Every DevTools session with ``Runtime`` on receives each console message, and the
renderer builds and sends it to each of them on the page's main thread. Playwright's
own session is always one of them. At tens of thousands of messages a second that work
fills the main thread, and every round trip to the page waits behind it: measured on
the flooding test page with Playwright attached, a no-op ``Runtime.evaluate`` took
2.9 s (0.4 ms on the quiet page), and with the console sampled in the page, 0.6 ms.
Sampling the events after they arrive (:class:`~.tabs.tap.Sampler`) keeps the server's
records bounded but cannot give that time back: the cost is paid before they leave the
renderer.

Uncaught exceptions and rejections cost the same way (``Runtime.exceptionThrown``).

So when a tab's tap finds its console bucket dry (:meth:`~.tabs.tap.TabTap.skip`), the
session installs :data:`SAMPLER_JS` in the execution context the flood comes from, and
from then on in every new document of that tab before its own scripts run
(:func:`sample_new_documents`): a tab that flooded once is likely to again after a
reload, and a document that starts sampled is sampled from its first message, also for
a library that keeps its own reference to ``console.log``. It wraps the page's
``console`` methods (it runs in any global scope, a worker's too) and listens
for uncaught ``error`` and ``unhandledrejection`` events; each second it lets
:data:`PAGE_BUDGET` messages of each kind (errors, everything else) through, a tenth in
each tenth of a second, and counts the rest by level, cancelling the events it holds
back. At the end of a second that
held some back it says how many in one ``console.debug`` line (:data:`HELD_BACK`),
carrying the session's nonce so the tap can tell it from the page's own words
(:func:`held_back_counts`) and count them as seen.
After a calm second it puts the page's own methods back.

The price, while it is installed: a message that goes through has the wrapper as the
top frame of its stack, so DevTools shows the wrapper's location for it; and the
page's ``console.log`` is not its own function. Both end when the page calms down (in
a later document of a tab that flooded, after its first calm second) or the document
goes.
"""

from __future__ import annotations

import contextlib
import json

from ....cdp import CdpFailure, TargetLink
from ....jsonsafe import JsonObject

__all__ = ["HELD_BACK", "PAGE_BUDGET", "SAMPLER_JS", "held_back_counts", "install_sampler", "sample_new_documents",
           "sampler_call"]

#: Messages of each kind (errors; everything else) a flooding page sends each second.
#: Below the tap's own rate (:data:`~.tabs.tap.SAMPLE_RATE`), so what arrives is all recorded.
PAGE_BUDGET = 200

#: The first argument of the line that says what a second held back.
HELD_BACK = "[browx] console messages held back in the page (info, warnings, errors):"

#: ``(nonce, budget, now?) => installed``: ``now`` is for tests (default performance.now).
SAMPLER_JS = """(nonce, budget, now) => {
  const con = globalThis.console;
  const KEY = Symbol.for('browx.consoleSampler');
  if (!con || con[KEY]) return false;
  const clock = now || (() => performance.now());
  const names = ['log', 'info', 'debug', 'warn', 'error', 'trace', 'dir', 'dirxml', 'table'];
  const levels = { error: 'error', warn: 'warn' };
  const report = con.debug;
  const originals = {}, wrappers = {}, mark = {};
  // A tenth of the budget in each tenth of a second: a second's budget sent at once
  // held the page's main thread up to 130 ms (a worker's messages are relayed there).
  const per = Math.max(1, Math.ceil(budget / 10));
  // The first second starts at the first message: a sampler put in before its scope's
  // scripts run (a new document, a worker held at its start) may wait long for one.
  // errors and others count this tenth's messages of each kind.
  let start = null, tenth = 0, calls = 0, errors = 0, others = 0;
  let held = { info: 0, warn: 0, error: 0 };
  const restore = () => {
    for (const name of Object.keys(wrappers)) if (con[name] === wrappers[name]) con[name] = originals[name];
    for (const type of ['error', 'unhandledrejection']) globalThis.removeEventListener(type, uncaught, true);
    if (con[KEY] === mark) delete con[KEY];  // a later sampler's mark is its own
  };
  // An uncaught exception or rejection past the budget is cancelled, which is what keeps
  // the browser from reporting it to every DevTools client; counted as a held error.
  const uncaught = (event) => {
    if (due(clock())) return;
    calls++;
    if (errors++ < per) return;
    held.error++;
    event.preventDefault();
  };
  // Has a second ended, and was it calm (the console is then the page's again)?
  const due = (t) => {
    if (start === null) start = t;
    if (t - start >= 1000 && roll(t)) return true;
    const at = Math.floor((t - start) / 100);
    if (at !== tenth) { tenth = at; errors = 0; others = 0; }
    return false;
  };
  // A second ended: say what it held back; after a calm one the console is the page's again.
  const roll = (t) => {
    if (held.info || held.warn || held.error) report.call(con, HELD_BACK, held.info, held.warn, held.error, nonce);
    held = { info: 0, warn: 0, error: 0 };
    const calm = calls < budget / 4 || t - start >= 2000;
    start = t; tenth = 0; calls = 0; errors = 0; others = 0;
    if (calm) restore();
    return calm;
  };
  for (const name of names) {
    const original = con[name];
    if (typeof original !== 'function') continue;
    const level = levels[name] || 'info';
    originals[name] = original;
    wrappers[name] = con[name] = function (...args) {
      if (due(clock())) return original.apply(this, args);
      calls++;
      if (level === 'error' ? errors++ < per : others++ < per) return original.apply(this, args);
      held[level]++;
    };
  }
  for (const type of ['error', 'unhandledrejection']) globalThis.addEventListener(type, uncaught, true);
  Object.defineProperty(con, KEY, { value: mark, configurable: true });
  return true;
}""".replace("HELD_BACK", json.dumps(HELD_BACK))

_LEVELS = ("info", "warn", "error")


def held_back_counts(params: JsonObject, nonce: str) -> dict[str, int] | None:
    """The counts a ``Runtime.consoleAPICalled`` reports, if it is the sampler's line
    with this session's ``nonce``; None for anything else (the page's own messages)."""
    if params.get("type") != "debug":
        return None
    args = params.get("args")
    if not isinstance(args, list) or len(args) != 5:
        return None
    values = [arg.get("value") if isinstance(arg, dict) else None for arg in args]
    if values[0] != HELD_BACK or values[4] != nonce:
        return None
    counts: dict[str, int] = {}
    for level, n in zip(_LEVELS, values[1:4], strict=True):
        if not isinstance(n, int) or isinstance(n, bool) or n < 0:
            return None
        counts[level] = n
    return counts


def sampler_call(nonce: str) -> str:
    """The expression that installs the sampler signed with ``nonce`` where it runs."""
    return f"({SAMPLER_JS})({json.dumps(nonce)}, {PAGE_BUDGET})"


async def install_sampler(cdp: TargetLink, context_id: int, nonce: str) -> bool:
    """Install the sampler in one execution context; False if it was there already or
    the context went (a navigation) before it could be."""
    expression = sampler_call(nonce)
    try:
        reply = await cdp.send("Runtime.evaluate", {"expression": expression, "contextId": context_id,
                                                    "returnByValue": True}, timeout=30)
    except CdpFailure:
        return False
    return bool((reply.get("result") or {}).get("value"))


async def sample_new_documents(cdp: TargetLink, nonce: str) -> None:
    """Install the sampler in every later document of ``cdp``'s target, in every frame,
    before the document's own scripts (``Page.addScriptToEvaluateOnNewDocument``)."""
    source = sampler_call(nonce)
    with contextlib.suppress(CdpFailure):  # the target is going away
        await cdp.send("Page.addScriptToEvaluateOnNewDocument", {"source": source}, timeout=30)
