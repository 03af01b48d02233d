"""Tool declarations: argument classes, rules between arguments, the fast refusal, the
catalog held whole against the engines' tables, refusals, the error table.

A tool's rules are declared beside its parameters and checked by the dispatch before
anything is acquired; every session tool has a line in every engine's table (a handler
or a named refusal), or the catalog is not built; the error table in
``browx_actors/errors.py`` is the one list of codes, and every code the source raises is
in it.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import attrs
import pytest

from browx_actors import RuntimeConfig, open_runtime, tools
from browx_actors.config import DEFAULT_CAPABILITIES
from browx_actors.errors import CODES, CORE_CODES, FAILURE_KINDS, ToolError, UnknownErrorCode, failure_kind
from browx_actors.runtime.factory import TABLES
from browx_actors.runtime.table import RUNTIME
from browx_actors.secret_book import SecretBook
from browx_actors.server.catalog import Catalog, IncompleteCatalog, default_catalog
from browx_actors.server.dispatch import Dispatcher
from browx_actors.server.docs import render
from browx_actors.sessions.android.table import ANDROID_APP
from browx_actors.sessions.chromium.table import TABLE as CHROMIUM
from browx_actors.sessions.messages import ToolCall
from browx_actors.sessions.session import Session
from browx_actors.tools import (
    UNSET,
    Arguments,
    AtLeastOne,
    AtMostOne,
    CapabilityWhen,
    Check,
    ExactlyOne,
    Excludes,
    Gates,
    JsonArgs,
    NoArgs,
    Param,
    Refusal,
    Reply,
    Requires,
    Runs,
    SessionArgs,
    Table,
    arg,
    arguments,
    param,
    refuses,
    runs,
    runtime_tool,
    session_tool,
)
from browx_actors.tools.arguments import snake
from browx_actors.tools.contract import READS

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
    for tool in tools.ALL:
        for rule in tool.rules:
            assert rule.describe() in docs, (tool.name, rule)


def _positive(args: JsonArgs) -> None:
    if args["n"] is not None and args["n"] < 0:
        raise ToolError("bad-arg", "n must not be negative", field="n")


@arguments
class ProbeArgs(Arguments):
    a: str | None = param("a", "string", "")
    b: str | None = param("b", "string", "")
    n: int | None = param("n", "integer", "", minimum=-10, maximum=10)
    mode: str = param("mode", "string", "", default="x")


PROBE = runtime_tool("probe", ProbeArgs, title="Probe", capability="read", hints=READS, summary="Probe.",
                     rules=(AtMostOne(("a", "b")), Check(_positive, "n >= 0"),
                            CapabilityWhen("mode", ("deep",), "eval")))


def runtime_only(*lines: Runs[Any, Any]) -> Catalog:
    """A catalog of runtime tools alone, each run by its line, with no engine."""
    return Catalog.of([line.tool for line in lines], Table.of("runtime", lines), {})


async def test_the_dispatch_checks_rules_and_argument_capabilities_before_the_handler() -> None:
    ran: list[ProbeArgs] = []

    async def probe(context: Any, args: ProbeArgs) -> Reply:
        ran.append(args)
        return Reply.of(seen=True)

    gates = Gates(DEFAULT_CAPABILITIES, DEFAULT_CAPABILITIES)
    dispatcher = Dispatcher(runtime_only(runs(PROBE, probe)), context=None,  # type: ignore[arg-type]
                            gates=gates, secrets=SecretBook())
    assert (await dispatcher.dispatch("probe", {"a": "1", "b": "2"})).envelope["field"] == "b"
    assert (await dispatcher.dispatch("probe", {"n": -1})).envelope["field"] == "n"
    denied = (await dispatcher.dispatch("probe", {"mode": "deep"})).envelope
    assert denied["code"] == "capability-denied" and denied["capability"] == "eval"
    assert gates.denials == {"probe": 1}
    assert ran == []
    assert (await dispatcher.dispatch("probe", {"a": "1", "n": 2})).envelope == {"ok": True, "seen": True}
    assert ran == [ProbeArgs(a="1", n=2)]  # the handler got its argument class, defaults filled in
    assert (ran[0].a, ran[0].b, ran[0].n, ran[0].mode) == ("1", None, 2, "x")


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


@arguments
class OnlyWebArgs(SessionArgs):
    pass


ONLY_WEB = session_tool("only_web", OnlyWebArgs, title="Only web", capability="read", hints=READS,
                        summary="A session tool only a browser runs.")
LISTING = runtime_tool("listing", NoArgs, title="Listing", capability="read", hints=READS, summary="A runtime tool.")


async def _web(session: Any, args: OnlyWebArgs) -> Reply:
    return Reply.of(engine="chromium")


async def _other(session: Any, args: OnlyWebArgs) -> Reply:
    return Reply.of(engine="other")


async def _listing(context: Any, args: NoArgs) -> Reply:
    return Reply.of(listed=True)


def _problems(tools_: list[Any], runtime: list[Any], engines: dict[str, list[Any]]) -> list[str]:
    with pytest.raises(IncompleteCatalog) as caught:
        Catalog.of(tools_, Table.of("runtime", runtime), {e: Table.of(e, lines) for e, lines in engines.items()})
    assert isinstance(caught.value, ValueError) and caught.value.problems
    assert all(problem in str(caught.value) for problem in caught.value.problems)
    return caught.value.problems


def test_the_catalog_refuses_duplicates_and_table_lines_nobody_declared() -> None:
    runtime = [runs(LISTING, _listing)]
    web = {"chromium": [runs(ONLY_WEB, _web)]}
    assert _problems([ONLY_WEB, ONLY_WEB, LISTING], runtime, web) == ["only_web is declared twice"]

    undeclared = session_tool("u", OnlyWebArgs, title="U", capability="read", hints=READS, summary="U.")
    assert _problems([ONLY_WEB, LISTING], runtime, {**web, "android-app": [runs(ONLY_WEB, _other),
                                                                          runs(undeclared, _other)]}) \
        == ["the android-app table names u, which no declaration has"]

    # A line must hold the declared Tool itself, not one that merely shares its name.
    lookalike = attrs.evolve(ONLY_WEB, summary="Another declaration.")
    assert _problems([ONLY_WEB, LISTING], runtime, {"chromium": [runs(lookalike, _web)]}) \
        == ["the chromium table's only_web is not the declared one"]

    # A runtime tool in an engine's table, a session tool in the runtime's: the wrong scope.
    assert _problems([ONLY_WEB, LISTING], [*runtime, runs(ONLY_WEB, _web)], {"chromium": [runs(ONLY_WEB, _web),
                                                                                            runs(LISTING, _listing)]}) \
        == ["the runtime table names only_web, a session tool", "the chromium table names listing, a runtime tool"]

    assert _problems([ONLY_WEB, LISTING], [], web) == ["runtime tool listing has no handler in the runtime table"]

    with pytest.raises(ValueError, match="names 'only_web' twice"):
        Table.of("chromium", [runs(ONLY_WEB, _web), refuses(ONLY_WEB, "twice")])

    catalog = Catalog.of([ONLY_WEB, LISTING], Table.of("runtime", runtime),
                         {"chromium": Table.of("chromium", web["chromium"]),
                          "android-app": Table.of("android-app", [runs(ONLY_WEB, _other)])})
    assert list(catalog) == [ONLY_WEB, LISTING] and catalog.get("only_web") is ONLY_WEB and catalog.get("u") is None
    assert set(catalog.engines) == {"chromium", "android-app"}
    handlers = {engine: line.handler for engine, table in catalog.engines.items()
                if isinstance(line := table.entry("only_web"), Runs)}
    assert handlers == {"chromium": _web, "android-app": _other}


def test_the_real_catalog_is_whole_and_a_table_missing_a_tool_stops_it() -> None:
    catalog = default_catalog()
    assert list(catalog) == list(tools.ALL) and len(catalog.tools) == 100
    assert set(catalog.engines) == {"chromium", "firefox", "chrome-android", "android-app", "ios-app"}
    session_tools = [tool for tool in catalog if tool.scope == "session"]
    assert session_tools and all(catalog.engines[engine].entry(tool.name) is not None
                                 for engine in catalog.engines for tool in session_tools)
    assert all(isinstance(catalog.runtime.entry(tool.name), Runs) for tool in catalog if tool.scope == "runtime")

    short = Table.of("chromium", [line for line in CHROMIUM if line.tool is not tools.CLICK])
    assert len(short.entries) == len(CHROMIUM.entries) - 1
    with pytest.raises(IncompleteCatalog) as caught:
        Catalog.of(tools.ALL, RUNTIME, {**TABLES, "chromium": short})
    assert caught.value.problems == ["session tool click is neither run nor refused by the chromium table"]


def test_every_declaration_has_a_title_a_one_line_summary_hints_and_its_argument_class() -> None:
    mcp_keys = {"readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"}
    for tool in tools.ALL:
        assert tool.title.strip(), tool.name
        assert tool.summary.strip() and "\n" not in tool.summary, tool.name
        assert tool.text == (tool.description or tool.summary)
        annotations = tool.hints.annotations()
        assert set(annotations) == mcp_keys and all(isinstance(v, bool) for v in annotations.values()), tool.name
        assert tool.args.params() == tool.params, tool.name
        fields = [field.name for field in attrs.fields(tool.args)]
        assert sorted(fields) == sorted(snake(p.name) for p in tool.params), tool.name
        if tool.scope == "session":
            assert issubclass(tool.args, SessionArgs) and tool.params[-1].name == "session", tool.name


def test_an_argument_class_must_spell_each_json_name_in_snake_case() -> None:
    with pytest.raises(TypeError, match="declares 'clickCount'; name the attribute 'click_count'"):
        @arguments
        class Misnamed(Arguments):
            clicks: int = param("clickCount", "integer", "", default=1, minimum=1, maximum=3)

    with pytest.raises(TypeError, match=r"Undeclared\.plain is not declared by a Param"):
        @arguments
        class Undeclared(Arguments):
            plain: int = 3

    with pytest.raises(TypeError, match="derive from SessionArgs"):
        session_tool("x", NoArgs, title="X", capability="read", hints=READS, summary="X.")


def test_an_argument_class_is_built_from_and_read_back_as_json() -> None:
    @arguments
    class EchoArgs(SessionArgs):
        text: str = param("text", "string", "What to echo.", required=True)
        click_count: int = arg(Param("clickCount", "integer", "", default=1, minimum=1, maximum=3))
        from_: str | None = param("from", "string", "")
        clear: int | None = param("clear", "integer", "", nullable=True, minimum=0, maximum=1)

    assert [p.name for p in EchoArgs.params()] == ["text", "clickCount", "from", "clear", "session"]
    made = EchoArgs.of({"text": "hi", "clickCount": 2, "from": None, "session": "s1"})
    assert (made.text, made.click_count, made.from_, made.session, made.clear) == ("hi", 2, None, "s1", UNSET)
    assert made.json() == {"session": "s1", "text": "hi", "clickCount": 2, "from": None}
    assert not hasattr(made, "__getitem__"), "arguments are read as attributes, never by JSON name"
    assert EchoArgs.of({"text": "x", "clear": None}).json()["clear"] is None  # null sent: None, not UNSET
    assert made.replace(click_count=3).click_count == 3 and made.click_count == 2


def test_a_refusal_answers_the_specs_code_naming_the_tool_and_engine() -> None:
    line = ANDROID_APP.entry("gesture_pinch")
    assert isinstance(line, Refusal) and line.tool is tools.GESTURE_PINCH
    assert line.code == "native-pinch-needs-multitouch-driver" and line.code in CODES
    err = line.error("android-app")
    assert isinstance(err, ToolError) and err.code == "native-pinch-needs-multitouch-driver"
    assert err.message.startswith("gesture_pinch is not available on android-app: ")
    assert err.message.endswith(line.missing)
    assert err.details == {"engine": "android-app", "tool": "gesture_pinch"}


async def test_a_session_whose_engine_refuses_the_tool_answers_naming_both(tmp_path: Path) -> None:
    class Phone(Session):
        engine = "android-app"

    table = Table.of("android-app", [refuses(ONLY_WEB, "it needs a DOM, which a native screen does not have")])
    phone = Phone("p", table=table, workspace=tmp_path)
    with pytest.raises(ToolError) as caught:
        await phone.handle(ToolCall(ONLY_WEB, OnlyWebArgs(session="p")))
    assert caught.value.code == "not-supported" and caught.value.details == {"engine": "android-app",
                                                                             "tool": "only_web"}
    assert caught.value.message == ("only_web is not available on android-app: it needs a DOM, which a native "
                                    "screen does not have")


def _is_number(type_name: Any) -> bool:
    names = [type_name] if isinstance(type_name, str) else list(type_name or ())
    return any(name in ("number", "integer") for name in names)


def _numbers_of(tool: Any) -> list[tuple[str, Any, Any]]:
    """Every number a tool takes, as (where, minimum, maximum): parameters, the
    properties of object parameters and of the items of arrays of objects (one
    ``properties`` declaration serves both), whatever list of types they take."""
    found = []
    for declared in tool.params:
        if _is_number(declared.type):
            found.append((declared.name, declared.minimum, declared.maximum))
        if declared.type == "array" and _is_number(declared.items):
            found.append((f"{declared.name}[]", declared.minimum, declared.maximum))  # each item's range
        if declared.type == "array" and declared.items == "object":
            assert declared.properties is not None, f"{tool.name}.{declared.name}: declare the items' properties"
        kind = "[]" if declared.type == "array" else ""
        for key, sub in (declared.properties or {}).items():
            if _is_number(sub.get("type")):
                found.append((f"{declared.name}{kind}.{key}", sub.get("minimum"), sub.get("maximum")))
    return found


def test_every_number_a_tool_takes_is_declared_with_a_range() -> None:
    """Finite is not enough: a move to x=1e308 hung the browser. The dispatch refuses
    what is out of range before anything is acquired, so every number declares one."""
    unranged = [f"{tool.name}.{where}" for tool in tools.ALL for where, low, high in _numbers_of(tool)
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
    dispatcher = Dispatcher(default_catalog(), context=None,  # type: ignore[arg-type]
                            gates=Gates(config.capabilities, config.capabilities), secrets=SecretBook())
    envelope = (await dispatcher.dispatch(tool, args)).envelope
    assert (envelope["code"], envelope["field"]) == ("bad-arg", field), envelope
