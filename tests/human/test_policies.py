"""The human-in-the-loop policies on real Chromium, through the runtime's one dispatch
path: confirm rules answered from the DevTools world and by the operator daemon, their
timeout, permission policies (allow, deny, ask-human), the ask-human dialog policy, and
an agent that tries to lift what the operator's policy file set.

A DevTools answer is sent exactly as DevTools sends it (``in_world``); the operator
daemon is a Unix socket speaking the operator wire (``test_operator_channel.py``).
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import trio

from browx_actors import RuntimeConfig, open_runtime
from browx_actors.demo import serve_directory
from e2e_support import session_actor
from human.test_human_bridge import Prompt, in_world
from human.test_operator_channel import TOKEN, daemon_socket, linked

PAGES = Path(__file__).parents[1] / "pages"
CAPS = ["eval", "policy"]


@asynccontextmanager
async def runtime(tmp_path: Path, policy: str | None = None, **env: str) -> AsyncIterator[tuple[Any, str]]:
    variables = {"BROWX_CAPABILITIES": ",".join(CAPS), **env}
    if policy is not None:
        path = tmp_path / "policy.toml"
        path.write_text(policy)
        variables["BROWX_POLICY"] = str(path)
    caps = variables["BROWX_CAPABILITIES"].split(",")
    with serve_directory(PAGES) as base:
        config = RuntimeConfig.from_env(variables, workspace=tmp_path / "ws")
        async with open_runtime(config=config, capabilities=caps) as rt:
            await rt.call_tool("navigate", {"url": f"{base}/policy_actions.html"})
            yield rt, base


class Call:
    """One tool call running in the background (it waits for a person)."""

    def __init__(self, nursery: trio.Nursery, rt: Any, tool: str, args: dict[str, Any]) -> None:
        self.result: dict[str, Any] | None = None
        nursery.start_soon(self._run, rt, tool, args)

    async def _run(self, rt: Any, tool: str, args: dict[str, Any]) -> None:
        self.result = await rt.call_tool(tool, args)


async def log(rt: Any) -> list[str]:
    return list((await rt.call_tool("eval_js", {"expr": "log"}))["value"])


async def answer_in_devtools(rt: Any, call: str) -> str:
    """Answer the open prompt from the isolated world; the question it asked."""
    session = await session_actor(rt, "default")
    ticket = await Prompt.ticket(session)
    question = session.human.desk.prompts()[0].spec.prompt
    assert await in_world(session, call.replace("TICKET", json.dumps(ticket))) is True
    return question


async def next_prompt(daemon: Any) -> dict[str, Any]:
    """The daemon's next ``human.prompt`` (passing the ``human.ended`` of earlier ones)."""
    while True:
        message: dict[str, Any] = await daemon.recv()
        if message["type"] == "human.prompt":
            return message


DELETE = '[[confirm]]\ntools = ["click"]\nname = "Pay|Delete|Place order"\n'


async def test_a_confirm_rule_runs_the_call_only_on_a_persons_yes(tmp_path: Path) -> None:
    async with runtime(tmp_path, "confirmTimeoutMs = 1500\n" + DELETE) as (rt, base):
        assert (await rt.call_tool("click", {"selector": "#save"}))["ok"] is True  # no rule: no question
        async with trio.open_nursery() as nursery:
            no = Call(nursery, rt, "click", {"selector": "#delete"})
            question = await answer_in_devtools(rt, "__browx.confirm(false, TICKET)")
        assert "click on button 'Delete account'" in question and base.split("//")[1] in question
        assert "Pay|Delete|Place order" in question
        assert no.result is not None and no.result["code"] == "confirmation-denied", no.result
        assert no.result["rule"] == "click name~/Pay|Delete|Place order/"
        assert await log(rt) == ["save"], "a refused call never reached the page"

        async with trio.open_nursery() as nursery:
            yes = Call(nursery, rt, "click", {"selector": "#delete"})
            await answer_in_devtools(rt, "__browx.confirm(true, TICKET)")
        assert yes.result is not None and yes.result["ok"] is True, yes.result
        assert await log(rt) == ["save", "delete"]

        late = await rt.call_tool("click", {"selector": "#delete"})  # nobody answers within 1.5 s
        assert late["code"] == "confirmation-timeout" and late["tool"] == "click"
        assert await log(rt) == ["save", "delete"]


async def test_submit_asks_for_what_submits_and_eval_for_scripts(tmp_path: Path) -> None:
    async with runtime(tmp_path, 'confirmTimeoutMs = 1000\n[[confirm]]\non = "submit"\n[[confirm]]\non = "eval"\n'
                       ) as (rt, _):
        assert (await rt.call_tool("press", {"selector": "input[name=q]", "key": "Tab"}))["ok"] is True
        assert (await rt.call_tool("click", {"selector": "#save"}))["ok"] is True  # type=button submits nothing
        assert (await rt.call_tool("press", {"selector": "input[name=q]", "key": "Enter"}))["code"] == \
            "confirmation-timeout"
        assert (await rt.call_tool("click", {"selector": "text=Search"}))["code"] == "confirmation-timeout"
        assert (await rt.call_tool("eval_js", {"expr": "log"}))["code"] == "confirmation-timeout"


