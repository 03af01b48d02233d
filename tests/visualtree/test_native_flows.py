"""The ui.* tools on a native engine, through the seam a native engine plugs into.

The engine here is a small session actor of the real actor kernel (a
:class:`~browx_actors.sessions.session.Session`) that holds a scripted NativeNode screen
and two primitives (tap, setValue), so the timing of ``ui.wait`` runs under Trio's
MockClock; its :meth:`visual_provider` is a :class:`NativeProvider` over them, and its
table is the ``ui.*`` lines every engine's table takes (``sessions/visual.py``), over
that provider. The calls go through the real declarations,
the catalog and the one dispatch path, and reach the session as
:class:`~browx_actors.sessions.messages.ToolCall`. What is shown: the native payload and
its format, query, act and wait (answered later, the session serving meanwhile), stale
references, and the refusal of an action the engine has no primitive for, naming the
provider. The real android-app and ios-app sessions, over the fake adb server and the
fake WebDriverAgent, are ``test_e2e_native.py``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import attrs
import pytest
import trio

from browx_actors import tools
from browx_actors.config import DEFAULT_CAPABILITIES
from browx_actors.devices.nodes import NativeNode, Rect
from browx_actors.kernel.actor_ref import ActorRef
from browx_actors.secret_book import SecretBook
from browx_actors.server.catalog import Catalog, default_catalog
from browx_actors.server.dispatch import Dispatcher
from browx_actors.sessions import visual
from browx_actors.sessions.chromium.reading.dom_provider import DomProvider
from browx_actors.sessions.messages import SessionCall, ToolCall
from browx_actors.sessions.native import visual as native_visual
from browx_actors.sessions.session import Session
from browx_actors.tools import Arguments, Gates, Reply, Runs, Table, Tool, ToolOutput
from browx_actors.visualtree.model import NATIVE_FORMAT, RawNode
from browx_actors.visualtree.native_provider import NativeProvider, native_path
from browx_actors.visualtree.snapshots import Capture
from visualtree.contract_schema import check_matches, check_tree, payload_of

#: The ui.* tools, in the catalog's order, and the handler of :class:`visual.VisualTools` each runs.
UI_TOOLS: dict[Tool[Any], Any] = {
    tools.GET_VISUAL_TREE: visual.VisualTools.get_visual_tree,
    tools.QUERY_NODES: visual.VisualTools.query_nodes,
    tools.INSPECT_NODE: visual.VisualTools.inspect_node,
    tools.PERFORM_ACTION: visual.VisualTools.perform_action,
    tools.WAIT_NODES: visual.VisualTools.wait,
}
WAITED = ("condition", "attempts", "waitedMs")


def screen(*, signed_in: bool, email: str) -> NativeNode:
    children = [
        NativeNode("textbox", "android.widget.EditText", name="Email", text=email, value=email,
                   test_id="com.example.shop:id/email", clickable=True, focusable=True,
                   bounds=Rect(40, 200, 1000, 120)),
        NativeNode("checkbox", "android.widget.CheckBox", text="Remember me", clickable=True, checkable=True,
                   bounds=Rect(40, 480, 500, 80)),
        NativeNode("button", "android.widget.Button", text="Sign in", test_id="com.example.shop:id/signin",
                   clickable=True, bounds=Rect(40, 600, 1000, 140)),
    ]
    if signed_in:
        children.append(NativeNode("text", "android.widget.TextView", text=f"Welcome {email}",
                                   test_id="com.example.shop:id/welcome", bounds=Rect(40, 800, 1000, 80)))
    return NativeNode("generic", "android.widget.FrameLayout", bounds=Rect(0, 0, 1080, 1920),
                      children=tuple(children))


class Phone(Session):
    """A native engine's session: a screen, its primitives, the visual tree's book (the base's)."""

    engine = "android-app"

    def __init__(self) -> None:
        super().__init__("phone", table=PHONE_TABLE, workspace=Path("."))
        self.email = "ann@example.com"
        self.signed_in_at: float | None = None
        self.done: list[tuple[str, tuple[int, ...], str | None]] = []

    def visual_provider(self) -> NativeProvider:
        return NativeProvider("android", self.read_hierarchy, {"tap": self.tap, "setValue": self.set_value})

    async def read_hierarchy(self) -> NativeNode:
        # The app answers a sign-in 0.3 s after the tap, as a real one takes its time.
        signed_in = self.signed_in_at is not None and trio.current_time() >= self.signed_in_at + 0.3
        return screen(signed_in=signed_in, email=self.email)

    async def tap(self, shot: Capture, node: RawNode, value: str | None) -> Reply:
        path = native_path(node.id)
        self.done.append(("tap", path, value))
        if path == (2,):
            self.signed_in_at = trio.current_time()
        return Reply.of(tapped=list(path))

    async def set_value(self, shot: Capture, node: RawNode, value: str | None) -> Reply:
        self.done.append(("setValue", native_path(node.id), value))
        self.email = value or ""
        return Reply.of()


#: The phone's table: the ui.* lines, over the phone's provider.
PHONE_TABLE = Table.of("android-app", visual.lines(Phone.visual_provider))


@attrs.define
class Runtime:
    """What the dispatcher reaches: the one session, through its mailbox."""

    phone: ActorRef
    dispatcher: Dispatcher | None = None

    async def session_ids(self) -> list[str]:
        return ["phone"]

    async def run_tool(self, session_id: str, tool: Tool[Any], args: Arguments, *, timeout: float) -> Any:
        assert session_id == "phone"
        return await self.phone.call(ToolCall(tool, args, deadline=trio.current_time() + timeout), timeout=timeout)

    async def call_session(self, session_id: str, name: str, fn: Any, args: Any, *, timeout: float) -> Any:
        return await self.phone.call(SessionCall(name, fn, args, deadline=trio.current_time() + timeout),
                                     timeout=timeout)

    async def dispatch(self, name: str, args: Any) -> ToolOutput:
        assert self.dispatcher is not None
        return await self.dispatcher.dispatch(name, args)


async def call(dispatcher: Dispatcher, tool: str, **args: Any) -> dict[str, Any]:
    return (await dispatcher.dispatch(tool, {"session": "phone", **args})).envelope


async def test_query_act_and_wait_on_a_native_screen(autojump_clock: Any) -> None:
    catalog = Catalog.of(UI_TOOLS, Table.of("runtime", []), {"android-app": PHONE_TABLE})
    async with trio.open_nursery() as nursery:
        phone = Phone()
        ref = await nursery.start(phone.run)
        runtime = Runtime(ref)
        dispatcher = Dispatcher(catalog, context=runtime, gates=Gates(DEFAULT_CAPABILITIES, DEFAULT_CAPABILITIES),  # type: ignore[arg-type]
                                secrets=SecretBook())
        runtime.dispatcher = dispatcher

        tree = check_tree(payload_of(await call(dispatcher, "ui.get_visual_tree")))
        assert (tree["format"], tree["platform"], tree["source"]) == (NATIVE_FORMAT, "android", "native")
        assert [child["id"] for child in tree["root"]["children"]] == ["root.0", "root.1", "root.2"]

        email = check_matches(payload_of(await call(dispatcher, "ui.query_nodes", automationId="email")))
        (match,) = email["matches"]
        set_value = await call(dispatcher, "ui.perform_action", reference=match["reference"], action="setValue",
                               value="bob@example.com")
        assert set_value["ok"] is True and phone.done == [("setValue", (0,), "bob@example.com")]

        sign_in = check_matches(payload_of(await call(dispatcher, "ui.query_nodes", automationId="signin")))
        reference = sign_in["matches"][0]["reference"]
        answers: list[str] = []

        async def wait_for_welcome() -> None:
            waited = await call(dispatcher, "ui.wait", automationId="welcome", condition="visible", intervalMs=100)
            check_matches(payload_of(waited, *WAITED))
            assert waited["matches"][0]["node"]["visual"]["text"] == "Welcome bob@example.com"
            answers.append(f"wait after {waited['attempts']} captures")

        async with trio.open_nursery() as waits:
            waits.start_soon(wait_for_welcome)
            await trio.sleep(0.05)  # Trio's clock: the wait is polling
            tapped = await call(dispatcher, "ui.perform_action", reference=reference, action="tap")
            answers.append("tap")
        assert answers == ["tap", "wait after 5 captures"]
        assert (tapped["action"], tapped["tapped"], tapped["reference"]) == ("tap", [2], reference)

        # The wait's capture is the latest now: the tap's reference is stale.
        stale = await call(dispatcher, "ui.perform_action", reference=reference, action="tap")
        assert (stale["code"], stale["refreshWith"]) == ("stale_node_reference", "ui.query_nodes")
        remember = check_matches(payload_of(await call(dispatcher, "ui.query_nodes", action="toggle")))
        refused = await call(dispatcher, "ui.perform_action", reference=remember["matches"][0]["reference"],
                             action="toggle")
        assert (refused["code"], refused["engine"], refused["provider"]) == ("not-supported", "android-app",
                                                                              NATIVE_FORMAT)
        assert len(phone.done) == 2
        phone.stop()


def test_the_phone_runs_the_ui_lines_over_its_provider() -> None:
    assert [line.tool for line in PHONE_TABLE] == list(UI_TOOLS)
    for line in PHONE_TABLE:
        assert isinstance(line, Runs) and line.handler.__func__ is UI_TOOLS[line.tool]
        assert line.handler.__self__.provider == Phone.visual_provider


#: The provider each engine's ui.* lines name.
PROVIDERS = {"chromium": DomProvider, "chrome-android": DomProvider, "android-app": native_visual.provider,
             "ios-app": native_visual.provider}


@pytest.mark.parametrize("engine", sorted(PROVIDERS))
def test_every_engine_runs_every_ui_tool_with_the_one_handler_over_its_provider(engine: str) -> None:
    catalog = default_catalog()
    table = catalog.engines[engine]
    for tool, handler in UI_TOOLS.items():
        assert catalog.get(tool.name) is tool and tool.scope == "session"
        line = table.entry(tool.name)
        assert isinstance(line, Runs) and line.tool is tool, (engine, tool.name)
        assert line.handler.__func__ is handler, (engine, tool.name)
        assert line.handler.__self__.provider is PROVIDERS[engine], (engine, tool.name)
