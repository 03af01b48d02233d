"""An example canvas-app adapter: the scene editor of ``tests/pages/canvas_scene.html``.

It reads the app's own state (``window.demoScene``: nodes in world coordinates and a
camera) instead of looking at pixels, which is what adapters are for. Each op declares
the capability it needs; ``canvas_query`` enforces it, so ``sceneEval`` (arbitrary
JavaScript) stays off until ``eval`` is granted even when ``canvas`` is on.

Handlers run inside the session actor with the session and their checked arguments.
"""

from __future__ import annotations

from typing import Any

from browx_actors.errors import Code, ToolError
from browx_actors.canvas.adapters import AdapterOp, CanvasAdapter
from browx_actors.tools import Param

__all__ = ["ADAPTER"]

_STATE = """() => {
  const s = window.demoScene;
  if (!s) return null;
  const r = s.canvas.getBoundingClientRect();
  return {camera: s.camera, selected: s.selected, rect: {x: r.x, y: r.y},
          nodes: s.nodes.map(n => ({id: n.id, name: n.name, x: n.x, y: n.y, w: n.w, h: n.h}))};
}"""


async def _state(session: Any) -> dict[str, Any]:
    state = await session.pw(session.page.evaluate, _STATE)
    if state is None:
        raise ToolError("app-not-found", "this page is not the demo scene editor (no window.demoScene)")
    return state


def _node(state: dict[str, Any], node_id: str) -> dict[str, Any]:
    for node in state["nodes"]:
        if node["id"] == node_id:
            return node
    known = ", ".join(n["id"] for n in state["nodes"])
    raise ToolError("target-not-found", f"no node {node_id!r} in the scene (nodes: {known})", id=node_id)


def _screen_rect(state: dict[str, Any], node: dict[str, Any]) -> dict[str, float]:
    cam, rect = state["camera"], state["rect"]
    return {"x": rect["x"] + (node["x"] - cam["x"]) * cam["zoom"],
            "y": rect["y"] + (node["y"] - cam["y"]) * cam["zoom"],
            "w": node["w"] * cam["zoom"], "h": node["h"] * cam["zoom"]}


async def list_nodes(session: Any, args: dict[str, Any]) -> dict[str, Any]:
    state = await _state(session)
    nodes = [{"id": n["id"], "name": n["name"],
              "world": {"x": n["x"], "y": n["y"], "w": n["w"], "h": n["h"]}} for n in state["nodes"]]
    return {"nodes": nodes, "selected": state["selected"]}


async def get_node_bounds(session: Any, args: dict[str, Any]) -> dict[str, Any]:
    state = await _state(session)
    node = _node(state, args["id"])
    return {"id": node["id"], "world": {k: node[k] for k in ("x", "y", "w", "h")},
            "screen": _screen_rect(state, node)}


async def select_node(session: Any, args: dict[str, Any]) -> dict[str, Any]:
    state = await _state(session)
    box = _screen_rect(state, _node(state, args["id"]))
    await session.pw(session.page.mouse.click, box["x"] + box["w"] / 2, box["y"] + box["h"] / 2)
    return {"selected": (await _state(session))["selected"]}


async def scene_eval(session: Any, args: dict[str, Any]) -> dict[str, Any]:
    value = await session.pw(
        session.page.evaluate,
        "(expr) => new Function('scene', 'return (' + expr + ');')(window.demoScene)",
        args["expr"],
    )
    return {"value": value}


_ID = Param("id", "string", "Node id, e.g. n1.", required=True)

ADAPTER = CanvasAdapter(
    description="The scene editor of tests/pages/canvas_scene.html (window.demoScene).",
    ops=(
        AdapterOp("listNodes", "canvas", "Nodes with their world rectangles, and the selection.",
                  list_nodes),
        AdapterOp("getNodeBounds", "canvas", "A node's world and viewport rectangles.", get_node_bounds,
                  (_ID,)),
        AdapterOp("selectNode", "action", "Click a node's centre; the app's selection afterwards.",
                  select_node, (_ID,)),
        AdapterOp("sceneEval", "eval", "Evaluate a JavaScript expression with `scene` bound to the app.",
                  scene_eval, (Param("expr", "string", "Expression.", required=True),)),
    ),
    codes=(Code("app-not-found", "the page is not the demo scene editor (no window.demoScene)", "target-not-found"),),
)
