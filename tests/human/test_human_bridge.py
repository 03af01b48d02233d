"""The isolated-world bridge and await_human on real Chromium, through the runtime.

An operator's DevTools answer is simulated exactly as DevTools sends it: a raw CDP
``Runtime.evaluate`` with the world's ``contextId`` (taken from the bridge), on the flat
session of the target it lives in. The page's own scripts run in the main world, via
``eval_js`` or the page's inline scripts.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
import trio

from browx_actors import RuntimeConfig, open_runtime
from browx_actors.cdp.protocol import CdpError
from browx_actors.demo import serve_directory
from e2e_support import session_actor
from polling import poll_until

PAGES = Path(__file__).parents[1] / "pages"
WAIT = 15


@asynccontextmanager
async def runtime_and_pages(tmp_path: Path) -> AsyncIterator[tuple[Any, str]]:
    with serve_directory(PAGES) as base:
        config = RuntimeConfig.from_env({"BROWX_CAPABILITIES": "eval"}, workspace=tmp_path)
        async with open_runtime(config=config, capabilities=["eval"]) as runtime:
            yield runtime, base


async def in_world(session: Any, expression: str, target_id: str | None = None) -> Any:
    """Evaluate in the session's browxai world, as the DevTools console would."""
    bridge = session.human
    target_id = target_id or session.target_id
    with trio.fail_after(WAIT):
        while True:
            await bridge.wait_until(lambda: bridge.world_context(target_id) is not None)
            try:
                reply = await bridge.targets[target_id].cdp.send("Runtime.evaluate", {
                    "expression": expression, "contextId": bridge.world_context(target_id),
                    "returnByValue": True})
            except (CdpError, KeyError):
                await trio.sleep(0.02)  # that document just went away; its successor's world is next
                continue
            assert "exceptionDetails" not in reply, reply
            return reply["result"].get("value")


class Prompt:
    """One await_human call running in the background, and its ticket once it is open."""

    def __init__(self, nursery: trio.Nursery, runtime: Any, args: dict[str, Any]) -> None:
        self.result: dict[str, Any] | None = None
        self._done = trio.Event()
        nursery.start_soon(self._run, runtime, args)

    async def _run(self, runtime: Any, args: dict[str, Any]) -> None:
        self.result = await runtime.call_tool("await_human", args)
        self._done.set()

    @staticmethod
    async def ticket(session: Any) -> str:
        desk = session.human.desk
        await poll_until(desk.prompts, interval=0.01, timeout=WAIT)
        return desk.prompts()[0].ticket

    async def wait(self) -> dict[str, Any]:
        with trio.fail_after(WAIT):
            await self._done.wait()
        assert self.result is not None
        return self.result

    @property
    def pending(self) -> bool:
        return not self._done.is_set()


ANSWERS = [
    ({"kind": "acknowledge", "prompt": "Take the screenshot, then proceed"},
     "__browx.proceed({t}, {{shot: 3}})", {"shot": 3}),
    ({"prompt": "Just say go"}, "__browx.proceed({t})", None),
    ({"kind": "confirm", "prompt": "Send it?"}, "__browx.confirm(false, {t})", False),
    ({"kind": "choose", "prompt": "Which account?", "choices": ["alice@example.com", "bob@example.com"]},
     "__browx.choose(1, {t})", 1),
    ({"kind": "input", "prompt": "The SMS code?"}, '__browx.input("493817", {t})', "493817"),
    ({"kind": "confirm", "prompt": "Generic respond?"}, "__browx.respond(true, {t})", True),
]


