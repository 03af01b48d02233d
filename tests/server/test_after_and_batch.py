"""``after`` and ``tool.batch`` in the one dispatch path, without a browser.

The dispatcher runs over a small runtime context whose sessions are plain objects of a
``fake`` engine, with its own table; ``ui.get_visual_tree`` and ``screenshot`` are the
real declarations with the fake engine's handlers in its table, so ``after`` is checked
against the very parameters and rules the real captures have, and ``tool.batch`` is the
real declaration run by the real handler. What is shown: what ``after`` adds to a
result and when it runs (never for a refused call, also for a failed one, never in its
place); that a batch's calls each take the whole path (order, gates, secrets, the
recorder), and what a batch refuses before any call runs.
"""

from __future__ import annotations

from typing import Any

import attrs
import pytest

from browx_actors import tools
from browx_actors.config import DEFAULT_CAPABILITIES
from browx_actors.errors import ToolError
from browx_actors.recorder.records import CallRecord
from browx_actors.runtime.batch import tool_batch
from browx_actors.secret_book import SecretBook
from browx_actors.server.catalog import Catalog, IncompleteCatalog
from browx_actors.server.dispatch import Dispatcher
from browx_actors.server.docs import render
from browx_actors.tools import (
    AFTER,
    Arguments,
    Gates,
    NoArgs,
    Refusal,
    Reply,
    SessionArgs,
    Table,
    Tool,
    ToolOutput,
    arguments,
    param,
    refuses,
    runs,
    runtime_tool,
    session_tool,
)
from browx_actors.tools.contract import ACTS, READS
from browx_actors.tools.page import ScreenshotArgs
from browx_actors.tools.sessions import MAX_CALLS
from browx_actors.tools.visual import VisualTreeArgs

PNG = b"\x89PNG fake"


@attrs.define
class FakeSession:
    session_id: str
    engine: str = "fake"
    captures: int = 0
    fail_capture: bool = False
    calls: list[tuple[str, dict[str, Any]]] = attrs.Factory(list)


@attrs.define
class Context:
    """The part of the runtime a dispatcher uses: sessions, and a way back into the dispatch."""

    sessions: dict[str, FakeSession] = attrs.Factory(lambda: {"default": FakeSession("default")})
    dispatcher: Dispatcher | None = None

    async def session_ids(self) -> list[str]:
        return list(self.sessions)

    async def run_tool(self, session_id: str, tool: Tool[Any], args: Arguments, *, timeout: float) -> Any:
        """What a session actor does with a tool call: its engine's line, run or refused."""
        if session_id not in self.sessions:
            raise ToolError("unknown-session", f"no open session {session_id!r}", session=session_id)
        line = FAKE.entry(tool.name)
        assert line is not None, "the catalog holds the fake table whole"
        if isinstance(line, Refusal):
            raise line.error(FAKE.engine)
        return await line.handler(self.sessions[session_id], args)

    async def dispatch(self, name: str, args: Any) -> ToolOutput:
        assert self.dispatcher is not None
        return await self.dispatcher.dispatch(name, args)


async def fake_tree(session: FakeSession, args: VisualTreeArgs) -> Reply:
    session.captures += 1
    if session.fail_capture:
        raise ToolError("page-error", "the page went away")
    return Reply.of(format="fake-tree", revision=session.captures, maxDepth=args.max_depth)


async def fake_screenshot(session: FakeSession, args: ScreenshotArgs) -> Reply:
    reply = Reply.of(format=args.format)
    reply.attach("image/png", PNG)
    return reply


@arguments
class PokeArgs(SessionArgs):
    fail: str | None = param("fail", "string", "A code to fail with.")
    text: str | None = param("text", "string", "Echoed.", secrets="substitute")


POKE = session_tool("poke", PokeArgs, title="Poke", capability="action", hints=ACTS,
                    summary="Record a call; fail with `fail` when given.")
PEEK = session_tool("peek", SessionArgs, title="Peek", capability="eval", hints=READS,
                    summary="A tool behind the eval capability.")
NUDGE = session_tool("nudge", SessionArgs, title="Nudge", capability="action", hints=ACTS,
                     summary="A tool the fake engine refuses.")
LISTING = runtime_tool("listing", NoArgs, title="Listing", capability="read", hints=READS,
                       summary="A runtime tool without a session argument.")


