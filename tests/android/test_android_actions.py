"""android-app end to end, acting: taps at freshly read points, typing through `input
text` with exact shell escaping, secrets typed literally, keys, scrolls, deep links,
BACK, screenshots, and every refusal of the engine's tool table, all through the real MCP
server and the fake adb server, checked against what the device received."""

from __future__ import annotations

import io
from pathlib import Path

from PIL import Image

from android.android_support import Adb, android_server, serving
from e2e_support import call_result, envelope_of, fails, images_of, ok, png_size
from fakes.adb_device import FakeAdb
from fakes.adb_shop import emulator

TRICKY = "it's \"$HOME\" 50% off & more; s%s `x` \\ {a,b}"


async def test_taps_typing_keys_and_navigation(tmp_path: Path, adb: Adb) -> None:
    device = adb.device()
    device.show("login")
    async with android_server(tmp_path, adb, "native-device,secrets") as client:
        phone = {"session": "p"}
        await ok(client, "open_session", {**phone, "engine": "android-app"})

        # -- fill: a tap on the field, then `input text` that types exactly what was asked -
        filled = await ok(client, "fill", {**phone, "selector": "~email", "value": TRICKY})
        assert filled["point"] == {"x": 540.0, "y": 460.0} and "warnings" not in filled
        assert device.fields["email"] == TRICKY
        assert device.gestures[-1] == "tap 540 460"
        (sent,) = [c.command for c in device.commands if "input text" in c.command]
        assert sent.startswith("input tap 540 460; input keyevent KEYCODE_MOVE_END; input keyevent KEYCODE_DEL")
        assert sent.count("input text ") == 2, "a %s in the text splits it in two, all in one shell line"
        before = len(device.commands)
        outside = await fails(client, "fill", {**phone, "selector": "~email", "value": "café"}, "bad-arg")
        assert outside["field"] == "value" and "printable ASCII" in outside["error"]
        assert device.fields["email"] == TRICKY, "text adb cannot type is refused before anything is sent"
        assert [c.command for c in device.commands[before:]] == ["uiautomator dump /dev/tty"]

        # -- registered secrets do not materialise on a native engine ----------------------
        await ok(client, "register_secret", {**phone, "name": "PASSWORD", "value": "hunter2-secret"})
        secret = await ok(client, "fill", {**phone, "selector": "~password", "value": "<PASSWORD>", "submit": True})
        assert device.fields["password"] == "<PASSWORD>", "the alias is typed literally"
        assert "hunter2-secret" not in str(device.commands)
        assert secret["warnings"] == ["registered secrets do not materialise on android-app: <PASSWORD> typed "
                                      "literally, as written"]
        assert secret["submitted"] is True and device.keys[-1] == "KEYCODE_ENTER"

        # -- click: by selector, by ref, at coords; what a touch screen has not -----------
        remember = await ok(client, "click", {**phone, "selector": "text=Remember me"})
        assert remember["target"]["matchedBy"] == "text" and "remember" in device.toggles
        await ok(client, "click", {**phone, "coords": {"x": 340, "y": 760}})
        assert device.gestures[-1] == "tap 340 760" and "remember" not in device.toggles
        for args, what in (({"button": "right"}, "right button"), ({"modifiers": ["Shift"]}, "modifier"),
                           ({"clickCount": 2}, "double tap")):
            refused = await fails(client, "click", {**phone, "selector": "~email", **args}, "not-supported")
            assert refused["engine"] == "android-app" and what in refused["error"], refused

        # -- press: names, KEYCODE_*, one character; chords and unknown keys refused -------
        assert (await ok(client, "press", {**phone, "key": "KEYCODE_TAB"}))["sent"] == "KEYCODE_TAB"
        typed = await ok(client, "press", {**phone, "key": "x", "selector": "~email"})
        assert typed["sent"] == "text 'x'" and device.fields["email"].endswith("x")
        chord = await fails(client, "press", {**phone, "key": "Control+A"}, "bad-arg")
        assert chord["field"] == "key" and "chord" in chord["error"]
        await fails(client, "press", {**phone, "key": "Frobnicate"}, "bad-arg")

        # -- into the catalog; navigate fires a VIEW intent; go_back is the BACK key -------
        await ok(client, "click", {**phone, "selector": "Log in"})
        assert device.screen.name == "catalog"
        linked = await ok(client, "navigate", {**phone, "url": "shop://confirmation"})
        assert linked["intent"] == "android.intent.action.VIEW" and device.screen.name == "confirmation"
        assert device.commands[-1].command == "am start -a android.intent.action.VIEW -d shop://confirmation"
        unroutable = await fails(client, "navigate", {**phone, "url": "nope://anywhere"}, "navigation-failed")
        assert "unable to resolve" in unroutable["error"]
        await fails(client, "navigate", {**phone, "url": "javascript:alert(1)"}, "bad-arg")
        bare = await fails(client, "navigate", {**phone, "url": "example.com"}, "bad-arg")
        assert "not a deep link" in bare["error"] and bare["field"] == "url"
        await ok(client, "go_back", phone)
        assert device.screen.name == "catalog" and device.keys[-1] == "KEYCODE_BACK"
        back = await ok(client, "press", {**phone, "key": "back"})
        assert back["sent"] == "KEYCODE_BACK" and device.screen.name == "login"


