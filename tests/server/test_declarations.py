"""Tool declarations: rules between arguments, the fast refusal, the error table.

A tool's rules are declared beside its parameters and checked by the dispatch before
anything is acquired; the error table in ``browx_actors/errors.py`` is the one list of
codes, and every code the source raises is in it.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from browx_actors import RuntimeConfig, open_runtime
from browx_actors.config import DEFAULT_CAPABILITIES
from browx_actors.errors import CODES, CORE_CODES, FAILURE_KINDS, ToolError, UnknownErrorCode, failure_kind
from browx_actors.secret_book import SecretBook
from browx_actors.server.catalog import all_tools, assemble
from browx_actors.server.dispatch import Dispatcher
from browx_actors.server.docs import render
from browx_actors.tools import (
    AtLeastOne,
    AtMostOne,
    CapabilityWhen,
    Check,
    ExactlyOne,
    Excludes,
    Gates,
    Param,
    Reply,
    Requires,
    implement,
    runtime_tool,
    session_tool,
)

PACKAGE = Path(__file__).parents[2] / "browx_actors"


def _bad(rule: Any, args: dict[str, Any]) -> ToolError:
    with pytest.raises(ToolError) as caught:
        rule.check(args)
    return caught.value


@pytest.mark.parametrize(("args", "field"), [
    ({}, "ref"),
    ({"ref": "e1", "selector": "#a"}, "selector"),
    ({"selector": "#a", "coords": {"x": 1, "y": 1}}, "coords"),
    ({"ref": "e1", "selector": "#a", "coords": {}}, "selector"),
])
def test_exactly_one_names_the_second_given_or_the_first_field(args: dict[str, Any], field: str) -> None:
    err = _bad(ExactlyOne(("ref", "selector", "coords")), args)
    assert (err.code, err.details["field"]) == ("bad-arg", field)
    assert err.message == "give exactly one of ref, selector, coords"


def test_the_other_rules_accept_what_they_allow_and_refuse_the_rest() -> None:
    ExactlyOne(("a", "b")).check({"a": 1, "b": None})
    AtMostOne(("a", "b")).check({})
    assert _bad(AtMostOne(("a", "b")), {"a": 1, "b": 2}).details["field"] == "b"
    AtLeastOne(("a", "b")).check({"b": 0})
    assert _bad(AtLeastOne(("a", "b")), {}).details["field"] == "a"
    Requires("width", ("height",)).check({})
    assert _bad(Requires("width", ("height",)), {"width": 3}).details["field"] == "height"
    Excludes("fullPage", ("ref",), "no").check({"fullPage": False, "ref": "e1"})
    assert _bad(Excludes("fullPage", ("ref",), "no"), {"fullPage": True, "ref": "e1"}).details["field"] == "fullPage"
    when = CapabilityWhen("engine", ("android-app",), "native-device")
    assert when.needed({"engine": "android-app"}) == "native-device" and when.needed({"engine": "chromium"}) is None


def test_every_rule_describes_itself_in_the_reference() -> None:
    docs = render()
    for tool in all_tools():
        for rule in tool.rules:
            assert rule.describe() in docs, (tool.name, rule)


async def test_the_dispatch_checks_rules_and_argument_capabilities_before_the_handler() -> None:
    ran: list[dict[str, Any]] = []

    def positive(args: dict[str, Any]) -> None:
        if args["n"] is not None and args["n"] < 0:
            raise ToolError("bad-arg", "n must not be negative", field="n")

    @runtime_tool("probe", "read", "", params=(Param("a", "string", ""), Param("b", "string", ""),
                                               Param("n", "integer", ""), Param("mode", "string", "", default="x")),
                  rules=(AtMostOne(("a", "b")), Check(positive, "n >= 0"),
                         CapabilityWhen("mode", ("deep",), "eval")))
    async def probe(context: Any, args: dict[str, Any]) -> Reply:
        ran.append(args)
        return Reply.of(seen=True)

    gates = Gates(DEFAULT_CAPABILITIES, DEFAULT_CAPABILITIES)
    dispatcher = Dispatcher([probe], context=None, gates=gates, secrets=SecretBook())  # type: ignore[arg-type]
    assert (await dispatcher.dispatch("probe", {"a": "1", "b": "2"})).envelope["field"] == "b"
    assert (await dispatcher.dispatch("probe", {"n": -1})).envelope["field"] == "n"
    denied = (await dispatcher.dispatch("probe", {"mode": "deep"})).envelope
    assert denied["code"] == "capability-denied" and denied["capability"] == "eval"
    assert gates.denials == {"probe": 1}
    assert ran == []
    assert (await dispatcher.dispatch("probe", {"a": "1", "n": 2})).envelope == {"ok": True, "seen": True}


async def test_a_bad_call_on_a_fresh_runtime_launches_nothing_and_opens_nothing(tmp_path: Path) -> None:
    async with open_runtime(config=RuntimeConfig(workspace=tmp_path)) as runtime:
        for tool, args in [("click", {}), ("fill", {"value": "x"}), ("click", {"ref": "e1", "selector": "#a"}),
                           ("screenshot", {"fullPage": True, "ref": "e1"}), ("wait_for", {}),
                           ("open_session", {"session": "p", "engine": "android-app"}),
                           ("gesture_chain", {"steps": [{"kind": "jump"}]})]:
            envelope = await runtime.call_tool(tool, args)
            assert envelope["ok"] is False and envelope["code"] in ("bad-arg", "capability-denied"), envelope
        status = await runtime.call_tool("runtime_status")
        pool = next(c for c in status["tree"]["children"] if c["id"] == "browser-pool")
        assert pool["launches"] == 0 and pool["browser"] is None
        assert status["sessions"] == [] and await runtime.session_ids() == []


async def test_runtime_status_shows_every_actors_mailbox(tmp_path: Path) -> None:
    async with open_runtime(config=RuntimeConfig(workspace=tmp_path)) as runtime:
        await runtime.call_tool("open_session", {"session": "s1"})
        assert (await runtime.call_tool("snapshot", {"session": "s1"}))["ok"]
        status = await runtime.call_tool("runtime_status")
        tree = status["tree"]
        assert set(tree["statistics"]) == {"mailbox", "pending", "served", "timedOut"}
        for child in tree["children"]:
            assert child["statistics"]["mailbox"]["capacity"] > 0, child
        sessions = next(c for c in tree["children"] if c["id"] == "sessions")
        (s1,) = sessions["children"]
        assert s1["id"] == "s1" and s1["engine"] == "chromium"
        assert s1["statistics"]["served"] >= 1 and s1["statistics"]["timedOut"] == 0


def test_an_unlisted_code_cannot_be_raised() -> None:
    with pytest.raises(UnknownErrorCode, match="never-heard-of-it"):
        ToolError("never-heard-of-it", "x")


def test_every_code_has_a_kind_and_the_table_is_documented() -> None:
    docs = render()
    for code in CORE_CODES.values():
        assert code.kind in FAILURE_KINDS and code.meaning
        assert failure_kind(code.name) == code.kind
        assert f"| `{code.name}` | {code.meaning} | {code.kind} |" in docs


def _codes_in_source() -> set[str]:
    """Every literal code the package raises: ToolError("...") in Python, and the
    agent's fail('...') codes as tools map them."""
    found: set[str] = set()
    for path in PACKAGE.rglob("*.py"):
        found.update(re.findall(r'ToolError\(\s*"([a-z_-]+)"', path.read_text()))
        found.update(re.findall(r'Outcome\(\s*code="([a-z_-]+)"', path.read_text()))
    return found


