"""The two ``__browx`` helpers, as JavaScript sources the bridge evaluates over CDP.

* :func:`world_helper` runs in the session's ``browxai-<random>`` isolated world, the
  one a human reaches from DevTools by switching the console's context dropdown. Each
  method packs its call as ``{"m": method, "t": ticket, "v": value}`` and hands it to
  the CDP binding, which exists only in contexts of that world name. The binding is
  looked up at call time, so the helper may be evaluated before or after the binding
  is added.
* :data:`MAIN_HELPER` runs in the page's main world, where the page's own scripts
  live. It is display-only: every method logs where the real channel is and returns
  false, and it is a plain writable property, so a page can call, replace or delete it
  and the server never notices. It deliberately does not name the world: the page has
  no business knowing it.
"""

from __future__ import annotations

import json

__all__ = ["MAIN_HELPER", "world_helper"]

_WORLD_TEMPLATE = r"""(() => {
  if (globalThis.__browx) return;
  const binding = __BINDING__;
  const send = (m, t, v) => {
    const deliver = globalThis[binding];
    if (typeof deliver !== "function") {
      console.warn("[browx] the answer channel is not connected in this context");
      return false;
    }
    let payload;
    try {
      payload = JSON.stringify({m, t: t === undefined ? null : t, v: v === undefined ? null : v});
    } catch (error) {
      console.warn("[browx] that value cannot be sent: " + error);
      return false;
    }
    deliver(payload);
    return true;
  };
  const api = {
    signal(name, data) { return send("signal", null, {name: String(name), data: data === undefined ? null : data}); },
    proceed(ticket, data) { return send("proceed", ticket, data); },
    abort(reason, ticket) { return send("abort", ticket, reason === undefined ? null : String(reason)); },
    done(what, data) { return api.signal("did", {what, data: data === undefined ? null : data}); },
    respond(value, ticket) { return send("respond", ticket, value); },
    confirm(yes, ticket) { return send("confirm", ticket, yes); },
    choose(index, ticket) { return send("choose", ticket, index); },
    input(text, ticket) { return send("input", ticket, text); },
    status() { return {state: "ready"}; },
  };
  Object.defineProperty(globalThis, "__browx", {
    value: Object.freeze(api), enumerable: false, configurable: false, writable: false,
  });
})();"""


def world_helper(binding_name: str) -> str:
    """The isolated-world helper, bound to this session's binding name."""
    return _WORLD_TEMPLATE.replace("__BINDING__", json.dumps(binding_name))


MAIN_HELPER = r"""(() => {
  const note = "[browx] window.__browx in the page is display-only. The real channel lives in " +
    "the session's isolated browxai-... world named by the await_human prompt on the server's " +
    "stderr: in DevTools, switch the console context from \"top\" to that world and call __browx there.";
  const say = () => { try { console.info(note); } catch (error) {} return false; };
  const api = {
    signal: say, proceed: say, abort: say, done: say, respond: say,
    confirm: say, choose: say, input: say,
    status: () => ({state: "display-only"}),
  };
  try { window.__browx = api; } catch (error) {}
})();"""
