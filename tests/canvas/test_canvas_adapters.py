"""The canvas_query seam: entry-point discovery, the example adapter on its page (real
Chromium), each op's own capability enforced by the dispatcher's gate, and no adapter.

The example adapter is registered the way its own ``pyproject.toml`` declares it: the
entry point is read from that file and handed to ``discover_adapters`` with the example
directory on ``sys.path``, which is what ``pip install -e`` would arrange, without
needing pip or a network on a clean clone.
"""

from __future__ import annotations

import tomllib
from importlib.metadata import EntryPoint
from pathlib import Path

import pytest

from browx_actors import RuntimeConfig, open_runtime
from browx_actors.canvas.adapters import (
    ENTRY_POINT_GROUP,
    AdapterRegistry,
    discover_adapters,
    no_adapter_message,
    registry_for,
    use_registry,
)
from browx_actors.demo import serve_directory

PAGES = Path(__file__).parents[1] / "pages"
EXAMPLE = Path(__file__).parents[2] / "examples" / "canvas_adapter_demo"


def declared_entry_points() -> list[EntryPoint]:
    project = tomllib.loads((EXAMPLE / "pyproject.toml").read_text())["project"]
    declared = project["entry-points"][ENTRY_POINT_GROUP]
    return [EntryPoint(name=name, value=value, group=ENTRY_POINT_GROUP) for name, value in declared.items()]


@pytest.fixture
def example_registry(monkeypatch: pytest.MonkeyPatch) -> AdapterRegistry:
    monkeypatch.syspath_prepend(str(EXAMPLE))
    return discover_adapters(declared_entry_points())


def test_discovery_loads_the_example_and_records_broken_plugins(example_registry: AdapterRegistry) -> None:
    assert list(example_registry.adapters) == ["demo"] and example_registry.failed == {}
    ops = {o["op"]: o["capability"] for o in example_registry.describe()[0]["ops"]}
    assert ops == {"listNodes": "canvas", "getNodeBounds": "canvas", "selectNode": "action", "sceneEval": "eval"}

    broken = discover_adapters([
        EntryPoint("ghost", "browx_no_such_module:ADAPTER", ENTRY_POINT_GROUP),
        EntryPoint("wrong", "json:JSONDecoder", ENTRY_POINT_GROUP),
        *declared_entry_points(),
    ])
    assert list(broken.adapters) == ["demo"]
    assert "ModuleNotFoundError" in broken.failed["ghost"] and "not a CanvasAdapter" in broken.failed["wrong"]
    assert discover_adapters([]).adapters == {}


def _config(tmp_path: Path, caps: str) -> RuntimeConfig:
    return RuntimeConfig.from_env({}, workspace=tmp_path, capabilities=caps)


async def test_the_example_adapter_answers_from_app_state(tmp_path: Path,
                                                          example_registry: AdapterRegistry) -> None:
    with serve_directory(PAGES) as base:
        async with open_runtime(config=_config(tmp_path, "canvas"), capabilities=["canvas"]) as runtime:
            use_registry(runtime, example_registry)
            assert (await runtime.call_tool("navigate", {"url": f"{base}/canvas_scene.html"}))["ok"]

            listed = await runtime.call_tool("canvas_query", {"adapter": "demo", "op": "listNodes"})
            assert listed["ok"] and listed["adapter"] == "demo" and listed["op"] == "listNodes"
            assert [n["id"] for n in listed["nodes"]] == ["n1", "n2"] and listed["selected"] is None

            bounds = await runtime.call_tool("canvas_query", {"adapter": "demo", "op": "getNodeBounds",
                                                              "args": {"id": "n2"}})
            # Canvas at (40, 60), camera at (-20, -10), zoom 1.5.
            assert bounds["screen"] == {"x": 370.0, "y": 225.0, "w": 90.0, "h": 45.0}

            # An "action" op: clicks the node's centre, the app's own hit test selects it.
            selected = await runtime.call_tool("canvas_query", {"adapter": "demo", "op": "selectNode",
                                                                "args": {"id": "n2"}})
            assert selected == {"ok": True, "adapter": "demo", "op": "selectNode", "selected": "n2"}
            assert (await runtime.call_tool("verify_text", {"text": "selected Delete button"}))["ok"]

            # canvas alone does not open an op that declared eval.
            denied = await runtime.call_tool("canvas_query", {"adapter": "demo", "op": "sceneEval",
                                                              "args": {"expr": "scene.nodes.length"}})
            assert denied["ok"] is False and denied["code"] == "capability-denied"
            assert denied["capability"] == "eval" and "demo.sceneEval" in denied["error"]
            assert runtime.gates.denials["demo.sceneEval"] == 1

            bad = await runtime.call_tool("canvas_query", {"adapter": "demo", "op": "getNodeBounds"})
            assert bad["code"] == "bad-arg" and bad["field"] == "args.id"
            extra = await runtime.call_tool("canvas_query", {"adapter": "demo", "op": "getNodeBounds",
                                                             "args": {"id": "n1", "zoom": 2}})
            assert extra["code"] == "bad-arg" and extra["field"] == "args.zoom"
            missing = await runtime.call_tool("canvas_query", {"adapter": "demo", "op": "getNodeBounds",
                                                               "args": {"id": "n9"}})
            assert missing["code"] == "target-not-found" and "n1, n2" in missing["error"]
            unknown_op = await runtime.call_tool("canvas_query", {"adapter": "demo", "op": "explode"})
            assert unknown_op["code"] == "unknown-op" and unknown_op["requestedOp"] == "explode"
            assert "listNodes" in unknown_op["error"]

            await runtime.call_tool("navigate", {"url": f"{base}/canvas_draw.html"})
            elsewhere = await runtime.call_tool("canvas_query", {"adapter": "demo", "op": "listNodes"})
            assert elsewhere["code"] == "app-not-found"