async def poke(session: FakeSession, args: PokeArgs) -> Reply:
    session.calls.append(("poke", args.json()))
    if args.fail:
        raise ToolError(args.fail, "asked to fail")
    reply = Reply.of(echo=args.text, call=len(session.calls))
    reply.attach("image/png", b"poke" + bytes([len(session.calls)]))
    return reply


async def peek(session: FakeSession, args: SessionArgs) -> Reply:
    session.calls.append(("peek", args.json()))
    return Reply.of(peeked=True)


async def listing(context: Any, args: NoArgs) -> Reply:
    return Reply.of(listed=True)


#: The fake engine's table: the real captures' declarations, run by its own handlers.
FAKE = Table.of("fake", [
    runs(tools.GET_VISUAL_TREE, fake_tree),
    runs(tools.SCREENSHOT, fake_screenshot),
    runs(POKE, poke),
    runs(PEEK, peek),
    refuses(NUDGE, "it has nothing to nudge", code="not-supported"),
])
RUNTIME = Table.of("runtime", [runs(LISTING, listing), runs(tools.BATCH, tool_batch)])


def dispatcher(client: frozenset[str] = DEFAULT_CAPABILITIES,
               secrets: SecretBook | None = None) -> tuple[Dispatcher, Context, list[CallRecord]]:
    catalog = Catalog.of([tools.GET_VISUAL_TREE, tools.SCREENSHOT, POKE, PEEK, NUDGE, LISTING, tools.BATCH],
                         RUNTIME, {"fake": FAKE})
    context = Context()
    records: list[CallRecord] = []
    gates = Gates(DEFAULT_CAPABILITIES | {"eval"}, client)
    found = Dispatcher(catalog, context=context, gates=gates,  # type: ignore[arg-type]
                       secrets=secrets or SecretBook(), recorder=records.append)
    context.dispatcher = found
    return found, context, records


def default(context: Context) -> FakeSession:
    return context.sessions["default"]


# -- after -------------------------------------------------------------------------


async def test_after_rides_in_the_result_with_its_images_after_the_calls() -> None:
    dispatch, _, _ = dispatcher()
    out = await dispatch.dispatch("poke", {"text": "hi", "after": {"visualTree": {"maxDepth": 2}, "screenshot": {}}})
    assert out.envelope == {
        "ok": True, "echo": "hi", "call": 1,
        "after": {"visualTree": {"ok": True, "format": "fake-tree", "revision": 1, "maxDepth": 2},
                  "screenshot": {"ok": True, "format": "png"}},
    }  # fmt: skip
    assert out.images == (("image/png", b"poke\x01"), ("image/png", PNG))


async def test_after_runs_for_a_failed_call_and_never_replaces_its_failure() -> None:
    dispatch, context, _ = dispatcher()
    out = (await dispatch.dispatch("poke", {"fail": "timeout", "after": {"visualTree": {}}})).envelope
    assert (out["ok"], out["code"], out["error"]) == (False, "timeout", "asked to fail")
    assert out["after"]["visualTree"]["ok"] is True
    default(context).fail_capture = True
    out = (await dispatch.dispatch("poke", {"text": "x", "after": {"visualTree": {}}})).envelope
    assert out["ok"] is True and out["echo"] == "x"
    assert out["after"] == {"visualTree": {"ok": False, "code": "page-error", "error": "the page went away"}}


@pytest.mark.parametrize(
    ("args", "field"),
    [
        ({"fail": 3, "after": {"visualTree": {}}}, "fail"),  # the call's own argument first
        ({"after": {"visualTree": {"maxDepth": -1}}}, "after.visualTree.maxDepth"),
        ({"after": {"visualTree": {"depth": 1}}}, "after.visualTree.depth"),
        ({"after": {"screenshot": {"fullPage": True, "selector": "#a"}}}, "after.screenshot.fullPage"),
        ({"after": {"video": {}}}, "after.video"),
        ({"after": {"screenshot": True}}, "after.screenshot"),
        ({"after": []}, "after"),
        ({"after": {}}, "after"),
    ],
)
async def test_a_refused_call_captures_nothing(args: dict[str, Any], field: str) -> None:
    dispatch, context, _ = dispatcher()
    out = (await dispatch.dispatch("poke", args)).envelope
    assert (out["ok"], out["code"], out["field"]) == (False, "bad-arg", field), out
    assert "after" not in out and default(context).calls == [] and default(context).captures == 0


