"""Calling the page agent from a tool: its ``code:`` errors as tool errors, and awaited calls.

:meth:`~.session.ChromiumSession.agent` runs one agent method in the page and returns its value.
Tools that expect the agent's own refusals (``stale-element: ...``) call it through
:func:`agent_call`, which turns them into the codes tools answer with. A method that
answers with a Promise (it waits for the page to do something first: ``dragState``)
goes through :func:`agent_await`, one ``Runtime.evaluate`` with ``awaitPromise``.
"""

from __future__ import annotations

import json
from typing import Protocol

from playwright.async_api import Error as PlaywrightError

from ....cdp import CdpError, CdpTimeout, TargetLink
from ....errors import ToolError
from ....jsonsafe import JsonValue
from ..losses import PageScriptError, first_line
from .pageagent import AGENT_CALL, AGENT_SOURCE, agent_error

__all__ = ["AgentHost", "AwaitHost", "agent_await", "agent_call"]


class AgentHost(Protocol):
    """What calling the agent needs of the session: one agent call in its current tab."""

    async def agent(self, method: str, arg: JsonValue = None) -> JsonValue: ...


class AwaitHost(Protocol):
    """What awaiting the agent needs of the session: its current tab's CDP link, and a
    way to install the agent when the page lost it."""

    @property
    def cdp(self) -> TargetLink: ...

    async def evaluate(self, expression: str) -> JsonValue: ...

#: Agent error codes as the agent sees them, mapped to the codes tools answer with.
_AGENT_CODES = {"not-found": "target-not-found", "bad-selector": "bad-arg", "bad-arg": "bad-arg"}


def _tool_error(err: BaseException) -> ToolError:
    found = agent_error(str(err))
    if found is None:
        return ToolError("page-error", first_line(err))
    code, detail = found
    return ToolError(_AGENT_CODES.get(code, code), detail)


async def agent_call(session: AgentHost, method: str, arg: JsonValue = None) -> JsonValue:
    """``agent[method](arg)`` in the current tab; the agent's refusals as ToolErrors."""
    try:
        return await session.agent(method, arg)
    except (PlaywrightError, PageScriptError) as err:
        raise _tool_error(err) from err


async def agent_await(session: AwaitHost, method: str, arg: JsonValue = None, *,
                      timeout: float = 10.0) -> JsonValue:
    """Like :func:`agent_call` for a method that answers with a Promise: its value."""
    expression = f"({AGENT_CALL})({json.dumps([method, arg])})"
    for _ in range(2):
        try:
            reply = await session.cdp.send("Runtime.evaluate", {
                "expression": expression, "awaitPromise": True, "returnByValue": True,
            }, timeout=timeout)
        except CdpTimeout as err:
            raise ToolError("timeout", f"the page did not answer {method} in {timeout:g}s") from err
        except CdpError as err:
            raise ToolError("page-error", f"{method}: {err.message}") from err
        if "exceptionDetails" in reply:
            details = reply["exceptionDetails"]
            raise _tool_error(PageScriptError(details.get("exception", {}).get("description")
                                              or details.get("text", "")))
        value = reply["result"].get("value")
        if not (isinstance(value, dict) and value.get("__browxMissing")):
            return value
        await session.evaluate(AGENT_SOURCE)
    raise ToolError("page-error", f"the page agent could not be installed for {method}")
