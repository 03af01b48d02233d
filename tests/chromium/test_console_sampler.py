"""The console sampler in a real page (raw CDP, one Chromium): what a flooding second
lets through, what it holds back and says it held back, and the page's own console
back after a calm second. The page's clock is a variable the test moves."""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import quote

import trio

from browx_actors.cdp import CdpConnection
from browx_actors.sessions.chromium.console.sampler import (
    PAGE_BUDGET,
    SAMPLER_JS,
    held_back_counts,
    install_sampler,
    sample_new_documents,
)
from cdp_fixtures import new_page

NONCE = "test-nonce-0123"
_KEY = "Symbol.for('browx.consoleSampler')"
INSTALLED = f"{_KEY} in console"


async def _evaluate(page: Any, expression: str) -> Any:
    reply = await page.send("Runtime.evaluate", {"expression": expression, "returnByValue": True})
    assert "exceptionDetails" not in reply, reply
    return reply["result"].get("value")


async def _first_args_until(events: Any, last: str) -> list[Any]:
    """Each console message's first argument, up to and including ``last``."""
    seen: list[Any] = []
    with trio.fail_after(10):
        async for event in events:
            seen.append(event.params["args"][0].get("value"))
            if seen[-1] == last:
                return seen
    return seen


async def test_a_flooding_second_sends_its_budget_holds_the_rest_and_says_so(cdp: CdpConnection) -> None:
    page = await new_page(cdp)
    events = page.subscribe(methods=["Runtime.consoleAPICalled"], buffer=10_000)
    await page.send("Runtime.enable")
    install = f"globalThis.__t = 0; ({SAMPLER_JS})({json.dumps(NONCE)}, {PAGE_BUDGET}, () => globalThis.__t)"
    assert await _evaluate(page, install) is True
    assert await _evaluate(page, install) is False  # once per context
    # Over one second (the page's clock moves 1 ms a log), 1,000 logs and 300 errors.
    await _evaluate(page, "for (let i = 0; i < 1000; i++) { globalThis.__t = i; console.log('x', i);"
                          "  if (i % 10 < 3) console.error('e', i); }"
                          "console.warn('w');"
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
    # A tenth of the budget in each tenth of the second (log i at i ms), not all at once.
    sent = [p["args"][1]["value"] for p in seen if p["type"] == "log" and p["args"][0].get("value") == "x"]
    assert all(i % 100 < PAGE_BUDGET // 10 for i in sent)
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


async def test_a_tab_that_flooded_starts_its_later_documents_sampled(cdp: CdpConnection) -> None:
    """Before the page's own scripts: a flood from its first script is sampled, also
    through a reference to console.log the page kept before anyone could wrap it."""
    page = await new_page(cdp)
    await page.send("Page.enable")
    await sample_new_documents(page, NONCE)
    events = page.subscribe(methods=["Runtime.consoleAPICalled"], buffer=10_000)
    await page.send("Runtime.enable")
    flood = ("<script>const log = console.log; for (let i = 0; i < 1000; i++) log('kept ref', i);"
             "for (let i = 0; i < 1000; i++) console.log('direct', i); console.error('last');</script>")
    loaded = page.subscribe(methods=["Page.loadEventFired"], buffer=8)
    await page.send("Page.navigate", {"url": "data:text/html," + quote(flood)})
    with trio.fail_after(10):
        await loaded.receive()
    assert await _evaluate(page, INSTALLED) is True
    seen: list[tuple[str, Any]] = []
    with trio.fail_after(10):
        async for event in events:
            seen.append((event.params["type"], event.params["args"][0].get("value")))
            if seen[-1] == ("error", "last"):
                break
    # Both loops share one second's budget for messages other than errors.
    kept, direct = seen.count(("log", "kept ref")), seen.count(("log", "direct"))
    assert kept >= PAGE_BUDGET // 10 and kept + direct <= PAGE_BUDGET


async def test_its_first_second_starts_at_the_first_message(cdp: CdpConnection) -> None:
    """Put in long before anything logs (a new document, a worker held at its start), it
    still samples the flood that comes: quiet time before the first message is no calm
    second."""
    page = await new_page(cdp)
    events = page.subscribe(methods=["Runtime.consoleAPICalled"], buffer=10_000)
    await page.send("Runtime.enable")
    install = f"globalThis.__t = 0; ({SAMPLER_JS})({json.dumps(NONCE)}, {PAGE_BUDGET}, () => globalThis.__t)"
    assert await _evaluate(page, install) is True
    await _evaluate(page, "for (let i = 0; i < 1000; i++) { globalThis.__t = 5000 + i; console.log('late', i); }"
                          "globalThis.__t = 6000; console.log('next second');")
    seen = await _first_args_until(events, "next second")
    assert seen.count("late") == PAGE_BUDGET and await _evaluate(page, INSTALLED) is True


async def test_a_sampler_stepping_aside_leaves_a_later_samplers_mark_alone(cdp: CdpConnection) -> None:
    page = await new_page(cdp)
    first = f"globalThis.__t = 0; ({SAMPLER_JS})('a', {PAGE_BUDGET}, () => globalThis.__t)"
    assert await _evaluate(page, first) is True
    await _evaluate(page, "globalThis.__kept = console.log;"  # the page's own reference to the wrapper
                          f"delete console[{_KEY}];")  # as if it had stepped aside once
    assert await _evaluate(page, f"({SAMPLER_JS})('b', {PAGE_BUDGET}, () => globalThis.__t)") is True
    # The first sampler's calm second: it restores what it wrapped, and not the second's mark.
    await _evaluate(page, "globalThis.__kept('first'); globalThis.__t = 5000; globalThis.__kept('calm');")
    assert await _evaluate(page, INSTALLED) is True


async def test_uncaught_exceptions_past_the_budget_are_cancelled_and_counted(cdp: CdpConnection) -> None:
    page = await new_page(cdp)
    events = page.subscribe(methods=["Runtime.exceptionThrown", "Runtime.consoleAPICalled"], buffer=10_000)
    await page.send("Runtime.enable")
    install = f"globalThis.__t = 0; ({SAMPLER_JS})({json.dumps(NONCE)}, {PAGE_BUDGET}, () => globalThis.__t)"
    assert await _evaluate(page, install) is True
    # Uncaught in tasks of their own, as a page's failing timers are, 30 in each tenth
    # of a second; then a rejection.
    await _evaluate(page, "for (let i = 0; i < 300; i++) setTimeout(() => {"
                          "  globalThis.__t = Math.floor(i / 30) * 100; throw new Error('boom ' + i); });"
                          "setTimeout(() => Promise.reject(new Error('rejected')));"
                          "setTimeout(() => { globalThis.__t = 1000; console.log('next second'); }, 300);")
    thrown: list[str] = []
    reports: list[dict[str, int]] = []
    with trio.fail_after(10):
        async for event in events:
            if event.method == "Runtime.exceptionThrown":
                thrown.append(event.params["exceptionDetails"]["exception"].get("description", ""))
            elif (counts := held_back_counts(event.params, NONCE)) is not None:
                reports.append(counts)
            elif event.params["args"][0].get("value") == "next second":
                break
    assert len(thrown) == PAGE_BUDGET and thrown[0].startswith("Error: boom 0")
    assert reports == [{"info": 0, "warn": 0, "error": 300 - PAGE_BUDGET + 1}]


async def test_a_flooding_worker_is_sampled_in_the_worker(cdp: CdpConnection) -> None:
    """The sampler runs in a worker's global scope as it does in a page's (the session
    installs it there over the worker's own flat session)."""
    page = await new_page(cdp)
    attached = page.subscribe(methods=["Target.attachedToTarget"], buffer=8)
    await page.send("Target.setAutoAttach", {"autoAttach": True, "waitForDebuggerOnStart": False,
                                             "flatten": True, "filter": [{"type": "worker"}]})
    source = ("globalThis.__t = 0; onmessage = () => {"
              " for (let i = 0; i < 1000; i++) { globalThis.__t = i; console.log('w', i); } console.error('end'); }")
    await _evaluate(page, "globalThis.__w = new Worker(URL.createObjectURL("
                          f"new Blob([{json.dumps(source)}], {{type: 'text/javascript'}})))")
    with trio.fail_after(10):
        event = await attached.receive()
    assert event.params["targetInfo"]["type"] == "worker"
    worker = cdp.adopt(event.params["sessionId"], event.params["targetInfo"]["targetId"])
    events = worker.subscribe(methods=["Runtime.consoleAPICalled"], buffer=10_000)
    await worker.send("Runtime.enable")
    install = f"({SAMPLER_JS})({json.dumps(NONCE)}, {PAGE_BUDGET}, () => globalThis.__t)"
    assert await _evaluate(worker, install) is True
    await _evaluate(page, "globalThis.__w.postMessage('go')")
    seen = await _first_args_until(events, "end")
    assert seen.count("w") == PAGE_BUDGET