async def test_scroll_and_screenshots(tmp_path: Path, adb: Adb) -> None:
    device = adb.device()
    device.show("login")
    device.show("catalog")
    async with android_server(tmp_path, adb) as client:
        phone = {"session": "p"}
        await ok(client, "open_session", {**phone, "engine": "android-app"})

        # -- scroll by a delta: a slow stroke the other way, inside the scroll view -------
        by = await ok(client, "scroll", {**phone, "deltaY": 300})
        assert by["container"]["role"] == "scrollview"
        assert by["swipes"] == [{"fromX": 540.0, "fromY": 1100.0, "toX": 540.0, "toY": 800.0}]
        assert device.gestures[-1] == "swipe 540 1100 540 800 600"
        long = await ok(client, "scroll", {**phone, "deltaY": -1500})
        assert len(long["swipes"]) == 3, "a delta longer than the view is split into strokes that fit it"
        to = await ok(client, "scroll", {**phone, "to": "bottom"})
        assert to["reachedEnd"] is True and len(to["swipes"]) == 1
        into_view = await fails(client, "scroll", {**phone, "selector": "~checkout-submit"}, "not-supported")
        assert "scroll-into-view is not a native primitive" in into_view["error"]
        both = await fails(client, "scroll", {**phone, "to": "top", "deltaY": 10}, "bad-arg")
        assert both["field"] == "to"

        # -- screenshots: PNG off screencap, cropped to what the hierarchy just said ------
        whole = await call_result(client, "screenshot", phone)
        envelope, [(mime, png)] = envelope_of(whole), images_of(whole)
        assert mime == "image/png" and png_size(png) == (1080, 1794)
        assert envelope["format"] == "png" and envelope["byteLength"] == len(png)
        element = await call_result(client, "screenshot", {**phone, "selector": "~checkout-submit"})
        assert envelope_of(element)["target"]["testId"] == "checkout-submit"
        assert png_size(images_of(element)[0][1]) == (1000, 140)
        region = images_of(await call_result(client, "screenshot", {**phone, "region": {
            "x": 100, "y": 200, "width": 300, "height": 50}}))[0][1]
        assert png_size(region) == (300, 50)
        with Image.open(io.BytesIO(region)) as image:
            assert image.getpixel((0, 0))[:3] == (250, 250, 250)
        small = await ok(client, "screenshot", {**phone, "maxDimension": 897, "path": "shots/catalog.png"})
        assert (small["width"], small["height"]) == (540, 897) and small["scale"] == 0.5
        assert Path(small["path"]).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        assert Path(small["path"]).is_relative_to((tmp_path / "ws").resolve())
        jpeg = await fails(client, "screenshot", {**phone, "format": "jpeg"}, "not-supported")
        assert "PNG off screencap" in jpeg["error"]
        await fails(client, "screenshot", {**phone, "fullPage": True}, "not-supported")
        for path in ("../out.png", "x" * 300 + ".png", ".", "ok/", "diagnostics/x.png", "a\u0000b.png"):
            refused = await fails(client, "screenshot", {**phone, "path": path}, "bad-arg")
            assert refused["field"] == "path" and str(tmp_path) not in refused["error"], (path, refused)
        await ok(client, "snapshot", phone)  # the session serves on


