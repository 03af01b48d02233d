"""The ui.* tools on android-app and ios-app sessions: the real server over real stdio MCP,
against the fake adb server (the shop's React Native screens as ``uiautomator dump``
prints them) and the fake WebDriverAgent (the shop's XCUITest tree as ``/source``
answers it).

Every payload is validated against the contract's JSON Schema; what the actions did is
read back from the fake device's model (the fields typed, the toggles, the screen shown,
the commands the device received), not from their answers. Shown on both platforms: the
native payload from the engine's real hierarchy, query by automation id, role, text and
action, setValue / typeText / toggle / tap / focus, unfocus refused naming the provider,
a node the screen replaced refused as stale, ui.wait (met, and timing out), truncation
and inspect_node, and after / tool.batch riding on a native call.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import trio
from mcp.client import Client

from android.android_support import Adb, android_server, serving
from e2e_support import fails, ok
from fakes.wda_server import serve_wda
from ios.ios_support import ios_server
from visualtree.contract_schema import check_inspection, check_matches, check_tree, nodes_of, payload_of


@pytest.fixture
def adb() -> Iterator[Adb]:
    """The fake adb server: emulator-5554 with the launcher and the shop."""
    with serving() as served:
        yield served

NATIVE = "ansight.native.visual-tree.compact.v2"
WAITED = ("condition", "attempts", "waitedMs")


async def one(client: Client, session: str, **criteria: Any) -> dict[str, Any]:
    """The one match of a fresh query: its reference and node."""
    found = check_matches(payload_of(await ok(client, "ui.query_nodes", {"session": session, **criteria})))
    assert found["count"] == 1, found
    return found["matches"][0]  # type: ignore[no-any-return]


async def act(client: Client, session: str, match: dict[str, Any], action: str, **extra: Any) -> dict[str, Any]:
    return await ok(client, "ui.perform_action", {"session": session, "reference": match["reference"],
                                                  "action": action, **extra})


async def test_android_visual_tree_query_act_and_wait(tmp_path: Path, adb: Adb) -> None:
    device = adb.device()
    device.show("login")
    async with android_server(tmp_path, adb, "native-device,secrets") as client:
        phone = {"session": "p"}
        await ok(client, "open_session", {**phone, "engine": "android-app"})

        # -- the payload: the dump's classes, RN testIDs and resource names, no secret -----
        tree = check_tree(payload_of(await ok(client, "ui.get_visual_tree", phone)))
        assert (tree["format"], tree["platform"], tree["source"]) == (NATIVE, "android", "native")
        assert tree["revision"] == 1 and tree["snapshotId"].startswith("native:1:")
        nodes = {node.get("automationId"): node for node in nodes_of(tree["root"])}
        email, password = nodes["email"], nodes["password"]
        assert tree["types"][email["typeId"]] == "android.widget.EditText"
        assert (email["role"], email["label"], email["interactable"]) == ("input", "Email address", True)
        assert email["supportedActions"] == ["tap", "focus", "setValue", "typeText"]
        assert email["bounds"] == {"x": 80, "y": 400, "width": 920, "height": 120}
        assert password["role"] == "input" and password["visual"] == {"opacity": 1}
        button = nodes["com.example.shop:id/login_button"]
        assert (button["role"], button["label"], button["supportedActions"]) == ("button", "Log in", ["tap"])
        remember = next(n for n in nodes_of(tree["root"]) if n.get("label") == "Remember me")
        assert remember["role"] == "checkbox" and "toggle" in remember["supportedActions"]
        assert tree["root"]["childCount"] == 1 and tree["root"]["visual"] == {"opacity": 1}

        # -- setValue is fill: the field holds exactly the value; a secret stays an alias ---
        await act(client, "p", await one(client, "p", automationId="email"), "setValue", value="ann@example.com")
        assert device.fields["email"] == "ann@example.com"
        await ok(client, "register_secret", {**phone, "name": "PASSWORD", "value": "hunter2-secret"})
        secret = await act(client, "p", await one(client, "p", automationId="password"), "setValue",
                           value="<PASSWORD>")
        assert secret["performedWith"] == "fill" and device.fields["password"] == "<PASSWORD>"
        assert "typed literally" in secret["warnings"][0] and "hunter2-secret" not in str(device.commands)
        shown = check_tree(payload_of(await ok(client, "ui.get_visual_tree", phone)))
        hidden = next(n for n in nodes_of(shown["root"]) if n.get("automationId") == "password")
        assert "text" not in hidden["visual"] and "value" not in hidden["visual"], hidden
        assert "<PASSWORD>" not in json.dumps(shown) and "\u2022" not in json.dumps(shown)

        # -- typeText appends at the end; toggle taps the checkbox; unfocus is refused ------
        before = len(device.commands)
        typed = await act(client, "p", await one(client, "p", automationId="email", action="typeText"), "typeText",
                          value=".uk")
        assert device.fields["email"] == "ann@example.com.uk" and typed["typed"] == 3
        sent = [c.command for c in device.commands[before:]]
        assert sent[-2:] == ["input keyevent KEYCODE_MOVE_END", "input text .uk"], sent
        toggled = await act(client, "p", await one(client, "p", role="checkbox"), "toggle")
        assert "remember" in device.toggles and toggled["performedWith"] == "click"
        unfocus = await fails(client, "ui.perform_action", {**phone, "action": "unfocus", "reference": (
            await one(client, "p", automationId="email"))["reference"]}, "not-supported")
        assert (unfocus["engine"], unfocus["provider"]) == ("android-app", NATIVE)
        welcome = await one(client, "p", text="Welcome back")
        not_offered = await fails(client, "ui.perform_action", {**phone, "reference": welcome["reference"],
                                                                "action": "tap"}, "action-failed")
        assert not_offered["supportedActions"] == []

        # -- an older capture's reference is stale; so is a node the screen replaced --------
        log_in = await one(client, "p", automationId="login_button")
        newer = await one(client, "p", text="Forgot password?")
        stale = await fails(client, "ui.perform_action", {**phone, "reference": log_in["reference"], "action": "tap"},
                            "stale_node_reference")
        assert stale["refreshWith"] == "ui.query_nodes" and device.screen.name == "login"
        tapped = await act(client, "p", await one(client, "p", automationId="login_button"), "tap")
        assert tapped["target"]["matchedBy"] == "reference" and device.screen.name == "catalog"
        assert newer["reference"]["revision"] < tapped["reference"]["revision"]

        checkout = await one(client, "p", automationId="checkout-submit")
        await ok(client, "click", {**phone, "selector": "~promo-toggle"})  # the banner moves checkout down a slot
        replaced = await fails(client, "ui.perform_action", {**phone, "reference": checkout["reference"],
                                                             "action": "tap"}, "stale_node_reference")
        assert "no longer on the screen" in replaced["error"] and device.screen.name == "catalog"

        # -- ui.wait: met while the session serves a tap; and a timeout ---------------------
        results: dict[str, dict[str, Any]] = {}

        async def wait_for_order() -> None:
            results["wait"] = await ok(client, "ui.wait", {**phone, "automationId": "order-status",
                                                           "condition": "visible", "timeoutMs": 20_000})

        async with trio.open_nursery() as nursery:
            nursery.start_soon(wait_for_order)
            results["tap"] = await act(client, "p", await one(client, "p", automationId="checkout-submit"), "tap")
        waited = check_matches(payload_of(results["wait"], *WAITED))
        assert waited["matches"][0]["node"]["visual"]["text"] == "Order placed"
        assert device.screen.name == "confirmation"
        timed_out = await fails(client, "ui.wait", {**phone, "text": "Catalog", "timeoutMs": 300, "intervalMs": 100},
                                "timeout")
        assert timed_out["attempts"] >= 2 and timed_out["matched"] == 0

        # -- truncation and inspect_node ------------------------------------------------------
        cut = check_tree(payload_of(await ok(client, "ui.get_visual_tree", {**phone, "maxDepth": 2})))
        (placeholder,) = [n for n in nodes_of(cut["root"]) if n.get("truncated")]
        assert placeholder["id"] == "root.0.0.0"
        assert set(placeholder) <= {"id", "typeId", "truncated", "childCount", "z"}
        assert placeholder["childCount"] == 2  # "Order placed" and "Back to shop", left out
        subtree = check_tree(payload_of(await ok(client, "ui.get_visual_tree", {
            **phone, "rootNodeId": "root.0.0.0", "properties": True})))
        assert subtree["root"]["id"] == "root.0.0.0" and subtree["root"]["childCount"] == 2
        (order,) = [n for n in nodes_of(subtree["root"]) if n.get("automationId") == "order-status"]
        assert order["properties"]["nativeRole"] == "text" and order["properties"]["clickable"] is False
        status = await one(client, "p", automationId="order-status")
        inspected = check_inspection(payload_of(await ok(client, "ui.inspect_node", {
            **phone, "reference": status["reference"]})))
        assert [a["id"] for a in inspected["ancestors"]] == ["root", "root.0", "root.0.0", "root.0.0.0"]
        assert inspected["node"]["label"] == "Order placed"

        # -- after and tool.batch on a native call --------------------------------------------
        clicked = await ok(client, "click", {**phone, "selector": "Back to shop", "after": {"visualTree": {}}})
        after = check_tree(payload_of(clicked["after"]["visualTree"]))
        assert after["format"] == NATIVE and any(n.get("label") == "Catalog" for n in nodes_of(after["root"]))
        batch = await ok(client, "tool.batch", {"calls": [
            {"tool": "ui.query_nodes", "arguments": {**phone, "automationId": "promo-toggle"}},
            {"tool": "ui.wait", "arguments": {**phone, "text": "Hide promo", "condition": "exists"}},
        ]})
        assert (batch["completed"], batch["failed"]) == (2, 0)


async def test_ios_visual_tree_query_act_and_wait(tmp_path: Path) -> None:
    with serve_wda() as (url, model):
        async with ios_server(tmp_path, url) as client:
            ios = {"session": "i"}
            await ok(client, "open_session", {**ios, "engine": "ios-app"})
            shop = model.shop

            # -- the payload: XCUITest types, identifiers, a secure field without its value ---
            shop.password = "hunter2"
            tree = check_tree(payload_of(await ok(client, "ui.get_visual_tree", ios)))
            assert (tree["format"], tree["platform"], tree["source"]) == (NATIVE, "ios", "native")
            nodes = {node.get("automationId"): node for node in nodes_of(tree["root"])}
            assert tree["types"][nodes["login-email"]["typeId"]] in ("TextField", "XCUIElementTypeTextField")
            secure = nodes["login-password"]
            assert secure["role"] == "input" and "value" not in secure["visual"] and "text" not in secure["visual"]
            assert "hunter2" not in json.dumps(tree) and "\u2022" not in json.dumps(tree)
            assert nodes["remember-me"]["role"] == "switch" and "toggle" in nodes["remember-me"]["supportedActions"]
            assert nodes["login-submit"]["bounds"] == {"x": 24, "y": 323, "width": 345, "height": 50}
            shop.password = ""

            # -- setValue, typeText, toggle, then the tap that signs in -----------------------
            await act(client, "i", await one(client, "i", automationId="login-email"), "setValue", value="ann@x.io")
            assert shop.email == "ann@x.io"
            await act(client, "i", await one(client, "i", automationId="login-email"), "typeText", value="m")
            assert shop.email == "ann@x.iom"
            await act(client, "i", await one(client, "i", automationId="remember-me"), "toggle")
            assert shop.remember is True
            focused = await act(client, "i", await one(client, "i", automationId="login-password"), "focus")
            assert focused["performedWith"] == "click" and shop.focused == "password"
            refused = await fails(client, "ui.perform_action", {**ios, "action": "unfocus", "reference": (
                await one(client, "i", automationId="login-password"))["reference"]}, "not-supported")
            assert (refused["engine"], refused["provider"]) == ("ios-app", NATIVE)
            await act(client, "i", await one(client, "i", automationId="login-submit", role="button"), "tap")
            assert shop.screen == "products"

            # -- a disabled control is not interactable, and a tap on it is refused -----------
            checkout = await one(client, "i", automationId="checkout-submit")
            assert checkout["node"]["enabled"] is False and checkout["node"]["interactable"] is False
            disabled = await fails(client, "ui.perform_action", {**ios, "reference": checkout["reference"],
                                                                 "action": "tap"}, "action-failed")
            assert disabled["state"] == "disabled" and shop.screen == "products"

            # -- ui.wait for the cart, while the session serves the tap that fills it ---------
            results: dict[str, dict[str, Any]] = {}

            async def wait_for_cart() -> None:
                results["wait"] = await ok(client, "ui.wait", {**ios, "automationId": "checkout-submit",
                                                               "condition": "enabled", "timeoutMs": 20_000})

            async with trio.open_nursery() as nursery:
                nursery.start_soon(wait_for_cart)
                await act(client, "i", await one(client, "i", automationId="add-kettle"), "tap")
            assert shop.cart == {"kettle": 1}
            enabled = check_matches(payload_of(results["wait"], *WAITED))["matches"][0]
            assert enabled["node"]["interactable"] is True

            # -- the promo banner moves checkout: its old reference no longer names it --------
            await ok(client, "click", {**ios, "selector": "~toggle-promo"})
            moved = await fails(client, "ui.perform_action", {**ios, "reference": enabled["reference"],
                                                              "action": "tap"}, "stale_node_reference")
            assert moved["refreshWith"] == "ui.query_nodes" and shop.screen == "products"
            assert "no longer on the screen" in moved["error"]
            batch = await ok(client, "tool.batch", {"calls": [
                {"tool": "ui.query_nodes", "arguments": {**ios, "automationId": "checkout-submit"}},
                {"tool": "ui.perform_action", "arguments": {**ios, "reference": enabled["reference"], "action": "tap"}},
                {"tool": "ui.get_visual_tree", "arguments": {**ios, "maxDepth": 1}},
            ]})
            assert (batch["completed"], batch["failed"], batch["stopped"]) == (2, 1, True), "stop on error"
            assert batch["results"][1]["result"]["code"] == "stale_node_reference" and len(batch["results"]) == 2
            found = await ok(client, "tool.batch", {"calls": [
                {"tool": "ui.query_nodes", "arguments": {**ios, "automationId": "checkout-submit",
                                                         "after": {"visualTree": {"maxNodes": 5}}}},
            ]})
            after = found["results"][0]["result"]["after"]["visualTree"]
            assert len(list(nodes_of(check_tree(payload_of(after))["root"]))) == 5
