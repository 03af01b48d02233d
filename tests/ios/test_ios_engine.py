"""ios-app end to end: the real MCP server over stdio, the WebDriverAgent peer in this
process and the fake xcrun on the server's PATH.

Session start (the simulator chosen, leased, booted when it is not; the app installed
and launched; WDA's absence refused naming the fix), the hierarchy through the shared
node tree (XCUITest types to roles, identifier hints), every selector spelling of the
identifier, anchored refs surviving a layout change, stale and ambiguous refusals,
actions, element-scoped and JPEG screenshots, the lifecycle verbs simctl has, and every
refusal of the engine's table.
"""

from __future__ import annotations

import io
import plistlib
from pathlib import Path

from PIL import Image

from e2e_support import call_result, envelope_of, fails, images_of, jpeg_size, ok, png_size
from fakes.wda_server import SPRINGBOARD, serve_wda
from ios.ios_support import BOOTED, IPHONE_16, SHOP, ios_server, xcrun_state

LOGIN = """\
application "Shop" [ref=e1]
  navigation "Shop" [ref=e2]
    text "Shop" [ref=e3]
  text "Sign in to continue" [ref=e4]
  textbox [ref=e5] value="Email"
  textbox [ref=e6] value="Password"
  switch "Remember me" [ref=e7]
  button "Sign in" [ref=e8]
  button "Forgot password?" [ref=e9]"""


def ref_of(snapshot: str, line: str) -> str:
    (found,) = [row for row in snapshot.splitlines() if row.strip().startswith(line)]
    return found.split("[ref=")[1].split("]")[0]