async def test_refusals_name_the_missing_primitive(tmp_path: Path, adb: Adb) -> None:
    async with android_server(tmp_path, adb, "native-device,eval,canvas,storage") as client:
        phone = {"session": "p"}
        await ok(client, "open_session", {**phone, "engine": "android-app"})
        refusals = {
            "eval_js": ({"expr": "1"}, "no scriptable context"),
            "hover": ({"selector": "~x"}, "no pointer"),
            "select": ({"selector": "~x", "values": ["a"]}, "no <select>"),
            "wait_for": ({"text": "x"}, "unmeasured dump cost"),
            "go_forward": ({}, "no history stack"),
            "set_viewport": ({"width": 400, "height": 800}, "the screen size is the device's"),
            "list_tabs": ({}, "no tabs"),
            "canvas_capture": ({"format": "png"}, "no <canvas>"),
            "gesture_chain": ({"steps": [{"kind": "move", "x": 1, "y": 1}]}, "no <canvas>"),
            "network_read": ({}, "no protocol-level network tap"),
            "cookies_list": ({}, "web storage"),
            "storage_get": ({}, "web storage"),
            "frames_list": ({}, "deep: false"),
            "console_read": ({}, "deep: false"),
            "pdf_save": ({}, "no print surface"),
        }
        for tool, (args, reason) in refusals.items():
            refused = await fails(client, tool, {**phone, **args}, "not-supported")
            assert refused["engine"] == "android-app" and refused["tool"] == tool, refused
            assert refused["error"].startswith(f"{tool} is not available on android-app: ") and reason in \
                refused["error"], refused
        # The human channel: no isolated world on a native screen.
        human = await fails(client, "await_human", {**phone, "prompt": "Check the phone"}, "no-human-channel")
        assert human["value"] is None and human["timedOut"] is False and "android-app" in human["error"]


async def test_gestures_touches_and_regions(tmp_path: Path, adb: Adb) -> None:
    """The issue-17 gesture tools on android-app: a swipe between freshly read points, one
    raw finger over `input motionevent` (refused below API 30), the pinch refused with its
    own code before anything is sent, and screenshot_region cropped from screencap."""
    device = adb.device()
    device.show("login")
    device.show("catalog")
    async with android_server(tmp_path, adb) as client:
        phone = {"session": "p"}
        await ok(client, "open_session", {**phone, "engine": "android-app"})
        swiped = await ok(client, "gesture_swipe", {**phone, "from": {"selector": "~checkout-submit"},
                                                    "to": {"x": 540, "y": 300}, "durationMs": 250})
        assert swiped["swipe"]["from"] == {"x": 540.0, "y": 1670.0}
        assert swiped["target"]["testId"] == "checkout-submit"
        assert device.gestures[-1] == "swipe 540 1670 540 300 250"

        await ok(client, "touch_start", {**phone, "points": [{"x": 100, "y": 900}]})
        moved = await ok(client, "touch_move", {**phone, "points": [{"x": 100, "y": 500}], "steps": 2})
        assert moved["moves"] == 2
        await ok(client, "touch_end", phone)
        assert device.gestures[-4:] == ["motionevent DOWN 100 900", "motionevent MOVE 100 700",
                                        "motionevent MOVE 100 500", "motionevent UP 100 500"]
        two = await fails(client, "touch_start", {**phone, "points": [{"id": 0, "x": 1, "y": 1},
                                                                      {"id": 1, "x": 9, "y": 9}]}, "not-supported")
        assert "single pointer" in two["error"]
        await fails(client, "touch_end", phone, "bad-arg")

        before = len(device.commands)
        pinch = await fails(client, "gesture_pinch", {**phone, "center": {"x": 540, "y": 900}, "scale": 2},
                            "native-pinch-needs-multitouch-driver")
        assert "UiAutomator2" in pinch["error"] and device.commands[before:] == []

        region = await call_result(client, "screenshot_region", {**phone, "x": 20, "y": 1600, "width": 200,
                                                                 "height": 100})
        assert envelope_of(region)["format"] == "png" and png_size(images_of(region)[0][1]) == (200, 100)
        await fails(client, "screenshot_region", {**phone, "x": 0, "y": 0, "width": 10, "height": 10,
                                                  "format": "jpeg"}, "not-supported")

    # Below API 30 there is no motionevent: refused, naming the API level.
    with serving(FakeAdb([emulator("emulator-5556", sdk=29, release="10")])) as old_adb:
        async with android_server(tmp_path / "old", old_adb) as client:
            old = {"session": "old"}
            await ok(client, "open_session", {**old, "engine": "android-app"})
            refused = await fails(client, "touch_start", {**old, "points": [{"x": 1, "y": 1}]}, "not-supported")
            assert "API 30" in refused["error"]