async def test_the_operator_daemon_answers_confirm_rules(tmp_path: Path) -> None:
    async with daemon_socket(tmp_path) as socket:
        env = {"BROWX_CAPABILITIES": "operator-channel,eval", "BROWX_OPERATOR_SOCKET": str(socket.path),
               "BROWX_OPERATOR_TOKEN": TOKEN}
        async with runtime(tmp_path, DELETE, **env) as (rt, _):
            daemon = await linked(socket)
            for value, code in ((False, "confirmation-denied"), (True, None)):
                async with trio.open_nursery() as nursery:
                    call = Call(nursery, rt, "click", {"selector": "#delete"})
                    prompt = await next_prompt(daemon)
                    assert prompt.get("kind") == "confirm" and "Delete account" in prompt["prompt"], prompt
                    await daemon.send({"v": 1, "type": "human.done", "ticket": prompt["ticket"], "value": value})
                assert call.result is not None and call.result.get("code") == code, call.result
            assert await log(rt) == ["delete"]


async def test_permission_policies_allow_deny_and_ask_a_person(tmp_path: Path) -> None:
    async with runtime(tmp_path) as (rt, _):
        await rt.call_tool("emulate", {"geolocation": {"latitude": 52.37, "longitude": 4.9}})
        for answer, heard in (("allow", "geo:ok"), ("deny", "geo:1")):
            await rt.call_tool("set_permission_policy", {"perPermission": {"geolocation": answer}})
            state = await rt.call_tool("permission_state", {})
            assert state["states"]["geolocation"] == ("granted" if answer == "allow" else "denied")
            clicked = await rt.call_tool("click", {"selector": "#where"})
            assert clicked["permissionRequests"][0]["answer"] == ("allowed" if answer == "allow" else "denied")
            assert (await log(rt))[-1] == heard

        await rt.call_tool("set_permission_policy", {"default": "ask-human"})
        async with trio.open_nursery() as nursery:
            asked = Call(nursery, rt, "click", {"selector": "#where"})
            question = await answer_in_devtools(rt, "__browx.confirm(true, TICKET)")
        assert "asks for the geolocation permission" in question
        assert asked.result is not None and asked.result["permissionRequests"][0]["answer"] == "asking"
        await trio.sleep(0.3)  # the page's callback runs once the person's answer is in the browser
        after = await rt.call_tool("eval_js", {"expr": "log"})
        assert after["value"][-1] == "geo:ok"
        heard = asked.result["permissionRequests"] + after.get("permissionRequests", [])
        assert heard[1:] == [{"permission": "geolocation", "origin": state["origin"], "answer": "allowed",
                              "by": "person"}], heard
        assert (await rt.call_tool("permission_state", {}))["states"]["geolocation"] == "granted"


async def test_a_person_answers_dialogs_through_the_operator_channel(tmp_path: Path) -> None:
    async with runtime(tmp_path) as (rt, _):
        refused = await rt.call_tool("set_dialog_policy", {"policy": "ask-human"})
        assert refused["code"] == "no-human-channel" and "operator channel" in refused["error"]
    async with daemon_socket(tmp_path) as socket:
        env = {"BROWX_CAPABILITIES": "operator-channel,eval", "BROWX_OPERATOR_SOCKET": str(socket.path),
               "BROWX_OPERATOR_TOKEN": TOKEN}
        async with runtime(tmp_path, 'dialogs = "ask-human"\n', **env) as (rt, _):
            daemon = await linked(socket)
            clicked = await rt.call_tool("click", {"selector": "#sure"})
            assert clicked["dialog"]["message"] == "Really delete?"
            prompt = await next_prompt(daemon)
            assert prompt.get("kind") == "confirm" and "Really delete?" in prompt["prompt"], prompt
            agent = await rt.call_tool("handle_dialog", {"accept": True})
            assert agent["code"] == "policy-locked", "the operator's person answers, not the agent"
            await daemon.send({"v": 1, "type": "human.done", "ticket": prompt["ticket"], "value": True})
            with trio.fail_after(10):
                while True:
                    read = await rt.call_tool("eval_js", {"expr": "log"})
                    if read.get("ok"):
                        break
                    await trio.sleep(0.1)
            assert read["value"] == ["confirm:true"]
            assert read["dialogs"] == [{"type": "confirm", "message": "Really delete?", "defaultValue": "",
                                        "answer": "accepted", "by": "person"}]


