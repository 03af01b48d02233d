"""The visual tree on a real page: the real server over real stdio MCP, real headless Chromium.

``tests/pages/visual_app.html`` is a checkout form as apps write them: test attributes of
five spellings, a password, a disabled button that a checkbox enables, a receipt that
appears 300 ms after the click, a display:none panel, a faded paragraph, a fixed toast
with a z-index, an editing host, a closed ``<details>``, an open shadow root and an
iframe. Every payload is validated against the contract's JSON Schema; what it says is
checked against the page itself (``eval_js``), and what the actions did is read back
from the page, not from their answers.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import trio
import trio.testing
from mcp.client import Client
from mcp.shared.tool_name_validation import validate_tool_name

from e2e_support import browx_server, call_result, envelope_of, fails, images_of, ok, png_size
from visualtree.contract_schema import check_inspection, check_matches, check_tree, nodes_of, payload_of

pytestmark = pytest.mark.chromium

UI_TOOLS = {"ui.get_visual_tree", "ui.query_nodes", "ui.inspect_node", "ui.perform_action", "ui.wait", "tool.batch"}
WAITED = ("condition", "attempts", "waitedMs")


async def page_value(client: Client, expr: str) -> Any:
    return (await ok(client, "eval_js", {"expr": expr}))["value"]


async def tree(client: Client, **args: Any) -> dict[str, Any]:
    return check_tree(payload_of(await ok(client, "ui.get_visual_tree", args)))


async def query(client: Client, **args: Any) -> dict[str, Any]:
    return check_matches(payload_of(await ok(client, "ui.query_nodes", args)))


async def reference(client: Client, automation_id: str) -> dict[str, Any]:
    found = await query(client, automationId=automation_id)
    assert found["count"] == 1, found
    ref: dict[str, Any] = found["matches"][0]["reference"]
    return ref


def by_automation_id(payload: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {node["automationId"]: node for node in nodes_of(payload["root"]) if "automationId" in node}


async def test_the_page_as_a_visual_tree(tmp_path: Path, pages_url: str) -> None:
    async with browx_server(tmp_path / "ws", "eval") as client:
        listing = {tool.name: tool for tool in (await client.list_tools()).tools}
        assert set(listing) >= UI_TOOLS
        for name, tool in listing.items():  # dotted names are valid MCP names (SEP-986), as the SDK checks them
            assert validate_tool_name(name).is_valid, name
            assert "after" in tool.input_schema["properties"], name

        await ok(client, "navigate", {"url": f"{pages_url}/visual_app.html"})
        payload = await tree(client)
        assert (payload["format"], payload["platform"], payload["source"]) == (
            "ansight.dom.visual-tree.compact.v2", "web", "dom")
        assert payload["revision"] == 1 and payload["snapshotId"].startswith("dom:1:")
        nodes = list(nodes_of(payload["root"]))
        assert payload["types"][payload["root"]["typeId"]] == "html"
        assert {payload["types"][node["typeId"]] for node in nodes} == set(payload["types"])
        found = by_automation_id(payload)
        # Every test attribute spelling, and an element's id when it has none.
        assert {"checkout.email", "checkout.password", "checkout.note", "checkout.plan", "checkout.later",
                "title", "shadow.button"} <= set(found)

        email = found["checkout.email"]
        assert (email["role"], email["label"], email["visual"]["value"]) == ("input", "Email", "ann@example.com")
        assert email["supportedActions"] == ["tap", "focus", "unfocus", "setValue", "typeText"]
        assert email["interactable"] is True and email["focusable"] is True
        password = found["checkout.password"]
        assert password["role"] == "input" and "value" not in password["visual"]
        assert "hunter2" not in client.transcript.everything()  # type: ignore[attr-defined]

        pay = found["checkout.submit"]
        assert (pay["role"], pay["label"], pay["enabled"], pay["interactable"]) == ("button", "Pay now", False, False)
        assert pay["visual"]["background"] == "#800066CC"  # rgba(0, 102, 204, 0.5) while disabled
        box = await page_value(client, "(() => { const r = document.querySelector('[data-testid=\"checkout.submit\"]')"
                                       ".getBoundingClientRect(); return [r.x, r.y, r.width, r.height]; })()")
        assert [pay["bounds"][key] for key in ("x", "y", "width", "height")] == pytest.approx(box, abs=0.01)

        # The page spells it "Pay\u200b later": invisible characters leave labels as they
        # leave the snapshot's names, so the agent reads and types what it sees.
        assert found["checkout.later"]["label"] == "Pay later"
        assert found["checkout.terms"]["supportedActions"] == ["tap", "focus", "unfocus", "toggle"]
        assert found["checkout.plan"]["role"] == "picker" and found["checkout.plan"]["visual"]["value"] == "Free"
        assert found["notes"]["role"] == "input" and found["notes"]["visual"]["value"] == "Draft"
        assert found["ghost"]["visual"]["opacity"] == 0.25
        assert found["toast"]["z"] == 5 and found["toast"]["visual"]["background"] == "#FF222222"
        hidden = found["hidden.panel"]
        assert hidden["visible"] is False and "bounds" not in hidden
        assert hidden["children"][0]["visible"] is False and hidden["children"][0]["visual"]["text"] == "Secret panel"
        header = next(node for node in nodes if payload["types"][node["typeId"]] == "header")
        assert header["visual"]["background"] == "#FF0066CC"
        heading = found["title"]
        assert (heading["role"], heading["visual"]["foreground"]) == ("heading", "#FFFFFFFF")
        assert found["shadow.button"]["label"] == "Inside shadow"  # through the open shadow root
        frame = next(node for node in nodes if payload["types"][node["typeId"]] == "iframe")
        assert (frame["role"], frame["label"], frame["childCount"]) == ("webview", "Ads", 1)
        # The frame's own document hangs under it (srcdoc: an ad's paragraph), its ids
        # carrying the frame's id and its boxes in the tab's viewport, inside the frame's.
        [document] = frame["children"]
        ad = next(node for node in nodes_of(document) if node["visual"].get("text") == "ad")
        assert document["id"].startswith("f") and ad["id"].startswith(document["id"].split("n")[0] + "n")
        ad_box, outer = ad["bounds"], frame["bounds"]
        assert outer["x"] < ad_box["x"] < outer["x"] + outer["width"]
        assert outer["y"] < ad_box["y"] < outer["y"] + outer["height"]
        assert "properties" not in email

        # -- truncation: depth, nodes, a subtree, and properties on request ---------------
        shallow = await tree(client, maxDepth=1)
        body = shallow["root"]["children"][0]
        assert all(child["truncated"] for child in body["children"]) and body["childCount"] == len(body["children"])
        main = next(child for child in body["children"] if child["childCount"] > 1)
        subtree = await tree(client, rootNodeId=main["id"], maxDepth=0)
        assert subtree["root"]["id"] == main["id"] and subtree["root"]["childCount"] == main["childCount"]
        small = await tree(client, maxNodes=5)
        assert len(list(nodes_of(small["root"]))) == 5
        detailed = await tree(client, properties=True)
        email_props = by_automation_id(detailed)["checkout.email"]["properties"]
        assert (email_props["inputType"], email_props["display"]) == ("email", "inline-block")
        missing = await fails(client, "ui.get_visual_tree", {"rootNodeId": "n999999"}, "target-not-found")
        assert missing["field"] == "rootNodeId"

        # -- queries ---------------------------------------------------------------------
        buttons = await query(client, role="button")
        labels = [match["node"].get("label") for match in buttons["matches"]]
        assert labels == ["Pay now", "Pay later", "More", "Inside shadow"]
        assert [m["node"]["label"] for m in (await query(client, text="pay", role="button"))["matches"]] == \
            ["Pay now", "Pay later"]
        assert (await query(client, text="Pay later", textMatch="exact"))["count"] == 1  # the zero-width space
        typed = await query(client, action="typeText")
        assert sorted(m["node"]["automationId"] for m in typed["matches"]) == [
            "checkout.email", "checkout.note", "checkout.password", "notes"]
        assert [m["node"]["automationId"] for m in (await query(client, enabled=False))["matches"]] == \
            ["checkout.submit"]
        centre = {"x": box[0] + box[2] / 2, "y": box[1] + box[3] / 2}
        under = await query(client, contains=centre, role="button")
        assert [m["node"]["automationId"] for m in under["matches"]] == ["checkout.submit"]
        overlapping = await query(client, intersects={"x": box[0], "y": box[1], "width": 1, "height": 1})
        assert "checkout.submit" in [m["node"].get("automationId") for m in overlapping["matches"]]
        limited = await query(client, limit=2)
        assert limited["truncated"] is True and len(limited["matches"]) == 2 and limited["count"] > 2
        reused = await query(client, automationId="checkout.submit", reuse=True)
        assert reused["snapshotId"] == limited["snapshotId"]

        # -- inspection and stale references --------------------------------------------
        pay_ref = reused["matches"][0]["reference"]
        inspected = check_inspection(payload_of(await ok(client, "ui.inspect_node", {"reference": pay_ref})))
        assert [inspected["types"][a["typeId"]] for a in inspected["ancestors"]] == ["html", "body", "main", "form"]
        assert inspected["node"]["id"] == pay_ref["nodeId"]
        await tree(client)
        for tool, extra in (("ui.inspect_node", {}), ("ui.perform_action", {"action": "tap"})):
            stale = await fails(client, tool, {"reference": pay_ref, **extra}, "stale_node_reference")
            assert stale["refreshWith"] == "ui.query_nodes" and stale["revision"] == pay_ref["revision"]

        # -- what the dispatch refuses before anything runs -------------------------------
        assert (await fails(client, "ui.query_nodes", {"role": "textbox"}, "bad-arg"))["field"] == "role"
        assert (await fails(client, "ui.query_nodes", {"text": " \u200b "}, "bad-arg"))["field"] == "text"
        assert (await fails(client, "ui.query_nodes", {"contains": {"x": 1, "y": 1, "width": 3}},
                            "bad-arg"))["field"] == "contains"
        fresh = await reference(client, "checkout.email")
        assert (await fails(client, "ui.perform_action", {"reference": fresh, "action": "setValue"},
                            "bad-arg"))["field"] == "value"
        assert (await fails(client, "ui.perform_action", {"reference": fresh, "action": "tap", "value": "x"},
                            "bad-arg"))["field"] == "value"
        partial = {key: fresh[key] for key in ("source", "snapshotId", "revision")}
        assert (await fails(client, "ui.inspect_node", {"reference": partial}, "bad-arg"))["field"] == \
            "reference.nodeId"
        assert (await fails(client, "ui.get_visual_tree", {"maxDepth": 65}, "bad-arg"))["field"] == "maxDepth"


async def test_acting_and_waiting_on_a_real_page(tmp_path: Path, pages_url: str) -> None:
    async with browx_server(tmp_path / "ws", "eval,secrets") as client:
        await ok(client, "navigate", {"url": f"{pages_url}/visual_app.html"})
        terms = await reference(client, "checkout.terms")
        toggled = await ok(client, "ui.perform_action", {"reference": terms, "action": "toggle"})
        assert (toggled["action"], toggled["performedWith"], toggled["reference"]) == ("toggle", "click", terms)
        assert "input" not in toggled["settled"] and toggled["element"]["checked"] is True
        assert await page_value(client, "document.querySelector('[data-testid=\"checkout.terms\"]').checked") is True
        enabled = await ok(client, "ui.wait", {"automationId": "checkout.submit", "condition": "enabled"})
        assert enabled["attempts"] == 1 and enabled["matches"][0]["node"]["enabled"] is True
        check_matches(payload_of(enabled, *WAITED))

        # The wait polls in the session's nursery: the tap that makes it true runs meanwhile.
        pay = await reference(client, "checkout.submit")
        answered: list[str] = []
        waited: dict[str, Any] = {}

        async def wait_for_receipt() -> None:
            waited.update(await ok(client, "ui.wait", {"automationId": "receipt", "condition": "visible",
                                                       "timeoutMs": 10_000, "intervalMs": 50}))
            answered.append("wait")

        async with trio.open_nursery() as nursery:
            nursery.start_soon(wait_for_receipt)
            await trio.testing.wait_all_tasks_blocked()  # the wait's request is on the wire first
            tapped = await ok(client, "ui.perform_action", {"reference": pay, "action": "tap"})
            answered.append("tap")
        assert answered == ["tap", "wait"] and tapped["performedWith"] == "click"
        assert waited["attempts"] >= 3 and waited["matches"][0]["node"]["visual"]["text"] == "Paid ann@example.com"
        check_matches(payload_of(waited, *WAITED))

        # -- text: setValue replaces, typeText types at the end, a <select> by label --------
        await ok(client, "ui.perform_action", {"reference": await reference(client, "checkout.email"),
                                               "action": "setValue", "value": "bob@example.com"})
        await ok(client, "ui.perform_action", {"reference": await reference(client, "checkout.email"),
                                               "action": "typeText", "value": ".uk"})
        assert await page_value(client, "document.getElementById('email').value") == "bob@example.com.uk"
        await ok(client, "ui.perform_action", {"reference": await reference(client, "notes"),
                                               "action": "typeText", "value": " more"})
        assert await page_value(client, "document.getElementById('editor').textContent") == "Draft more"
        plan = await reference(client, "checkout.plan")
        await ok(client, "ui.perform_action", {"reference": plan, "action": "setValue", "value": "Pro"})
        assert await page_value(client, "document.querySelector('select').value") == "pro"
        no_option = await fails(client, "ui.perform_action", {"reference": plan, "action": "setValue",
                                                              "value": "Enterprise"}, "bad-arg")
        assert no_option["field"] == "value"
        await ok(client, "register_secret", {"name": "PASS", "value": "s3cret-pass"})
        await ok(client, "ui.perform_action", {"reference": await reference(client, "checkout.password"),
                                               "action": "setValue", "value": "<PASS>"})
        assert await page_value(client, "document.getElementById('password').value") == "<PASS>"  # masked out
        assert await page_value(client, "document.getElementById('password').value.length") == len("s3cret-pass")

        # -- focus, unfocus, toggle of a <summary>, a tap that removes a node ----------------
        note = await reference(client, "checkout.note")
        await ok(client, "ui.perform_action", {"reference": note, "action": "focus"})
        assert await page_value(client, "document.activeElement.dataset.cy") == "checkout.note"
        assert await page_value(client, "document.title") == "Checkout (note focused)"
        await ok(client, "ui.perform_action", {"reference": note, "action": "unfocus"})
        assert await page_value(client, "document.activeElement === document.body") is True
        await ok(client, "ui.perform_action", {"reference": await reference(client, "more"), "action": "toggle"})
        assert await page_value(client, "document.querySelector('details').open") is True
        await ok(client, "ui.perform_action", {"reference": await reference(client, "checkout.later"),
                                               "action": "tap"})
        gone = await ok(client, "ui.wait", {"automationId": "toast", "condition": "notExists"})
        assert gone["count"] == 0 and gone["matches"] == []

        # -- refusals: an action the node does not offer, a timeout, another document -------
        frame = (await query(client, role="webview"))["matches"][0]
        refused = await fails(client, "ui.perform_action", {"reference": frame["reference"], "action": "tap"},
                              "action-failed")
        assert refused["supportedActions"] == ["focus", "unfocus"]
        late = await fails(client, "ui.wait", {"automationId": "never", "timeoutMs": 300, "intervalMs": 100},
                           "timeout")
        assert late["attempts"] >= 3 and late["matched"] == 0
        email = await reference(client, "checkout.email")
        await ok(client, "navigate", {"url": f"{pages_url}/visual_app.html"})
        reloaded = await fails(client, "ui.perform_action", {"reference": email, "action": "tap"},
                               "stale_node_reference")
        assert "another document" in reloaded["error"] and reloaded["refreshWith"] == "ui.query_nodes"
        assert await page_value(client, "document.getElementById('email').value") == "ann@example.com"


async def test_after_and_batch_over_mcp(tmp_path: Path, pages_url: str) -> None:
    async with browx_server(tmp_path / "ws", "eval") as client:
        await ok(client, "navigate", {"url": f"{pages_url}/visual_app.html"})

        # -- after: a tree and a screenshot ride in the click's own result ------------------
        result = await call_result(client, "click", {"selector": "[data-testid='checkout.terms']",
                                                     "after": {"visualTree": {"maxDepth": 3}, "screenshot": {}}})
        clicked = envelope_of(result)
        assert clicked["ok"] is True and "action" not in clicked  # the tool's name is not echoed
        assert clicked["target"]["role"] == "checkbox" and clicked["element"]["checked"] is True
        captured = check_tree(payload_of(clicked["after"]["visualTree"]))
        assert captured["revision"] == 1
        assert clicked["after"]["screenshot"]["format"] == "png"
        (image,) = images_of(result)
        assert image[0] == "image/png" and png_size(image[1]) == (1280, 720)
        failed = await fails(client, "click", {"selector": "#nothing-here", "after": {"visualTree": {"maxNodes": 3}}},
                             "target-not-found")
        assert len(list(nodes_of(check_tree(payload_of(failed["after"]["visualTree"]))["root"]))) == 3
        bad = await fails(client, "snapshot", {"after": {"visualTree": {"maxNodes": 0}}}, "bad-arg")
        assert bad["field"] == "after.visualTree.maxNodes" and "after" not in bad

        # -- tool.batch: inspect, act and verify in one round trip --------------------------
        pay = await reference(client, "checkout.submit")
        batch = await ok(client, "tool.batch", {"calls": [
            {"tool": "ui.query_nodes", "arguments": {"automationId": "checkout.submit", "enabled": True,
                                                     "reuse": True}},
            {"tool": "ui.perform_action", "arguments": {"reference": pay, "action": "tap"}},
            {"tool": "ui.wait", "arguments": {"automationId": "receipt", "condition": "visible"}},
            {"tool": "eval_js", "arguments": {"expr": "document.getElementById('receipt').textContent"}},
        ]})
        assert [entry["tool"] for entry in batch["results"]] == ["ui.query_nodes", "ui.perform_action", "ui.wait",
                                                                 "eval_js"]
        assert (batch["completed"], batch["failed"], batch["stopped"]) == (4, 0, False)
        inspected, acted, waited, read = (entry["result"] for entry in batch["results"])
        assert check_matches(payload_of(inspected))["matches"][0]["reference"] == pay
        assert acted["performedWith"] == "click"
        assert check_matches(payload_of(waited, *WAITED))["count"] == 1
        assert read["value"] == "Paid ann@example.com"

        # Gates, order and the cap hold inside a batch as outside it.
        stopped = await ok(client, "tool.batch", {"calls": [
            {"tool": "ui.query_nodes", "arguments": {"role": "dialog"}},
            {"tool": "register_secret", "arguments": {"name": "PASS", "value": "s3cret-pass"}},
            {"tool": "ui.get_visual_tree"},
        ]})
        assert (stopped["completed"], stopped["failed"], stopped["stopped"]) == (2, 1, True)
        assert stopped["results"][1]["result"]["code"] == "capability-denied"
        too_many = await fails(client, "tool.batch", {"calls": [{"tool": "ui.get_visual_tree"}] * 33}, "bad-arg")
        assert too_many["field"] == "calls"
        nested = await fails(client, "tool.batch", {"calls": [{"tool": "tool.batch", "arguments": {"calls": []}}]},
                             "bad-arg")
        assert nested["field"] == "calls[0].tool"
        after_all = await ok(client, "tool.batch", {
            "calls": [{"tool": "ui.query_nodes", "arguments": {"role": "image"}}],
            "after": {"visualTree": {"maxDepth": 0}}})
        assert after_all["after"]["visualTree"]["revision"] == after_all["results"][0]["result"]["revision"] + 1