def test_every_code_the_source_raises_is_in_the_table() -> None:
    missing = _codes_in_source() - set(CODES)
    assert not missing, f"codes raised but not in browx_actors/errors.py: {sorted(missing)}"


def test_the_catalog_refuses_duplicates_and_orphan_implementations() -> None:
    @session_tool("t", "read", "")
    async def t(session: Any, args: dict[str, Any]) -> Reply:
        return Reply()

    with pytest.raises(ValueError, match="declared twice"):
        assemble([t, t])

    async def other(session: Any, args: dict[str, Any]) -> Reply:
        return Reply.of(engine="other")

    with pytest.raises(ValueError, match="no module declares"):
        assemble([t], [implement("u", "android-app")(other)])
    (merged,) = assemble([t], [implement("t", "android-app")(other)])
    assert set(merged.engines) == {"chromium", "android-app"}


async def test_a_session_whose_engine_lacks_the_tool_refuses_naming_both() -> None:
    @session_tool("only_web", "read", "")
    async def only_web(session: Any, args: dict[str, Any]) -> Reply:
        return Reply()

    class Phone:
        engine = "android-app"

        def refusal(self, tool: str) -> str | None:
            return f"{tool} needs a DOM, which a native screen does not have"

    with pytest.raises(ToolError) as caught:
        await only_web.run_in(Phone(), {})
    assert caught.value.code == "not-supported" and caught.value.details == {"engine": "android-app",
                                                                             "tool": "only_web"}
    assert "needs a DOM" in caught.value.message


