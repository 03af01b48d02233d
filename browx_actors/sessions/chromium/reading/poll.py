"""``poll_eval``: evaluate an expression until it (or a predicate on it) holds, and waiting in general.

:func:`poll_until` is the loop: a probe at once, then one every ``interval`` measured
from the start (``sleep_until``, so a slow probe does not push the next ones later),
until one says the condition is met or the deadline passes; a probe still running at
the deadline is cancelled. It knows nothing of pages, so its timing is tested under
``trio.testing.MockClock``; ``choose_option`` waits for its options with it too.

``poll_eval {expr, until?, intervalMs, timeoutMs}`` evaluates ``expr`` in the page's
main world as ``eval_js`` does (an expression, or a function source that is called; a
Promise is awaited) and stops when the value is truthy, or when ``until`` (a function
source, ``value => boolean``) says so; the value is returned as JSON. Each attempt is a
few raw CDP calls (``Runtime.evaluate`` and ``Runtime.callFunctionOn`` on the value,
so ``until`` runs in the page with the value itself, DOM nodes included). It is a
``Later`` wait: it runs in the session's nursery, so the session keeps serving other
calls meanwhile. Capability ``eval``; the diagnostics recorder gives it the ``evalJs``
block eval_js gets (``recorder/records.py``).
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Generic, TypeVar

import attrs
import trio

from ....cdp import CdpError, CdpFailure, CdpTimeout, TargetLink, TargetLinkLost
from ....errors import ToolError
from ....jsonsafe import JsonObject, JsonValue
from ....kernel.actor import Later
from ....tools import Reply
from ....tools.page import PollEvalArgs

if TYPE_CHECKING:
    from ..session import ChromiumSession

__all__ = ["PollResult", "poll_eval", "poll_until"]

T = TypeVar("T")

_GROUP = "browx-poll"
_TRUTHY = "function (value) { return !!value; }"
_CALL_IT = "function () { return this(); }"
_IDENTITY = "function (value) { return value; }"
#: One CDP call of an attempt may take this long before the attempt counts as failed.
_CALL_TIMEOUT_S = 10.0
#: The largest last value a timeout reports (as JSON).
_LAST_VALUE_MAX = 10_000


@attrs.frozen
class PollResult(Generic[T]):
    met: bool
    #: What the last probe that finished answered (None when none did).
    value: T | None
    attempts: int
    elapsed_s: float


async def poll_until(probe: Callable[[], Awaitable[tuple[bool, T]]], *, interval_s: float,
                     timeout_s: float) -> PollResult[T]:
    """Probe at once and every ``interval_s`` until a probe answers ``(True, value)`` or
    ``timeout_s`` has passed; the first probe always gets to finish."""
    start = trio.current_time()
    attempts = 1
    met, value = await probe()
    with trio.move_on_at(start + timeout_s):
        while not met:
            await trio.sleep_until(start + attempts * interval_s)
            attempts += 1
            met, value = await probe()
    return PollResult(met, value, attempts, trio.current_time() - start)


# -- poll_eval ------------------------------------------------------------------------


class _Evaluator:
    """The CDP calls of one poll on one tab: evaluate, test, read back as JSON."""

    def __init__(self, cdp: TargetLink, expr: str, until: str | None) -> None:
        self.cdp = cdp
        self.expr = expr
        self.until = until or _TRUTHY
        self.attempt = 0
        self.last: JsonObject | None = None

    async def _send(self, method: str, params: JsonObject, what: str) -> JsonObject:
        """One CDP call; a script that threw comes back as ``{"thrown": message}``."""
        try:
            reply = await self.cdp.send(method, params, timeout=_CALL_TIMEOUT_S)
        except TargetLinkLost as err:
            raise ToolError("tab-closed", "the tab closed while poll_eval waited") from err
        except CdpTimeout as err:
            raise ToolError("timeout", f"poll_eval: the page did not answer ({what})") from err
        except CdpError as err:
            raise ToolError("eval-error", f"{what}: {err.message}") from err
        details = reply.get("exceptionDetails")
        if details is None:
            return reply
        exception = details.get("exception", {})
        message = (exception.get("description") or details.get("text") or "an error").splitlines()[0]
        if exception.get("className") == "SyntaxError":  # it will never run: say so now
            raise ToolError("eval-error", f"{what}: {message}")
        return {"thrown": f"{what} threw: {message}"}

    def _group(self) -> str:
        return f"{_GROUP}-{self.attempt}"

    async def probe(self) -> tuple[bool, JsonObject]:
        """One attempt: the value (a CDP RemoteObject, or ``{"thrown": message}`` when the
        expression or the predicate threw: the page may not be ready yet) and whether
        the condition holds."""
        self.attempt += 1
        try:
            return await self._attempt()
        finally:
            if self.attempt > 1:  # the last attempt's value is still needed: release the one before
                await self._release(f"{_GROUP}-{self.attempt - 1}")

    async def _attempt(self) -> tuple[bool, JsonObject]:
        group = self._group()
        reply = await self._send("Runtime.evaluate", {
            "expression": self.expr, "awaitPromise": True, "objectGroup": group,
        }, "expr")
        if "thrown" in reply:
            return False, reply
        value = reply["result"]
        if value.get("type") == "function":
            reply = await self._send("Runtime.callFunctionOn", {
                "functionDeclaration": _CALL_IT, "objectId": value["objectId"], "awaitPromise": True,
                "objectGroup": group,
            }, "expr")
            if "thrown" in reply:
                return False, reply
            value = reply["result"]
        test = await self._call_with(self.until, value, "until")
        if "thrown" in test:
            return False, test
        return bool(test["result"].get("value")), value

    async def _call_with(self, function: str, value: JsonObject, what: str) -> JsonObject:
        """``function(value)`` in the page: the reply, its result by value."""
        global_object = (await self._send("Runtime.evaluate", {
            "expression": "globalThis", "objectGroup": self._group(),
        }, what))["result"]
        return await self._send("Runtime.callFunctionOn", {
            "functionDeclaration": function, "objectId": global_object["objectId"],
            "arguments": [_argument(value)], "returnByValue": True, "awaitPromise": True,
        }, what)

    async def json_of(self, value: JsonObject) -> JsonValue:
        if "objectId" not in value:
            return value.get("value")  # a primitive (undefined, NaN and Infinity read as null)
        reply = await self._call_with(_IDENTITY, value, "reading the value as JSON")
        if "thrown" in reply:
            raise ToolError("eval-error", reply["thrown"])
        return reply["result"].get("value")

    async def _release(self, group: str) -> None:
        # A document that is gone took its objects with it.
        with contextlib.suppress(CdpFailure):
            await self.cdp.send("Runtime.releaseObjectGroup", {"objectGroup": group}, timeout=_CALL_TIMEOUT_S)

    async def close(self) -> None:
        """Release what the poll still holds (the last attempt's, and the one before if
        the deadline cut the last attempt short)."""
        for attempt in range(max(1, self.attempt - 1), self.attempt + 1):
            await self._release(f"{_GROUP}-{attempt}")


def _argument(value: JsonObject) -> JsonObject:
    if "objectId" in value:
        return {"objectId": value["objectId"]}
    if "unserializableValue" in value:
        return {"unserializableValue": value["unserializableValue"]}
    if value.get("type") == "undefined":
        return {}
    return {"value": value.get("value")}


def _sized(value: JsonValue, max_bytes: int) -> tuple[JsonValue, int]:
    size = len(json.dumps(value, default=str))
    if size > max_bytes:
        raise ToolError("too-large", f"the value is {size} bytes of JSON, above maxBytes={max_bytes}",
                        sizeBytes=size)
    return value, size


async def poll_eval(session: ChromiumSession, args: PollEvalArgs) -> Later:
    return Later.of(_poll, session.cdp, args)


async def _poll(cdp: TargetLink, args: PollEvalArgs) -> Reply:
    evaluator = _Evaluator(cdp, args.expr, args.until)
    try:
        result = await poll_until(evaluator.probe, interval_s=args.interval_ms / 1000,
                                  timeout_s=args.timeout_ms / 1000)
        elapsed = round(result.elapsed_s * 1000, 1)
        if not result.met:
            details: dict[str, object] = {"attempts": result.attempts, "elapsedMs": elapsed}
            last = result.value
            if last is not None and "thrown" in last:
                details["lastError"] = last["thrown"]
            elif last is not None:
                shown = await evaluator.json_of(last)
                if len(json.dumps(shown, default=str)) <= min(args.max_bytes, _LAST_VALUE_MAX):
                    details["lastValue"] = shown
            raise ToolError("timeout", f"poll_eval: the condition did not hold within {args.timeout_ms} ms "
                            f"({result.attempts} attempts)", **details)
        assert result.value is not None
        value, _ = _sized(await evaluator.json_of(result.value), args.max_bytes)
        return Reply.of(value=value, attempts=result.attempts, elapsedMs=elapsed)
    finally:
        with trio.CancelScope(shield=True), trio.move_on_after(2):
            await evaluator.close()


