"""The console sampler in a real page (raw CDP, one Chromium): what a flooding second
lets through, what it holds back and says it held back, and the page's own console
back after a calm second. The page's clock is a variable the test moves."""

from __future__ import annotations

import json
from typing import Any

import trio

from browx_actors.cdp import CdpConnection
from browx_actors.sessions.chromium.console_sampler import PAGE_BUDGET, SAMPLER_JS, held_back_counts, install_sampler
from cdp_fixtures import new_page

NONCE = "test-nonce-0123"
INSTALLED = "Symbol.for('browx.consoleSampler') in console"


async def _evaluate(page: Any, expression: str) -> Any:
    reply = await page.send("Runtime.evaluate", {"expression": expression, "returnByValue": True})
    assert "exceptionDetails" not in reply, reply
    return reply["result"].get("value")


async def test_a_flooding_second_sends_its_budget_holds_the_rest_and_says_so(cdp: CdpConnection) -> None:
    page = await new_page(cdp)
    events = page.subscribe(methods=["Runtime.consoleAPICalled"], buffer=10_000)
    await page.send("Runtime.enable")
    install = f"globalThis.__t = 0; ({SAMPLER_JS})({json.dumps(NONCE)}, {PAGE_BUDGET}, () => globalThis.__t)"
    assert await _evaluate(page, install) is True
    assert await _evaluate(page, install) is False  # once per context
    await _evaluate(page, "for (let i = 0; i < 1000; i++) console.log('x', i);"
                          "for (let i = 0; i < 300; i++) console.error('e', i); console.warn('w');"
                          "globalThis.__t = 1000; console.log('next second');"
                          "globalThis.__t = 2000; console.log('after a calm second');")
    assert await _evaluate(page, f"[console.log.toString().includes('[native code]'), {INSTALLED}]") == [
        True, False]
    seen: list[dict[str, Any]] = []
    with trio.fail_after(10):
        async for event in events:
            seen.append(event.params)
            if event.params["args"][0].get("value") == "after a calm second":
                break
    kinds = [(p["type"], p["args"][0].get("value")) for p in seen]
    assert kinds.count(("log", "x")) == PAGE_BUDGET and kinds.count(("error", "e")) == PAGE_BUDGET
    assert ("warning", "w") not in kinds  # the others' budget was spent on the logs
    reports = [held_back_counts(p, NONCE) for p in seen if held_back_counts(p, NONCE) is not None]
    assert reports == [{"info": 1000 - PAGE_BUDGET, "warn": 1, "error": 300 - PAGE_BUDGET}]
    # The report comes when the second ends, before the next second's first message.
    assert kinds[-3:] == [("debug", kinds[-3][1]), ("log", "next second"), ("log", "after a calm second")]
    # What goes through keeps its arguments as the page gave them.
    assert seen[0]["args"][1] == {"type": "number", "value": 0, "description": "0"}


async def test_the_session_installs_it_in_the_context_it_is_given(cdp: CdpConnection) -> None:
    page = await new_page(cdp)
    contexts = page.subscribe(methods=["Runtime.executionContextCreated"], buffer=64)
    await page.send("Runtime.enable")  # announces the contexts there are
    with trio.fail_after(10):
        async for event in contexts:
            if (event.params["context"].get("auxData") or {}).get("isDefault"):
                main = event.params["context"]["id"]
                break
    assert await install_sampler(page, main, NONCE) is True
    assert await _evaluate(page, INSTALLED) is True
    assert await install_sampler(page, main, NONCE) is False  # there already
    assert await install_sampler(page, main + 1000, NONCE) is False  # no such context