async def test_each_kind_is_answered_from_the_isolated_world(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    async with runtime_and_pages(tmp_path) as (runtime, base):
        await runtime.call_tool("navigate", {"url": f"{base}/human_second.html"})
        session = await session_actor(runtime, "default")
        assert await in_world(session, "JSON.stringify(__browx.status())") == '{"state":"ready"}'
        for args, call, value in ANSWERS:
            async with trio.open_nursery() as nursery:
                prompt = Prompt(nursery, runtime, args)
                ticket = await Prompt.ticket(session)
                assert await in_world(session, call.format(t=json.dumps(ticket))) is True
                result = await prompt.wait()
            assert result == {"ok": True, "kind": args.get("kind", "acknowledge"), "value": value,
                              "timedOut": False}
            err = capsys.readouterr().err
            assert session.human.world in err and f"ticket {ticket}" in err and f"{ticket} answered" in err


async def test_the_main_world_cannot_answer_replace_or_find_the_channel(tmp_path: Path) -> None:
    async with runtime_and_pages(tmp_path) as (runtime, base):
        await runtime.call_tool("navigate", {"url": f"{base}/human_main.html"})
        session = await session_actor(runtime, "default")
        bridge = session.human
        seen = (await runtime.call_tool("eval_js", {"expr": "window.seenAtLoad"}))["value"]
        assert seen == {"status": {"state": "display-only"}, "names": ["__browx"]}
        async with trio.open_nursery() as nursery:
            prompt = Prompt(nursery, runtime, {"kind": "confirm", "prompt": "Delete the account?"})
            ticket = await Prompt.ticket(session)
            attack = await runtime.call_tool("eval_js", {
                "expr": f"window.attack({json.dumps(ticket)}, {json.dumps(bridge.binding)})"})
            assert attack["value"] == {
                "proceed": False, "confirm": False, "choose": False, "input": False, "respond": False,
                "status": {"state": "display-only"}, "replaced": True, "deleted": "undefined",
                "bindingType": "undefined", "names": [], "globalNames": [],
            }
            await trio.sleep(0.3)
            assert prompt.pending
            # The isolated world never noticed: its helper is intact and still answers.
            assert await in_world(session, "JSON.stringify(__browx.status())") == '{"state":"ready"}'
            assert await in_world(session, f"typeof globalThis[{json.dumps(bridge.binding)}]") == "function"
            await in_world(session, f"__browx.confirm(true, {json.dumps(ticket)})")
            assert (await prompt.wait())["value"] is True


async def test_wrong_and_stale_tickets_are_dropped(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    async with runtime_and_pages(tmp_path) as (runtime, base):
        await runtime.call_tool("navigate", {"url": f"{base}/human_second.html"})
        session = await session_actor(runtime, "default")
        async with trio.open_nursery() as nursery:
            first = Prompt(nursery, runtime, {"kind": "choose", "prompt": "A or B?", "choices": ["A", "B"]})
            old = await Prompt.ticket(session)
            wrong = "000000" if old != "000000" else "111111"
            await in_world(session, f"__browx.choose(0, {json.dumps(wrong)})")
            await in_world(session, "__browx.choose(0)")  # no ticket at all
            await in_world(session, f"__browx.choose(5, {json.dumps(old)})")  # not an index of it
            await in_world(session, f"__browx.confirm(true, {json.dumps(old)})")  # the wrong kind
            await trio.sleep(0.3)
            assert first.pending
            await in_world(session, f"__browx.choose(1, {json.dumps(old)})")
            assert (await first.wait())["value"] == 1

            second = Prompt(nursery, runtime, {"kind": "input", "prompt": "Name?"})
            new = await Prompt.ticket(session)
            assert new != old
            await in_world(session, f'__browx.input("stale", {json.dumps(old)})')
            await trio.sleep(0.3)
            assert second.pending
            await in_world(session, f'__browx.input("fresh", {json.dumps(new)})')
            assert (await second.wait())["value"] == "fresh"
        err = capsys.readouterr().err
        assert err.count("dropped a DevTools answer") == 5
        assert "no prompt with that ticket is waiting" in err and "an answer needs the prompt's ticket" in err


async def test_an_abort_from_devtools_ends_the_prompt(tmp_path: Path) -> None:
    async with runtime_and_pages(tmp_path) as (runtime, _):
        session = await session_actor(runtime, "default")
        async with trio.open_nursery() as nursery:
            prompt = Prompt(nursery, runtime, {"kind": "input", "prompt": "Password?"})
            ticket = await Prompt.ticket(session)
            assert await in_world(session, f'__browx.abort("not telling", {json.dumps(ticket)})') is True
            result = await prompt.wait()
        assert result["value"] is None and result["timedOut"] is False
        assert result["error"].startswith("human-aborted") and "not telling" in result["error"]


async def test_signals_are_noted_not_answers(tmp_path: Path) -> None:
    async with runtime_and_pages(tmp_path) as (runtime, _):
        session = await session_actor(runtime, "default")
        assert await in_world(session, '__browx.signal("paywall-hit", {price: 5})') is True
        assert await in_world(session, '__browx.done("logged in")') is True
        bridge = session.human
        await poll_until(lambda: len(bridge.signals) >= 2, interval=0.01, timeout=WAIT)
        assert [(s["name"], s["data"]) for s in bridge.signals] == [
            ("paywall-hit", {"price": 5}), ("did", {"what": "logged in", "data": None})]


async def test_the_world_survives_navigation_and_reaches_popups_and_frames(tmp_path: Path) -> None:
    async with runtime_and_pages(tmp_path) as (runtime, base):
        session = await session_actor(runtime, "default")
        bridge = session.human
        first_context = bridge.world_context()
        await runtime.call_tool("navigate", {"url": f"{base}/human_second.html"})
        assert await in_world(session, "document.title") == "human: second page"
        assert bridge.world_context() != first_context
        await runtime.call_tool("navigate", {"url": f"{base}/human_main.html"})
        assert await in_world(session, "document.title") == "human: hostile main world"

        # A noopener popup opened by a click on the session's page.
        await runtime.call_tool("click", {"selector": "#open-popup"})
        with trio.fail_after(WAIT):
            await bridge.wait_until(lambda: any(t.kind == "popup" for t in bridge.targets.values()))
        popup = next(t for t in bridge.targets.values() if t.kind == "popup")

        async def popup_loaded() -> bool:
            return await in_world(session, "document.title", popup.target_id) == "human: second page"

        await poll_until(popup_loaded, interval=0.05, timeout=WAIT)
        assert await in_world(session, "JSON.stringify(__browx.status())", popup.target_id) == '{"state":"ready"}'
        async with trio.open_nursery() as nursery:
            prompt = Prompt(nursery, runtime, {"kind": "confirm", "prompt": "From the popup?"})
            ticket = await Prompt.ticket(session)
            await in_world(session, f"__browx.confirm(true, {json.dumps(ticket)})", popup.target_id)
            assert (await prompt.wait())["value"] is True

        # A cross-site iframe runs in its own process: the bridge wires its target too.
        await runtime.call_tool("navigate", {"url": f"{base}/human_frame.html"})
        with trio.fail_after(WAIT):
            await bridge.wait_until(lambda: any(
                t.kind == "iframe" and t.world_context() is not None for t in bridge.targets.values()))
        frame = next(t for t in bridge.targets.values() if t.kind == "iframe")
        assert await in_world(session, "location.hostname", frame.target_id) == "localhost"
        async with trio.open_nursery() as nursery:
            prompt = Prompt(nursery, runtime, {"kind": "input", "prompt": "From the frame?"})
            ticket = await Prompt.ticket(session)
            await in_world(session, f'__browx.input("framed", {json.dumps(ticket)})', frame.target_id)
            assert (await prompt.wait())["value"] == "framed"


async def test_another_session_never_sees_this_world(tmp_path: Path) -> None:
    async with runtime_and_pages(tmp_path) as (runtime, base):
        one = await session_actor(runtime, "default")
        await runtime.call_tool("open_session", {"session": "other"})
        other = await session_actor(runtime, "other")
        assert one.human.world != other.human.world and one.human.binding != other.human.binding
        await runtime.call_tool("navigate", {"session": "other", "url": f"{base}/human_main.html"})
        await runtime.call_tool("click", {"session": "other", "selector": "#open-popup"})
        with trio.fail_after(WAIT):
            await other.human.wait_until(lambda: len(other.human.targets) == 2)
        assert list(one.human.targets) == [one.target_id]  # the other session's popup is not ours
        async with trio.open_nursery() as nursery:
            prompt = Prompt(nursery, runtime, {"kind": "confirm", "prompt": "Whose?"})
            ticket = await Prompt.ticket(one)
            await in_world(other, f"__browx.confirm(true, {json.dumps(ticket)})")
            await trio.sleep(0.3)
            assert prompt.pending
            await in_world(one, f"__browx.confirm(false, {json.dumps(ticket)})")
            assert (await prompt.wait())["value"] is False


async def test_other_tools_run_while_a_prompt_waits(tmp_path: Path) -> None:
    async with runtime_and_pages(tmp_path) as (runtime, base):
        session = await session_actor(runtime, "default")
        async with trio.open_nursery() as nursery:
            prompt = Prompt(nursery, runtime, {"kind": "acknowledge", "prompt": "Wait for me"})
            ticket = await Prompt.ticket(session)
            nav = await runtime.call_tool("navigate", {"url": f"{base}/human_second.html"})
            assert nav["ok"] and prompt.pending
            snap = await runtime.call_tool("snapshot")
            assert 'heading "Second page"' in snap["snapshot"]
            busy = await runtime.call_tool("await_human", {"prompt": "A second one?"})
            assert busy["code"] == "human-busy" and busy["ticket"] == ticket
            await in_world(session, f"__browx.proceed({json.dumps(ticket)}, 'after the navigation')")
            assert (await prompt.wait())["value"] == "after the navigation"


async def test_a_short_timeout_denies_and_a_late_answer_is_dropped(tmp_path: Path) -> None:
    async with runtime_and_pages(tmp_path) as (runtime, _):
        session = await session_actor(runtime, "default")
        async with trio.open_nursery() as nursery:
            prompt = Prompt(nursery, runtime, {"kind": "confirm", "prompt": "Quick!", "timeoutMs": 300})
            ticket = await Prompt.ticket(session)
            assert await prompt.wait() == {"ok": True, "kind": "confirm", "value": None, "timedOut": True}
        assert session.human.desk.prompts() == []
        assert await in_world(session, f"__browx.confirm(true, {json.dumps(ticket)})") is True  # sent, ignored
        bad = await runtime.call_tool("await_human", {"prompt": "x", "timeoutMs": -1})
        assert bad["code"] == "bad-arg" and bad["field"] == "timeoutMs"


async def test_a_session_without_a_bridge_has_no_human_channel(tmp_path: Path) -> None:
    async with runtime_and_pages(tmp_path) as (runtime, _):
        session = await session_actor(runtime, "default")
        session.human = None  # what an engine without an isolated world looks like
        with trio.fail_after(2):
            result = await runtime.call_tool("await_human", {"kind": "choose", "prompt": "x", "choices": ["a", "b"]})
        assert result["kind"] == "choose" and result["value"] is None and result["timedOut"] is False
        assert result["error"].startswith("no-human-channel")
        picked = await runtime.call_tool("await_human", {"kind": "pick_element", "prompt": "Which?"})
        assert "not yet available" in picked["error"]