async def test_the_agent_cannot_lift_what_the_operator_set(tmp_path: Path) -> None:
    policy = 'confirmTimeoutMs = 1000\ndialogs = "dismiss"\n' + DELETE + '[permissions]\ndefault = "deny"\n'
    async with runtime(tmp_path, policy) as (rt, _):
        for tool, args, what in (("set_dialog_policy", {"policy": "accept"}, "dialogs"),
                                 ("set_permission_policy", {"default": "allow"}, "permissions")):
            locked = await rt.call_tool(tool, args)
            assert locked["code"] == "policy-locked" and locked["policy"] == what, locked
        cleared = await rt.call_tool("set_confirm_policy", {"rules": []})
        assert cleared["operatorRules"] == ["click name~/Pay|Delete|Place order/"]
        assert (await rt.call_tool("click", {"selector": "#delete"}))["code"] == "confirmation-timeout"
        state = await rt.call_tool("permission_state", {})
        assert state["setBy"] == "operator" and state["states"]["geolocation"] == "denied"
        dismissed = await rt.call_tool("click", {"selector": "#sure"})
        assert dismissed["dialogs"][0]["answer"] == "dismissed"
    async with runtime(tmp_path, DELETE, BROWX_CAPABILITIES="eval") as (rt, _):
        off = await rt.call_tool("set_confirm_policy", {"rules": []})
        assert off["code"] == "capability-denied" and off["capability"] == "policy"


async def test_navigation_off_the_allow_list_is_asked_about_and_a_yes_lets_the_session_there(
        tmp_path: Path, pages_url2: str) -> None:
    with serve_directory(PAGES) as base:
        policy = tmp_path / "policy.toml"
        policy.write_text('confirmTimeoutMs = 5000\n[[confirm]]\non = "off-allow-list"\n')
        config = RuntimeConfig.from_env({"BROWX_CAPABILITIES": "eval", "BROWX_POLICY": str(policy),
                                         "BROWX_ALLOWED_ORIGINS": base,
                                         "BROWX_BLOCKED_ORIGINS": "blocked.example"}, workspace=tmp_path / "ws")
        async with open_runtime(config=config, capabilities=["eval"]) as rt:
            await rt.call_tool("navigate", {"url": f"{base}/policy_actions.html"})
            never = await rt.call_tool("navigate", {"url": "https://blocked.example/"})
            assert never["code"] == "origin-blocked", "the block list is never asked about"
            target = f"{pages_url2}/e2e_app.html"
            async with trio.open_nursery() as nursery:
                no = Call(nursery, rt, "navigate", {"url": target})
                question = await answer_in_devtools(rt, "__browx.confirm(false, TICKET)")
            assert "off the operator's allowed origins" in question and pages_url2 in question
            assert no.result is not None and no.result["code"] == "confirmation-denied"
            async with trio.open_nursery() as nursery:
                yes = Call(nursery, rt, "navigate", {"url": target})
                await answer_in_devtools(rt, "__browx.confirm(true, TICKET)")
            assert yes.result is not None and yes.result["ok"] is True, yes.result
            assert yes.result["url"].startswith(pages_url2) and "blockedRequests" not in yes.result
            again = await rt.call_tool("navigate", {"url": f"{pages_url2}/page_data.json"})
            assert again["ok"] is True, "admitted for the rest of the session: not asked again"


async def test_a_download_reaches_the_workspace_only_on_a_persons_yes(tmp_path: Path) -> None:
    async with runtime(tmp_path, 'confirmTimeoutMs = 5000\n[[confirm]]\non = "download"\n') as (rt, base):
        await rt.call_tool("navigate", {"url": f"{base}/page_form.html"})
        kept = tmp_path / "ws" / "downloads" / "default"
        for say, state in (("false", "canceled"), ("true", "completed")):
            async with trio.open_nursery() as nursery:
                Call(nursery, rt, "click", {"selector": "#report"})
                question = await answer_in_devtools(rt, f"__browx.confirm({say}, TICKET)")
            assert "downloaded 'quarterly report.csv'" in question and "on download" in question
            with trio.fail_after(10):
                while True:
                    listed = await rt.call_tool("downloads_list", {"details": True})
                    last = listed["downloads"][-1]
                    if last["state"] != "in-progress":
                        break
                    await trio.sleep(0.1)
            assert last["state"] == state, last
        assert listed["downloads"][0]["failure"] == "a person declined it (confirm rule 'on download')"
        assert sorted(p.name for p in kept.iterdir()) == ["quarterly report.csv"], "only the kept one is there"


async def test_a_download_rule_fails_closed_on_firefox(tmp_path: Path) -> None:
    async with runtime(tmp_path, '[[confirm]]\non = "download"\n') as (rt, base):
        await rt.call_tool("open_session", {"session": "fx", "engine": "firefox"})
        await rt.call_tool("navigate", {"session": "fx", "url": f"{base}/page_form.html"})
        clicked = await rt.call_tool("click", {"session": "fx", "selector": "#report"})
        with trio.fail_after(10):
            while True:
                [record] = (await rt.call_tool("downloads_list", {"session": "fx", "details": True}))["downloads"]
                if record["state"] != "in-progress":
                    break
                await trio.sleep(0.1)
        assert record["state"] == "canceled" and "no human channel" in record["failure"], (clicked, record)
        assert not (tmp_path / "ws" / "downloads" / "fx").exists() or \
            not any((tmp_path / "ws" / "downloads" / "fx").iterdir())