def _is_number(type_name: Any) -> bool:
    names = [type_name] if isinstance(type_name, str) else list(type_name or ())
    return any(name in ("number", "integer") for name in names)


def _numbers_of(tool: Any) -> list[tuple[str, Any, Any]]:
    """Every number a tool takes, as (where, minimum, maximum): parameters, the
    properties of object parameters and of the items of arrays of objects (one
    ``properties`` declaration serves both), whatever list of types they take."""
    found = []
    for param in tool.params:
        if _is_number(param.type):
            found.append((param.name, param.minimum, param.maximum))
        if param.type == "array" and _is_number(param.items):
            found.append((f"{param.name}[]", param.minimum, param.maximum))  # each item's range
        if param.type == "array" and param.items == "object":
            assert param.properties is not None, f"{tool.name}.{param.name}: declare the items' properties"
        kind = "[]" if param.type == "array" else ""
        for key, sub in (param.properties or {}).items():
            if _is_number(sub.get("type")):
                found.append((f"{param.name}{kind}.{key}", sub.get("minimum"), sub.get("maximum")))
    return found


def test_every_number_a_tool_takes_is_declared_with_a_range() -> None:
    """Finite is not enough: a move to x=1e308 hung the browser. The dispatch refuses
    what is out of range before anything is acquired, so every number declares one."""
    unranged = [f"{tool.name}.{where}" for tool in all_tools() for where, low, high in _numbers_of(tool)
                if low is None or high is None]
    assert unranged == []


@pytest.mark.parametrize(("tool", "args", "field"), [
    ("gesture_chain", {"steps": [{"kind": "move", "x": 1e308, "y": 1}]}, "steps[0].x"),
    ("gesture_chain", {"steps": [{"kind": "wheel", "deltaY": -1e300}]}, "steps[0].deltaY"),
    ("click", {"coords": {"x": 1, "y": -1e9}}, "coords.y"),
    ("scroll", {"deltaY": 1e12}, "deltaY"),
    ("canvas_world_to_screen", {"worldX": 1, "worldY": 1, "transform": {"scale": 1e300, "panX": 0, "panY": 0}},
     "transform.scale"),
    ("canvas_screen_to_world", {"screenX": 1e200, "screenY": 0}, "screenX"),
    ("screenshot", {"region": {"x": 0, "y": 0, "width": 1e9, "height": 10}}, "region.width"),
    ("touch_end", {"ids": [0, 10**12]}, "ids[1]"),
    ("console_read", {"since": 2**63}, "since"),
    ("ui.query_nodes", {"intersects": {"x": 0, "y": -1e300, "width": 1, "height": 1}}, "intersects.y"),
    ("ui.wait", {"condition": "exists", "contains": {"x": 1e300, "y": 0}}, "contains.x"),
])
async def test_absurd_numbers_are_refused_at_the_dispatch(tool: str, args: dict[str, Any], field: str) -> None:
    config = RuntimeConfig(capabilities=DEFAULT_CAPABILITIES | {"canvas"})
    dispatcher = Dispatcher(all_tools(), context=None,  # type: ignore[arg-type]
                            gates=Gates(config.capabilities, config.capabilities), secrets=SecretBook())
    envelope = (await dispatcher.dispatch(tool, args)).envelope
    assert (envelope["code"], envelope["field"]) == ("bad-arg", field), envelope