async def test_reading_selectors_refs_and_actions(tmp_path: Path) -> None:
    with serve_wda() as (url, model):
        async with ios_server(tmp_path, url) as client:
            opened = await ok(client, "open_session", {"session": "i", "engine": "ios-app"})
            assert opened["device"] == {"id": BOOTED, "platform": "ios", "name": "iPhone 15", "runtime": "iOS 17.5",
                                        "state": "Booted"}
            assert opened["appUnderTest"] == SHOP
            (created,) = [r for r in model.requests if r.path == "/session"]
            assert created.body == {"capabilities": {"alwaysMatch": {"bundleId": SHOP}}}
            calls = xcrun_state(tmp_path / "home")["calls"]
            assert calls == [["simctl", "list", "devices", "--json"]], "booted already: no boot, no shutdown"
            taken = await fails(client, "open_session", {"session": "j", "engine": "ios-app"}, "device-leased")
            assert taken["holder"] == "i" and taken["device"] == f"ios:{BOOTED}"
            listed = await ok(client, "device_list")
            booted = next(s for s in listed["simulators"] if s["id"] == BOOTED)
            assert booted["leasedBy"] == "i" and listed["simulatorsBooted"] == 1
            ios = {"session": "i"}

            # -- the hierarchy: XCUITest types to roles, placeholders on empty values ---------
            login = await ok(client, "snapshot", ios)
            assert login["snapshot"] == LOGIN
            found = await ok(client, "find", {**ios, "role": "textbox"})
            assert [m["selectorHint"] for m in found["matches"]] == ['[accessibilityIdentifier="login-email"]',
                                                                     '[accessibilityIdentifier="login-password"]']
            # The raw XCUITest type rides on each match's and each verified element's tag.
            assert [m["tag"] for m in found["matches"]] == ["XCUIElementTypeTextField",
                                                            "XCUIElementTypeSecureTextField"]
            for spelling in ("~login-email", '[testID="login-email"]', '[identifier="login-email"]',
                             '[accessibilityIdentifier="login-email"]', "testID=login-email", "login-email"):
                verdict = await ok(client, "verify_visible", {**ios, "selector": spelling})
                assert verdict["element"]["ref"] == "e5", spelling
                assert verdict["element"]["tag"] == "XCUIElementTypeTextField"
            tag = await ok(client, "verify_attribute", {**ios, "selector": "~login-password", "name": "type",
                                                        "value": "XCUIElementTypeSecureTextField"})
            assert "actual" not in tag  # as expected

            # -- find_feedback: the alert a submit with no email raises, new since that tap -----
            assert (await ok(client, "find_feedback", ios))["count"] == 0
            await ok(client, "click", {**ios, "selector": 'role=button[name="Sign in"]'})
            said = await ok(client, "find_feedback", {**ios, "newOnly": True})
            (alert,) = said["items"]
            assert alert["kind"] == "dialog" and alert["role"] == "alertdialog" and alert["new"] is True
            assert alert["text"] == "Email required Enter the email you signed up with. OK" and said["sinceAction"]
            await ok(client, "click", {**ios, "selector": 'role=button[name="OK"]'})
            assert (await ok(client, "find_feedback", ios))["count"] == 0 and model.shop.alert is None

            # -- typing through WDA's keys; a secure field's length is never read back -------
            await ok(client, "fill", {**ios, "selector": "~login-email", "value": "ada@example.com"})
            assert model.shop.email == "ada@example.com"
            await ok(client, "fill", {**ios, "selector": "~login-email", "value": "bob@example.com"})
            assert model.shop.email == "bob@example.com", "fill replaces what was there"
            await ok(client, "fill", {**ios, "selector": "~login-password", "value": "pa ss"})
            assert model.shop.password == "pa ss"
            shown = await ok(client, "snapshot", ios)
            assert 'textbox [ref=e6] [focused] value="Password"' not in shown["snapshot"]
            assert "pa ss" not in shown["snapshot"]
            entered = await ok(client, "press", {**ios, "key": "Enter"})
            assert entered["sent"] == "key enter" and model.shop.focused is None
            nope = await fails(client, "press", {**ios, "key": "ArrowUp"}, "not-supported")
            assert nope["engine"] == "ios-app"
            signed_in = await ok(client, "click", {**ios, "selector": 'role=button[name="Sign in"]'})
            assert signed_in["target"]["matchedBy"] == "role" and model.shop.screen == "products"

            # -- one label on two buttons refuses; a disabled button is not tapped ------------
            products = await ok(client, "snapshot", ios)
            two = await fails(client, "click", {**ios, "selector": "label=Add to cart"}, "ambiguous-target")
            assert two["count"] == 2 and model.shop.cart == {}
            disabled = await fails(client, "click", {**ios, "selector": "~checkout-submit"}, "action-failed")
            assert disabled["state"] == "disabled"
            checkout = ref_of(products["snapshot"], 'button "Checkout"')
            gift = ref_of(products["snapshot"], 'listitem "Gift card')
            await ok(client, "click", {**ios, "selector": "~add-espresso"})
            double = await ok(client, "click", {**ios, "selector": "~add-kettle", "clickCount": 2})
            assert double["point"] == {"x": 313.5, "y": 230.0} and model.shop.cart == {"espresso": 1, "kettle": 2}

            # -- the promo banner moves the identified button: its ref survives -------------
            pay = await ok(client, "name_ref", {**ios, "ref": checkout, "name": "pay"})
            assert pay["by"] == "testID" and pay["anchor"]["testID"] == "checkout-submit" and "warnings" not in pay
            card = await ok(client, "name_ref", {**ios, "ref": gift, "name": "card"})
            assert card["by"] == "path" and "index path" in card["warnings"][0]
            await ok(client, "click", {**ios, "selector": "~toggle-promo"})
            moved = await ok(client, "snapshot", ios)
            named = {entry["name"]: entry for entry in (await ok(client, "list_named_refs", ios))["named"]}
            assert named["pay"]["ref"] == checkout and named["pay"]["count"] == 1
            assert named["card"]["ref"] is None and named["card"]["count"] == 0
            await fails(client, "verify_visible", {**ios, "ref": "card"}, "stale-element")
            assert (await ok(client, "verify_visible", {**ios, "ref": "pay"}))["element"]["ref"] == checkout
            assert ref_of(moved["snapshot"], 'button "Checkout"') == checkout
            assert ref_of(moved["snapshot"], 'listitem "Gift card') != gift
            await fails(client, "click", {**ios, "ref": gift}, "stale-element")
            tapped = await ok(client, "click", {**ios, "ref": checkout})
            assert tapped["point"] == {"x": 196.5, "y": 557.0} and model.shop.screen == "checkout"

            # -- verify_*, scroll, screenshots -------------------------------------------------
            await ok(client, "verify_text", {**ios, "selector": "~order-total", "text": "Total: $90.00", "exact": True})
            await ok(client, "verify_value", {**ios, "selector": "~tip", "value": "10%"})
            await ok(client, "verify_count", {**ios, "selector": "role=button", "count": 2})
            scrolled = await ok(client, "scroll", {**ios, "selector": "~order-notes", "deltaY": 40})
            drag = [r for r in model.requests if r.path.endswith("/wda/dragfromtoforduration")][-1]
            assert drag.body == {"fromX": 196.5, "fromY": 276.0, "toX": 196.5, "toY": 236.0, "duration": 0.3}
            assert scrolled["swipes"] == [{"fromX": 196.5, "fromY": 276.0, "toX": 196.5, "toY": 236.0}]
            whole = await call_result(client, "screenshot", {**ios, "maxDimension": 3000})
            assert png_size(images_of(whole)[0][1]) == (1179, 2556), "pixels: points times the scale"
            fitted = await call_result(client, "screenshot", ios)
            assert png_size(images_of(fitted)[0][1]) == (923, 2000)
            assert envelope_of(fitted)["warnings"] == ["scaled by 0.782 so the longest side fits maxDimension=2000"]
            element = await call_result(client, "screenshot", {**ios, "selector": "~place-order", "format": "jpeg"})
            assert envelope_of(element)["format"] == "jpeg"
            assert jpeg_size(images_of(element)[0][1]) == (1035, 150), "points times the screen scale"
            region = images_of(await call_result(client, "screenshot", {**ios, "region": {
                "x": 0, "y": 0, "width": 10, "height": 10}}))[0][1]
            with Image.open(io.BytesIO(region)) as image:
                assert image.size == (30, 30) and image.getpixel((0, 0))[:3] == (242, 242, 247)

            # -- gestures: a drag between fresh points, pinches about the centre and aside ----
            swiped = await ok(client, "gesture_swipe", {**ios, "from": {"selector": "~order-notes"},
                                                        "to": {"x": 196.5, "y": 100}, "durationMs": 400})
            # From where the notes field is now (the scroll above moved it up 20 points).
            drag = [r for r in model.requests if r.path.endswith("/wda/dragfromtoforduration")][-1]
            assert drag.body == {"fromX": 196.5, "fromY": 256.0, "toX": 196.5, "toY": 100.0, "duration": 0.4}
            assert swiped["target"]["testId"] == "order-notes"
            pinched = await ok(client, "gesture_pinch", {**ios, "center": {"x": 196.5, "y": 426}, "scale": 2,
                                                         "durationMs": 500})
            pinch = [r for r in model.requests if r.path.endswith("/wda/pinch")][-1]
            assert pinch.body == {"scale": 2, "velocity": 2.0} and pinched["pinch"]["velocity"] == 2.0
            # About another point: two touch pointers in one W3C actions request.
            aside = await ok(client, "gesture_pinch", {**ios, "center": {"x": 100, "y": 300}, "scale": 0.5,
                                                       "durationMs": 500})
            actions = [r for r in model.requests if r.path.endswith("/actions")][-1].body["actions"]
            assert [[(step["type"], step.get("x"), step.get("y")) for step in chain["actions"]] for chain in actions] \
                == [[("pointerMove", 100, 260.0), ("pointerDown", None, None), ("pointerMove", 100, 280.0),
                     ("pointerUp", None, None)],
                    [("pointerMove", 100, 340.0), ("pointerDown", None, None), ("pointerMove", 100, 320.0),
                     ("pointerUp", None, None)]]  # on the axis with more room about the point
            assert all(chain["parameters"] == {"pointerType": "touch"} for chain in actions)
            assert aside["pinch"]["fingers"][0] == {"from": {"x": 100, "y": 260.0}, "to": {"x": 100, "y": 280.0}}
            before = len(model.requests)
            cramped = await fails(client, "gesture_pinch", {**ios, "center": {"x": 20, "y": 40}, "scale": 3},
                                  "bad-arg")
            assert cramped["field"] == "scale" and "needs 120 points between the fingers" in cramped["error"]
            assert not any(r.path.endswith(("/wda/pinch", "/actions")) for r in model.requests[before:])
            await fails(client, "touch_start", {**ios, "points": [{"x": 1, "y": 1}]}, "not-supported")
            cut = await call_result(client, "screenshot_region", {**ios, "x": 0, "y": 0, "width": 10, "height": 20,
                                                                  "format": "jpeg"})
            assert envelope_of(cut)["format"] == "jpeg" and jpeg_size(images_of(cut)[0][1]) == (30, 60)

            # -- deep links through WDA's /url; home leaves the app ----------------------------
            await ok(client, "navigate", {**ios, "url": "shop://products"})
            assert model.shop.screen == "products"
            unknown = await fails(client, "navigate", {**ios, "url": "nope://x"}, "navigation-failed")
            assert "cannot be opened" in unknown["error"]
            home = await ok(client, "press", {**ios, "key": "home"})
            assert home["sent"] == "button home" and model.active == SPRINGBOARD
            front = await ok(client, "app_foreground", ios)
            assert front["foreground"] == {"appId": SPRINGBOARD} and front["appUnderTest"] == SHOP
            await ok(client, "close_session", ios)
            assert model.session_id is None, "the WDA session ends with the session"
            assert xcrun_state(tmp_path / "home")["devices"]["com.apple.CoreSimulator.SimRuntime.iOS-17-5"][0][
                "state"] == "Booted", "the session never shuts its simulator down"


