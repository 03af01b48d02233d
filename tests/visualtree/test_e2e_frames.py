"""The visual tree of a page with frames, through the real server over stdio MCP.

``page_frames.html`` holds a same-origin frame, a frame of another site (the second
loopback server as ``localhost``: Chromium runs it out of process) and, inside that, a
nested frame. Each frame's document hangs under its ``<iframe>`` node with ids that
carry the frame's id (``frames_list`` names the same ids), boxes in the tab's viewport;
the ``ui.*`` tools query, act and wait inside them as in the top document, and what the
actions did is read back from the page's own snapshot, not from their answers.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from mcp.client import Client

from e2e_support import browx_server, fails, ok
from polling import poll_until
from visualtree.contract_schema import check_inspection, check_matches, check_tree, nodes_of, payload_of

pytestmark = pytest.mark.chromium


async def query(client: Client, **args: Any) -> dict[str, Any]:
    return check_matches(payload_of(await ok(client, "ui.query_nodes", args)))


def frame_of(node: dict[str, Any]) -> str | None:
    """``f2`` for node ``f2n5``; None for a top-document node."""
    found = re.match(r"(f\d+)n\d+$", node["id"])
    return found.group(1) if found else None


def inside(inner: dict[str, Any], outer: dict[str, Any]) -> bool:
    return (outer["x"] <= inner["x"] and outer["y"] <= inner["y"]
            and inner["x"] + inner["width"] <= outer["x"] + outer["width"] + 0.01)


async def test_frames_in_the_visual_tree(tmp_path: Path, pages_url: str, pages_url2: str) -> None:
    other_site = pages_url2.replace("127.0.0.1", "localhost")
    async with browx_server(tmp_path / "ws", "eval") as client:
        await ok(client, "navigate", {"url": f"{pages_url}/page_frames.html?other={other_site}"})
        waited = check_matches(payload_of(await ok(client, "ui.wait", {
            "text": "Frame nested", "condition": "visible", "timeoutMs": 10_000}), "condition", "attempts", "waitedMs"))
        assert waited["count"] == 1 and waited["matches"][0]["node"]["id"].startswith("f3n")
        listed = [line.split()[0] for line in (await ok(client, "frames_list"))["frames"]]
        assert listed == ["f1", "f2", "f3"]

        payload = check_tree(payload_of(await ok(client, "ui.get_visual_tree")))
        nodes = list(nodes_of(payload["root"]))
        iframes = {node["automationId"] if "automationId" in node else node["label"]: node
                   for node in nodes if payload["types"][node["typeId"]] == "iframe"}
        assert set(iframes) == {"same", "other", "Nested"}
        for name, frames_below in (("same", {"f1"}), ("other", {"f2", "f3"}), ("Nested", {"f3"})):
            holder = iframes[name]
            [document] = holder["children"]
            assert holder["role"] == "webview" and holder["childCount"] == 1
            assert payload["types"][document["typeId"]] == "html" and re.fullmatch(r"f\d+n\d+", document["id"])
            assert {frame_of(node) for node in nodes_of(document)} == frames_below
            # The frame's document starts inside its <iframe>'s box, in the tab's viewport.
            assert inside(document["bounds"], holder["bounds"]), (document["bounds"], holder["bounds"])
        assert iframes["Nested"]["id"].startswith("f2n")  # the nested frame's <iframe> is the other site's

        # One query finds a control in every document, in document order.
        codes = await query(client, automationId="code")
        sends = await query(client, automationId="send", reuse=True)
        assert [m["reference"]["nodeId"][:2] for m in codes["matches"]] == ["f1", "f2", "f3"]
        assert [m["reference"]["nodeId"][:2] for m in sends["matches"]] == ["f1", "f2", "f3"]
        assert codes["snapshotId"] == sends["snapshotId"]

        # Act inside each frame: the nested frame first, which the frame around it shows
        # only in part (its Send button is below what shows): the tap scrolls to it.
        for index in (2, 1, 0):
            filled = await ok(client, "ui.perform_action", {"reference": codes["matches"][index]["reference"],
                                                            "action": "setValue", "value": f"code {index}"})
            assert filled["target"]["ref"].startswith(f"f{index + 1}e") and filled["performedWith"] == "fill"
            tapped = await ok(client, "ui.perform_action", {"reference": sends["matches"][index]["reference"],
                                                            "action": "tap"})
            assert tapped["target"]["name"] == "Send"
        snapshot = (await ok(client, "snapshot"))["snapshot"]
        for index, who in ((0, "same"), (1, "other"), (2, "nested")):
            assert re.search(rf"status \[ref=f{index + 1}e\d+\]: sent code {index} from {who}", snapshot), snapshot

        done = check_matches(payload_of(await ok(client, "ui.wait", {
            "text": "sent code 2 from nested", "textMatch": "exact", "condition": "exists"}),
            "condition", "attempts", "waitedMs"))
        [status] = done["matches"]
        assert status["node"]["id"].startswith("f3n") and status["node"]["role"] == "text"

        # An inspection climbs out of the nested frame: its <iframe>s are among the ancestors.
        inspected = check_inspection(payload_of(await ok(client, "ui.inspect_node", {
            "reference": status["reference"]})))
        chain = [node["id"] for node in inspected["ancestors"]]
        assert chain[0] == payload["root"]["id"] and iframes["other"]["id"] in chain
        assert iframes["Nested"]["id"] in chain and any(node_id.startswith("f3n") for node_id in chain)
        # A subtree read from the other site's <iframe> holds both of its frames.
        subtree = check_tree(payload_of(await ok(client, "ui.get_visual_tree",
                                                 {"rootNodeId": iframes["other"]["id"]})))
        assert subtree["root"]["id"] == iframes["other"]["id"]
        assert {frame_of(node) for node in nodes_of(subtree["root"]["children"][0])} == {"f2", "f3"}

        # A frame that loads another document: its old nodes are stale, the rest are not.
        fresh = await query(client, automationId="send")
        same_send, other_send = fresh["matches"][0]["reference"], fresh["matches"][1]["reference"]
        await ok(client, "eval_js", {"expr": "document.getElementById('same').src += '&again=1'"})

        async def reloaded() -> bool:
            value = (await ok(client, "eval_js", {
                "expr": "(() => { const d = document.getElementById('same').contentDocument; "
                        "return d.readyState === 'complete' && d.location.search.includes('again'); })()"}))["value"]
            return bool(value)

        await poll_until(reloaded, interval=0.05, timeout=10)
        stale = await fails(client, "ui.perform_action", {"reference": same_send, "action": "tap"},
                            "stale_node_reference")
        assert stale["refreshWith"] == "ui.query_nodes" and "its frame loaded another document" in stale["error"]
        await ok(client, "ui.perform_action", {"reference": other_send, "action": "tap"})

        # A frame whose <iframe> is hidden is not visible, all the way down.
        await ok(client, "eval_js", {"expr": "document.getElementById('other').style.visibility = 'hidden'"})
        hidden = check_tree(payload_of(await ok(client, "ui.get_visual_tree")))
        inner = [node for node in nodes_of(hidden["root"]) if frame_of(node) in ("f2", "f3")]
        assert inner and not any(node["visible"] for node in inner)
        assert any(node["visible"] for node in nodes_of(hidden["root"]) if frame_of(node) == "f1")


async def test_a_scaled_frame_is_placed_as_it_is_drawn(tmp_path: Path, pages_url: str) -> None:
    # page_frames_reach.html: the same button page in a frame at full size and one at half.
    async with browx_server(tmp_path / "ws", "eval") as client:
        await ok(client, "navigate", {"url": f"{pages_url}/page_frames_reach.html"})

        async def buttons() -> dict[str, Any] | None:
            found = await query(client, role="button")
            return found if found["count"] == 4 else None

        found = await poll_until(buttons, interval=0.1, timeout=10)
        full, half = (match["node"]["bounds"] for match in found["matches"][:2])
        assert abs(half["width"] * 2 - full["width"]) < 0.1 and abs(half["height"] * 2 - full["height"]) < 0.1
        drawn = (await ok(client, "eval_js", {"expr": "(() => { const r = document.getElementById('scaled')"
                                                      ".getBoundingClientRect(); return [r.x, r.y]; })()"}))["value"]
        # The button is 60 px down its frame, so 30 px down the half-size <iframe>.
        assert abs(half["y"] - (drawn[1] + 1 + 30)) < 1.5 and half["x"] >= drawn[0], (half, drawn)