async def test_an_op_runs_when_both_gates_allow_its_capability(tmp_path: Path,
                                                               example_registry: AdapterRegistry) -> None:
    with serve_directory(PAGES) as base:
        async with open_runtime(config=_config(tmp_path, "canvas,eval"), capabilities=["canvas"]) as runtime:
            use_registry(runtime, example_registry)
            await runtime.call_tool("navigate", {"url": f"{base}/canvas_scene.html"})
            client_off = await runtime.call_tool("canvas_query", {"adapter": "demo", "op": "sceneEval",
                                                                  "args": {"expr": "1"}})
            assert client_off["code"] == "capability-denied" and "the client" in client_off["error"]
        async with open_runtime(config=_config(tmp_path, "canvas,eval"),
                                capabilities=["canvas", "eval"]) as runtime:
            use_registry(runtime, example_registry)
            await runtime.call_tool("navigate", {"url": f"{base}/canvas_scene.html"})
            value = await runtime.call_tool("canvas_query", {"adapter": "demo", "op": "sceneEval",
                                                             "args": {"expr": "scene.nodes.map(n => n.name)"}})
            assert value == {"ok": True, "adapter": "demo", "op": "sceneEval",
                             "value": ["Header", "Delete button"]}


async def test_no_adapter_installed(tmp_path: Path) -> None:
    async with open_runtime(config=_config(tmp_path, "canvas"), capabilities=["canvas"]) as runtime:
        use_registry(runtime, discover_adapters([]))
        result = await runtime.call_tool("canvas_query", {"adapter": "figma", "op": "getNodeBounds",
                                                          "args": {"id": "1:2"}})
        assert result == {
            "ok": False, "code": "no-adapter",
            "error": "no canvas adapter registered for figma (registered namespaces: none); pass a registered "
                     "namespace, or have an adapter registered as a Python entry point named 'figma' in the group "
                     "browx_actors.canvas_adapters and the server restarted",
            "requestedAdapter": "figma", "requestedOp": "getNodeBounds", "registeredAdapters": [],
        }
        assert await runtime.session_ids() == []
    async with open_runtime(config=_config(tmp_path, "canvas"), capabilities=["canvas"]) as runtime:
        # The default registry is whatever is installed in this environment.
        installed = registry_for(runtime)
        result = await runtime.call_tool("canvas_query", {"adapter": "no-such-app", "op": "x"})
        assert result["code"] == "no-adapter" and result["registeredAdapters"] == sorted(installed.adapters)
        assert "@" not in result["error"] and "npm" not in result["error"]


def test_no_adapter_names_the_registered_namespaces_and_no_package(example_registry: AdapterRegistry) -> None:
    """What the agent can do instead: the namespaces it may call, and how one is registered
    here (an entry point in our group), never an npm package this server does not load."""
    message = no_adapter_message("figma", sorted(example_registry.adapters))
    assert message.startswith("no canvas adapter registered for figma (registered namespaces: demo); ")
    assert ENTRY_POINT_GROUP in message and "'figma'" in message
    assert "install @" not in message and "plugin-figma" not in message