async def test_lifecycle_and_refusals(tmp_path: Path) -> None:
    app = tmp_path / "ws" / "build" / "Notes.app"
    app.mkdir(parents=True)
    (app / "Info.plist").write_bytes(plistlib.dumps({"CFBundleIdentifier": "com.example.notes",
                                                      "CFBundleName": "Notes"}))
    with serve_wda() as (url, model):
        async with ios_server(tmp_path, url, "native-device,eval") as client:
            ios = {"session": "i"}
            await ok(client, "open_session", {**ios, "engine": "ios-app"})
            listed = await ok(client, "app_list", ios)
            assert [a["appId"] for a in listed["apps"]] == ["com.apple.Preferences", "com.apple.mobilesafari", SHOP]
            assert listed["apps"][2] == {"appId": SHOP, "name": "Shop", "type": "User", "version": "1.0"}
            assert "nothing to select on" in listed["note"]
            installed = await ok(client, "app_install", {**ios, "apkPath": "build/Notes.app"})
            assert installed["appId"] == "com.example.notes" and installed["replacedInPlace"] is True
            assert "com.example.notes" in [a["appId"] for a in (await ok(client, "app_list", ios))["apps"]]
            not_a_bundle = await fails(client, "app_install", {**ios, "apkPath": "build/Notes.app/Info.plist"},
                                       "install-failed")
            assert ".app bundle directory" in not_a_bundle["error"]
            outside = await fails(client, "app_install", {**ios, "apkPath": "../Notes.app"}, "bad-arg")
            assert outside["error"] == "apkPath must be a path inside the workspace"
            launched = await ok(client, "app_launch", {**ios, "appId": "com.example.notes"})
            assert launched["pid"] >= 41000 and "activity" not in launched, "no activity is invented"
            terminated = await ok(client, "app_terminate", {**ios, "appId": "com.example.notes"})
            assert terminated["terminated"] is True
            again = await fails(client, "app_terminate", {**ios, "appId": "com.example.notes"}, "simctl-failed")
            assert "found nothing to terminate" in again["error"] and again["exitCode"] == 3
            missing = await fails(client, "app_launch", {**ios, "appId": "com.example.none"}, "simctl-failed")
            assert "com.example.none" in missing["error"]
            front = await ok(client, "app_foreground", ios)
            assert front["foreground"] == {"appId": SHOP} and front["url"] == f"app://{SHOP}/"

            refusals = {
                "app_uninstall": ({"appId": SHOP}, "leases the simulator, it does not own it"),
                "app_reset": ({"appId": SHOP}, "no per-app data clear"),
                "go_back": ({}, "iOS has no back key"),
                "go_forward": ({}, "no history stack"),
                "hover": ({"selector": "~x"}, "no pointer"),
                "select": ({"selector": "~x", "values": ["a"]}, "no <select>"),
                "wait_for": ({"text": "x"}, "unmeasured dump cost"),
                "set_viewport": ({"width": 400, "height": 800}, "device type"),
                "eval_js": ({"expr": "1"}, "no scriptable context"),
                "list_tabs": ({}, "no tabs"),
                "touch_move": ({"points": [{"x": 1, "y": 1}]}, "no raw touch pipeline"),
                "pdf_save": ({}, "no print surface"),
                "network_read": ({}, "no protocol-level network tap"),
                "emulate": ({"colorScheme": "dark"}, "deep: false"),
                "frames_list": ({}, "deep: false"),
                "handle_dialog": ({"accept": True}, "no JavaScript dialogs"),
            }
            for tool, (args, reason) in refusals.items():
                refused = await fails(client, tool, {**ios, **args}, "not-supported")
                assert refused["engine"] == "ios-app" and reason in refused["error"], refused
            full = await fails(client, "screenshot", {**ios, "fullPage": True}, "not-supported")
            assert full["engine"] == "ios-app"
            human = await fails(client, "await_human", {**ios, "prompt": "Look at the simulator"},
                                "no-human-channel")
            assert human["timedOut"] is False
            assert model.session_id is not None