async def test_after_needs_its_captures_capability_at_both_gates() -> None:
    dispatch, context, _ = dispatcher(client=frozenset({"action"}))
    assert (await dispatch.dispatch("poke", {"text": "x"})).envelope["ok"] is True
    out = (await dispatch.dispatch("poke", {"text": "x", "after": {"visualTree": {}}})).envelope
    assert (out["code"], out["capability"]) == ("capability-denied", "read")
    assert dispatch.gates.denials == {"ui.get_visual_tree": 1}
    assert len(default(context).calls) == 1 and default(context).captures == 0


async def test_after_never_opens_a_session() -> None:
    dispatch, context, _ = dispatcher()
    del context.sessions["default"]
    out = (await dispatch.dispatch("listing", {"after": {"screenshot": {}}})).envelope
    assert out["ok"] is True and out["after"]["screenshot"]["code"] == "unknown-session"
    assert context.sessions == {}


async def test_a_tool_the_engine_refuses_answers_its_refusal_and_after_still_captures() -> None:
    dispatch, context, records = dispatcher()
    out = (await dispatch.dispatch("nudge", {"after": {"visualTree": {}}})).envelope
    assert out == {"ok": False, "code": "not-supported", "error": "nudge is not available on fake: it has nothing "
                   "to nudge", "engine": "fake", "tool": "nudge",
                   "after": {"visualTree": {"ok": True, "format": "fake-tree", "revision": 1, "maxDepth": None}}}
    assert default(context).calls == [] and records[0].envelope["code"] == "not-supported"


async def test_the_recorder_sees_the_after_request() -> None:
    dispatch, _, records = dispatcher()
    await dispatch.dispatch("poke", {"text": "x", "after": {"visualTree": {"maxDepth": 1}}})
    (record,) = records
    assert record.args["after"] == {"visualTree": {"maxDepth": 1}}
    assert record.envelope["after"]["visualTree"]["ok"] is True


def test_every_tool_takes_after_and_the_reference_says_so() -> None:
    for tool in tools.ALL:
        assert tool.input_schema()["properties"]["after"] == AFTER.schema(), tool.name
        assert "after" not in tool.input_schema()["required"]
    assert "## `after`" in render() and AFTER.description in render()


def test_no_tool_may_declare_after_itself() -> None:
    @arguments
    class GreedyArgs(Arguments):
        after: str | None = param("after", "string", "")

    greedy = runtime_tool("greedy", GreedyArgs, title="Greedy", capability="read", hints=READS, summary="Greedy.")

    async def handler(context: Any, args: GreedyArgs) -> Reply:
        return Reply.of()

    with pytest.raises(IncompleteCatalog, match="after") as caught:
        Catalog.of([greedy], Table.of("runtime", [runs(greedy, handler)]), {})
    assert caught.value.problems == ["greedy declares 'after', which every tool takes from the dispatch"]


# -- tool.batch ----------------------------------------------------------------------


def calls(*names: str, **arguments: Any) -> list[dict[str, Any]]:
    return [{"tool": name, "arguments": dict(arguments)} for name in names]


async def test_a_batch_runs_its_calls_in_order_each_through_the_dispatch() -> None:
    dispatch, _, records = dispatcher()
    out = await dispatch.dispatch("tool.batch", {"calls": [
        {"tool": "poke", "arguments": {"text": "one"}},
        {"tool": "ui.get_visual_tree"},
        {"tool": "poke", "arguments": {"text": "two", "after": {"screenshot": {}}}},
    ]})
    envelope = out.envelope
    assert envelope["ok"] is True and (envelope["completed"], envelope["failed"], envelope["stopped"]) == (3, 0, False)
    assert [entry["tool"] for entry in envelope["results"]] == ["poke", "ui.get_visual_tree", "poke"]
    assert [entry["result"].get("echo") for entry in envelope["results"]] == ["one", None, "two"]
    assert envelope["results"][2]["result"]["after"]["screenshot"]["ok"] is True
    assert [entry.get("images") for entry in envelope["results"]] == [1, None, 2]
    assert out.images == (("image/png", b"poke\x01"), ("image/png", b"poke\x02"), ("image/png", PNG))
    assert all(entry["durationMs"] >= 0 for entry in envelope["results"])
    assert [record.tool for record in records] == ["poke", "ui.get_visual_tree", "poke", "tool.batch"]


