"""``tool.batch``: up to 32 tool calls in order, in one round trip.

An inspect-act-verify sequence (``ui.query_nodes``, ``ui.perform_action``, ``ui.wait``)
costs an agent one round trip per call; a batch makes it one. Each inner call goes
through the one dispatch path (``RuntimeContext.dispatch``), exactly as if the agent
had sent it: its arguments are validated, its capability gated, registered secrets
substituted and masked, its record handed to the recorder, its ``after`` honoured. The
batch adds nothing to a call and takes nothing away; it only orders them and collects
their envelopes.

What the batch itself refuses, before any call runs (the dispatch checks its rules
first): more than :data:`MAX_CALLS` calls, an empty list, a call that is not
``{"tool": name, "arguments": {...}}``, and a ``tool.batch`` inside the batch (a batch
of batches would multiply the cap). ``onError`` chooses what a failed call does:
``stop`` (the default) leaves the rest unrun, ``continue`` runs them anyway.

The batch answers ``ok: true`` once it has run: each result carries its own envelope,
``failed`` counts the failures and ``stopped`` says whether ``onError: stop`` cut the
batch short, and a warning names each failed call, so a failure inside is never hidden
behind the batch's success. Images the calls returned ride with the batch's result, in
call order.
"""

from __future__ import annotations

import time

from ..jsonsafe import JsonObject
from ..tools import Reply
from ..tools.context import RuntimeContext
from ..tools.sessions import BatchArgs

__all__ = ["tool_batch"]


async def tool_batch(runtime: RuntimeContext, args: BatchArgs) -> Reply:
    reply = Reply(warnings=[])
    results: list[JsonObject] = []
    failed = 0
    stopped = False
    for index, call in enumerate(args.calls):
        started = time.perf_counter()
        output = await runtime.dispatch(call["tool"], call.get("arguments") or {})
        entry: JsonObject = {"tool": call["tool"], "result": output.envelope,
                             "durationMs": round((time.perf_counter() - started) * 1000, 1)}
        if output.images:
            entry["images"] = len(output.images)
            for mime, data in output.images:
                reply.attach(mime, data)
        results.append(entry)
        if output.envelope.get("ok") is not True:
            failed += 1
            code = output.envelope.get("code")
            reply.warn(f"call {index} ({call['tool']}) failed: {code}: {output.envelope.get('error')}")
            if args.on_error == "stop" and index < len(args.calls) - 1:
                stopped = True
                break
    reply.fields.update(results=results, completed=len(results), failed=failed, stopped=stopped)
    return reply


