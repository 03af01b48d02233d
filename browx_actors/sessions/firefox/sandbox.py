"""The page agent in a BiDi sandbox realm: out of the page's reach, one round trip a call.

On chromium the agent lives in the page's main world (``agent/pageagent.py`` says why
that is safe there). BiDi gives better: ``script.callFunction`` with ``target:
{context, sandbox}`` runs in a sandbox realm of the document, which sees the DOM as it
is (through Firefox's Xray wrappers) but shares no JavaScript object with the page, so
page scripts can neither see the agent nor alter what it captured. The same agent
script runs there unchanged: it installs under ``window[AGENT_KEY]`` of the sandbox.

A new document gets it from a preload script registered for the session's user context
in the same sandbox (``script.addPreloadScript``), as chromium's ``add_init_script``;
a document that has none (loaded before the registration, or a ``data:`` URL it could
not reach) gets it on first use, from :func:`call`.

Arguments and answers travel as JSON text: BiDi's own value serialisation would turn an
agent answer into a tree of typed remote values several times its size. A call that
throws answers ``exception``; its text (``Error: stale-element: ...``) is raised as
:class:`~..chromium.losses.PageScriptError`, whose code prefix the handlers map.
"""

from __future__ import annotations

import json

from ...bidi import BidiConnection
from ...jsonsafe import JsonObject, JsonValue
from ..chromium.agent.pageagent import AGENT_KEY, AGENT_SOURCE
from ..chromium.losses import PageScriptError

__all__ = ["SANDBOX", "call", "evaluate_in_page", "install", "preload"]

#: The sandbox realm's name in every document of a session.
SANDBOX = "browx"

_MISSING = "__browxMissing"

#: ``(fn, arg) => ...``: runs ``fn(agent, arg)`` in the sandbox; JSON text in and out.
_WRAP = """(argText) => {{
  const agent = window[{key!r}];
  if (!agent) return '{{"{missing}": true}}';
  const fn = ({fn});
  return Promise.resolve(fn(agent, JSON.parse(argText))).then(r => JSON.stringify(r === undefined ? null : r));
}}"""

#: How a preload script is declared: a function BiDi calls once per new document.
_PRELOAD = "() => {\n" + AGENT_SOURCE + "\n}"


def _target(context: str) -> JsonObject:
    return {"context": context, "sandbox": SANDBOX}


def _unwrap(method: str, result: JsonObject) -> JsonValue:
    """The value of a ``script.*`` answer; its exception raised as PageScriptError."""
    if result.get("type") == "exception":
        details = result.get("exceptionDetails") or {}
        text = details.get("text") if isinstance(details, dict) else None
        raise PageScriptError(str(text or f"{method} threw in the page"))
    value = result.get("result")
    return value.get("value") if isinstance(value, dict) else None


async def install(bidi: BidiConnection, context: str, *, timeout: float) -> None:
    """Evaluate the agent in ``context``'s sandbox (a no-op where it is already)."""
    answer = await bidi.send("script.evaluate", {"expression": AGENT_SOURCE, "target": _target(context),
                                                 "awaitPromise": False}, timeout=timeout)
    _unwrap("installing the page agent", answer)


async def preload(bidi: BidiConnection, user_context: str) -> str:
    """Register the agent for every new document of ``user_context``; the script's id."""
    answer = await bidi.send("script.addPreloadScript", {"functionDeclaration": _PRELOAD, "sandbox": SANDBOX,
                                                         "userContexts": [user_context]})
    return str(answer["script"])


async def call(bidi: BidiConnection, context: str, fn: str, arg: JsonValue = None, *,
               timeout: float) -> JsonValue:
    """``fn(agent, arg)`` in ``context``'s sandbox (``fn`` is JavaScript source); its
    JSON answer. Installs the agent first where the document lacks it."""
    params: JsonObject = {"functionDeclaration": _WRAP.format(key=AGENT_KEY, missing=_MISSING, fn=fn),
                          "arguments": [{"type": "string", "value": json.dumps(arg)}],
                          "target": _target(context), "awaitPromise": True}
    for _attempt in range(2):
        text = _unwrap("the page agent", await bidi.send("script.callFunction", params, timeout=timeout))
        answer = json.loads(text) if isinstance(text, str) else None
        if not (isinstance(answer, dict) and answer.get(_MISSING)):
            return answer
        await install(bidi, context, timeout=timeout)
    raise PageScriptError("the page agent could not be installed in this document")


async def evaluate_in_page(bidi: BidiConnection, context: str, expression: str, *, timeout: float,
                           await_promise: bool = True) -> JsonObject:
    """``expression`` in the page's own realm (``eval_js``): BiDi's answer as it is."""
    return await bidi.send("script.evaluate", {"expression": expression, "target": {"context": context},
                                               "awaitPromise": await_promise, "resultOwnership": "none",
                                               "serializationOptions": {"maxDomDepth": 0, "maxObjectDepth": 20}},
                           timeout=timeout)