@pytest.mark.parametrize(("on_error", "completed", "stopped"), [("stop", 2, True), ("continue", 3, False)])
async def test_on_error_stops_or_continues(on_error: str, completed: int, stopped: bool) -> None:
    dispatch, context, _ = dispatcher()
    out = (await dispatch.dispatch("tool.batch", {"onError": on_error, "calls": [
        {"tool": "poke", "arguments": {"text": "one"}},
        {"tool": "poke", "arguments": {"fail": "action-failed"}},
        {"tool": "poke", "arguments": {"text": "three"}},
    ]})).envelope
    assert out["ok"] is True and (out["completed"], out["failed"], out["stopped"]) == (completed, 1, stopped)
    assert out["results"][1]["result"]["code"] == "action-failed"
    assert out["warnings"] == ["call 1 (poke) failed: action-failed: asked to fail"]
    assert len(default(context).calls) == completed


async def test_a_failed_last_call_has_nothing_left_to_stop() -> None:
    dispatch, _, _ = dispatcher()
    out = (await dispatch.dispatch("tool.batch", {"calls": calls("poke", fail="timeout")})).envelope
    assert (out["failed"], out["stopped"]) == (1, False)


async def test_each_inner_call_is_gated_and_counted() -> None:
    dispatch, context, _ = dispatcher(client=DEFAULT_CAPABILITIES)  # the client grants no eval
    out = (await dispatch.dispatch("tool.batch", {"onError": "continue",
                                                  "calls": calls("peek", "poke", "peek", "unknown")})).envelope
    codes = [entry["result"].get("code") for entry in out["results"]]
    assert codes == ["capability-denied", None, "capability-denied", "unknown-tool"]
    assert dispatch.gates.denials == {"peek": 2}
    assert [name for name, _ in default(context).calls] == ["poke"]


async def test_secrets_are_substituted_and_masked_in_each_inner_call() -> None:
    secrets = SecretBook()
    secrets.register("default", "PASS", "hunter22")
    dispatch, context, records = dispatcher(secrets=secrets)
    out = (await dispatch.dispatch("tool.batch", {"calls": calls("poke", text="my <PASS>")})).envelope
    assert default(context).calls[0][1]["text"] == "my hunter22"  # the handler got the value
    assert out["results"][0]["result"]["echo"] == "my <PASS>"  # nothing leaves with it
    assert all("hunter22" not in repr(record) for record in records)


@pytest.mark.parametrize(
    ("batch", "field"),
    [
        ({"calls": calls(*["poke"] * (MAX_CALLS + 1))}, "calls"),
        ({"calls": []}, "calls"),
        ({"calls": [*calls("poke"), {"tool": "tool.batch", "arguments": {"calls": calls("poke")}}]}, "calls[1].tool"),
        ({"calls": [{"tool": "poke", "args": {}}]}, "calls[0].args"),
        ({"calls": [{"arguments": {}}]}, "calls[0].tool"),
        ({"calls": [{"tool": "poke", "arguments": [1]}]}, "calls[0].arguments"),
        ({"calls": ["poke"]}, "calls[0]"),
        ({"calls": calls("poke"), "onError": "retry"}, "onError"),
    ],
)
async def test_what_a_batch_refuses_before_any_call_runs(batch: dict[str, Any], field: str) -> None:
    dispatch, context, records = dispatcher()
    out = (await dispatch.dispatch("tool.batch", batch)).envelope
    assert (out["ok"], out["code"], out["field"]) == (False, "bad-arg", field), out
    assert default(context).calls == [] and [record.tool for record in records] == ["tool.batch"]


async def test_thirty_two_calls_are_a_batch() -> None:
    dispatch, context, _ = dispatcher()
    out = (await dispatch.dispatch("tool.batch", {"calls": calls(*["poke"] * MAX_CALLS)})).envelope
    assert out["completed"] == MAX_CALLS and len(default(context).calls) == MAX_CALLS
    assert [entry["result"]["call"] for entry in out["results"]] == list(range(1, MAX_CALLS + 1))