async def test_session_start_boots_installs_and_names_what_is_missing(tmp_path: Path) -> None:
    bundle = tmp_path / "Shop.app"
    bundle.mkdir()
    (bundle / "Info.plist").write_bytes(plistlib.dumps({"CFBundleIdentifier": SHOP}))
    with serve_wda() as (url, _):
        closed = url.rsplit(":", 1)[0] + ":9"  # nothing listens on the discard port
    async with ios_server(tmp_path, closed, BROWX_IOS_DEVICE="iPhone 16", BROWX_IOS_APP_PATH=str(bundle)) as client:
        refused = await fails(client, "open_session", {"session": "i", "engine": "ios-app"}, "wda-unreachable")
        assert "build and run WebDriverAgent" in refused["error"] and "BROWX_IOS_WDA_URL" in refused["error"]
        state = xcrun_state(tmp_path / "home")
        assert ["simctl", "boot", IPHONE_16] in state["calls"] and ["simctl", "bootstatus", IPHONE_16, "-b"] in \
            state["calls"]
        assert ["simctl", "install", IPHONE_16, str(bundle)] in state["calls"]
        assert not any(call[1] == "shutdown" for call in state["calls"])
        again = await fails(client, "open_session", {"session": "i", "engine": "ios-app"}, "wda-unreachable")
        assert again["url"].endswith(":9"), "the failed start released its lease"
    # A relative BROWX_IOS_APP_PATH is the workspace's, resolved before simctl sees it.
    relative = tmp_path / "r" / "ws" / "build" / "Shop.app"
    relative.mkdir(parents=True)
    (relative / "Info.plist").write_bytes(plistlib.dumps({"CFBundleIdentifier": SHOP}))
    async with ios_server(tmp_path / "r", closed, BROWX_IOS_APP_PATH="build/Shop.app") as client:
        await fails(client, "open_session", {"session": "i", "engine": "ios-app"}, "wda-unreachable")
        installs = [call for call in xcrun_state(tmp_path / "r" / "home")["calls"] if call[1] == "install"]
        assert installs == [["simctl", "install", installs[0][2], str(relative.resolve())]]
    async with ios_server(tmp_path / "m", closed, BROWX_IOS_APP_PATH="build/Missing.app") as client:
        missing = await fails(client, "open_session", {"session": "i", "engine": "ios-app"}, "not-configured")
        assert missing["variable"] == "BROWX_IOS_APP_PATH" and "build/Missing.app" in missing["error"]
        assert not (tmp_path / "m" / "home" / "xcrun-state.json").exists()  # refused before simctl ran
    async with ios_server(tmp_path / "b", closed, BROWX_IOS_APP_ID="") as client:
        unset = await fails(client, "open_session", {"session": "i", "engine": "ios-app"}, "not-configured")
        assert unset["variable"] == "BROWX_IOS_APP_ID" and "bundle id" in unset["error"]
