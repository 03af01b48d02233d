"""android-app end to end, reading: the real MCP server over stdio, the fake adb server
(the real smart-socket protocol) in this process.

snapshot (the real Pixel launcher dump, the app's screens, the thin-on-testIDs warning,
the idle failure), find and text_search, every selector tier, ambiguous and stale
refusals, a testID-anchored ref surviving a layout change that moves its node while a
positional ref goes stale, and verify_* passing and failing.
"""

from __future__ import annotations

from pathlib import Path

from android.android_support import Adb, android_server
from e2e_support import fails, ok

LOGIN = """\
text "Welcome back" [ref=e10]
textbox "Email address" [ref=e11] value="Email"
textbox "Password" [ref=e12] value="Password"
checkbox "Remember me" [ref=e13]
button "Log in" [ref=e14]
text "Forgot password?" [ref=e15]"""


def ref_of(snapshot: str, line: str) -> str:
    """The ref on the snapshot line that starts (after its indent) with ``line``."""
    (found,) = [row for row in snapshot.splitlines() if row.strip().startswith(line)]
    return found.split("[ref=")[1].split("]")[0]


async def test_snapshots_selectors_and_refs(tmp_path: Path, adb: Adb) -> None:
    async with android_server(tmp_path, adb) as client:
        opened = await ok(client, "open_session", {"session": "phone", "engine": "android-app"})
        assert opened["device"] == {"id": "emulator-5554", "platform": "android", "serial": "emulator-5554",
                                    "state": "device", "model": "sdk_gphone64_x86_64", "release": "14", "sdk": 34,
                                    "emulator": True}
        phone = {"session": "phone"}

        # -- the launcher: the unedited Pixel dump, thin on testIDs ------------------------
        launcher = await ok(client, "snapshot", phone)
        assert 'text "Chrome"' in launcher["snapshot"] and 'image "Voice search"' in launcher["snapshot"]
        (thin,) = launcher["warnings"]
        assert thin.startswith("thin on testIDs: 4 of 7 interactive elements have no testID")
        assert launcher["untagged"] == 4 and launcher["interactive"] == 7

        # -- the app's splash screen never goes idle, then settles -------------------------
        launched = await ok(client, "app_launch", {**phone, "appId": "com.example.shop"})
        assert launched["activity"] == "com.example.shop/.MainActivity"
        for _ in range(2):
            busy = await fails(client, "snapshot", phone, "native-hierarchy-not-idle")
            assert "Wait for the screen to settle and retry" in busy["error"]
            assert busy["detail"] == "ERROR: could not get idle state."
        login = await ok(client, "snapshot", phone)
        assert login["snapshot"] == LOGIN
        assert login["nodeCount"] == 6 and "truncated" not in login
        (thin,) = login["warnings"]
        assert 'e13 checkbox "Remember me", e15 text "Forgot password?"' in thin and "2 of 5" in thin

        # -- find, with selector hints; text_search with the ref of what shows the text ---
        fields = await ok(client, "find", {**phone, "role": "textbox"})
        assert [(m["ref"], m["selectorHint"]) for m in fields["matches"]] == [("e11", "~email"), ("e12", "~password")]
        log_in = await ok(client, "find", {**phone, "text": "Log"})
        assert log_in["matches"] == [{"ref": "e14", "role": "button", "name": "Log in", "selectorHint": "~login_button",
                                      "testId": "com.example.shop:id/login_button"}]
        found = await ok(client, "text_search", {**phone, "query": "password"})
        assert [(m["ref"], m["snippet"]) for m in found["matches"]] == [("e15", "Forgot password?")]
        limited = await ok(client, "snapshot", {**phone, "maxNodes": 2, "omit": ["text"]})
        assert limited["snapshot"].splitlines() == ['textbox "Email address" [ref=e11] value="Email"',
                                                    'textbox "Password" [ref=e12] value="Password"']
        assert limited["truncated"] is True

        # -- every selector tier, reporting which one matched -------------------------------
        tiers = {
            "~email": "testID", "testID=email": "testID", "id=email": "testID", "[testID=\"email\"]": "testID",
            "label=Email address": "label", "text=Remember me": "text", 'role=button[name="Log in"]': "role",
            "email": "testID", "Email address": "label", "Forgot password?": "text", "e13": "ref",
        }
        for selector, tier in tiers.items():
            verdict = await ok(client, "verify_visible", {**phone, "selector": selector})
            assert verdict["element"]["ref"] in ("e11", "e13", "e14", "e15"), selector
            count = await ok(client, "verify_count", {**phone, "selector": selector, "count": 1})
            assert count["matchedBy"] == tier, (selector, count)
        web = await fails(client, "click", {**phone, "selector": "css=#email"}, "bad-arg")
        assert web["field"] == "selector" and "web selector syntax" in web["error"]
        missing = await fails(client, "click", {**phone, "selector": "text=Sign up"}, "target-not-found")
        assert "tried text" in missing["error"]

        # -- into the catalog: one label on three buttons refuses, naming the count ----------
        await ok(client, "fill", {**phone, "selector": "~email", "value": "ada@example.com"})
        await ok(client, "click", {**phone, "selector": "~login_button"})
        catalog = await ok(client, "snapshot", phone)
        place_order, items = ref_of(catalog["snapshot"], 'generic "Place order"'), ref_of(catalog["snapshot"],
                                                                                         'text "3 items"')
        first_add = ref_of(catalog["snapshot"].split('generic "Blue hat')[0], 'button "Add to cart"')
        before = len(adb.device().gestures)
        ambiguous = await fails(client, "click", {**phone, "selector": "label=Add to cart"}, "ambiguous-target")
        assert ambiguous["count"] == 3 and ambiguous["tier"] == "label" and "nothing was done" in ambiguous["error"]
        rows = await fails(client, "click", {**phone, "selector": "~product_row"}, "ambiguous-target")
        assert rows["count"] == 3
        assert len(adb.device().gestures) == before, "an ambiguous target must tap nothing"
        await ok(client, "verify_count", {**phone, "selector": "label=Add to cart", "count": 3})

        # -- find_feedback: the snackbar "Add" raises, new since that tap -------------------
        assert (await ok(client, "find_feedback", phone))["items"] == []
        await ok(client, "click", {**phone, "ref": first_add})
        said = await ok(client, "find_feedback", phone)
        assert said["items"] == [{"kind": "toast", "ref": said["items"][0]["ref"], "role": "generic",
                                  "text": "Added to cart", "new": True}] and said["sinceAction"] is True
        await ok(client, "snapshot", phone)
        await ok(client, "press", {**phone, "key": "KEYCODE_TAB"})
        assert (await ok(client, "find_feedback", {**phone, "newOnly": True}))["count"] == 0, \
            "still there, but it was there when the last action began"

        order = await ok(client, "name_ref", {**phone, "ref": place_order, "name": "order"})
        assert order["by"] == "testID" and "warnings" not in order
        shared = await fails(client, "name_ref", {**phone, "ref": "~product_row", "name": "row"}, "stale-element")
        assert shared["ref"] == "~product_row", "a selector is not a ref: nothing by that name"
        count = await ok(client, "name_ref", {**phone, "ref": items, "name": "count"})
        assert count["by"] == "path" and count["anchor"]["path"]
        await ok(client, "click", {**phone, "selector": "promo-toggle"})
        moved = await ok(client, "snapshot", phone)
        assert 'text "Spring sale: 20% off"' in moved["snapshot"]
        assert ref_of(moved["snapshot"], 'generic "Place order"') == place_order, "the testID ref survives the move"
        assert ref_of(moved["snapshot"], 'text "3 items"') != items, "the untagged text moved and got a new ref"
        stale = await fails(client, "click", {**phone, "ref": items}, "stale-element")
        assert stale["ref"] == items and "take a new snapshot" in stale["error"]
        await fails(client, "verify_visible", {**phone, "ref": first_add}, "stale-element")
        await fails(client, "verify_visible", {**phone, "ref": "count"}, "stale-element")
        await ok(client, "verify_visible", {**phone, "ref": "order"})
        tapped = await ok(client, "click", {**phone, "ref": "order"})
        assert tapped["target"]["ref"] == place_order
        assert tapped["target"]["testId"] == "checkout-submit" and tapped["target"]["matchedBy"] == "ref"
        # The tap went where the fresh read put the node (the bar moved down by 40 px).
        assert tapped["point"] == {"x": 540.0, "y": 1710.0}
        assert adb.device().gestures[-1] == "tap 540 1710"

        # -- verify_* over the confirmation screen --------------------------------------------
        await ok(client, "verify_text", {**phone, "text": "Order placed"})
        text = await ok(client, "verify_text", {**phone, "selector": "~order-status", "text": "Order placed",
                                                "exact": True})
        assert "actual" not in text  # exactly as expected
        wrong = await fails(client, "verify_text", {**phone, "text": "Order failed"}, "verification-failed")
        assert wrong["expected"] == "Order failed" and wrong["actual"] == "0 matches on the screen"
        attribute = await ok(client, "verify_attribute", {**phone, "selector": "~order-status",
                                                          "name": "resource-id", "value": "order-status"})
        assert "actual" not in attribute  # as expected
        await ok(client, "verify_attribute", {**phone, "selector": "text=Back to shop", "name": "class",
                                              "value": "android.widget.Button"})
        unknown = await fails(client, "verify_attribute", {**phone, "selector": "~order-status", "name": "href",
                                                           "value": "x"}, "bad-arg")
        assert unknown["field"] == "name" and "resource-id" in unknown["error"]
        invisible = await fails(client, "verify_visible", {**phone, "selector": "~checkout-submit"},
                                "verification-failed")
        assert invisible["actual"] is False and invisible["element"] is None
        count = await fails(client, "verify_count", {**phone, "selector": "role=button", "count": 2},
                            "verification-failed")
        assert count["actual"] == 1


async def test_verify_value_and_password_fields(tmp_path: Path, adb: Adb) -> None:
    device = adb.device()
    device.show("login")
    device.fields["email"] = "old@example.com"
    async with android_server(tmp_path, adb) as client:
        phone = {"session": "p"}
        await ok(client, "open_session", {**phone, "engine": "android-app"})
        await ok(client, "verify_value", {**phone, "selector": "~email", "value": "old@example.com"})
        filled = await ok(client, "fill", {**phone, "selector": "~email", "value": "ada@example.com"})
        assert filled["typed"] == 15
        # fill replaced the text: one DEL per character shown, then the new text.
        assert device.fields["email"] == "ada@example.com"
        await ok(client, "verify_value", {**phone, "selector": "~email", "value": "ada@example.com"})
        mismatch = await fails(client, "verify_value", {**phone, "selector": "~email", "value": "x"},
                               "verification-failed")
        assert mismatch["actual"] == "ada@example.com"
        secret = await fails(client, "verify_value", {**phone, "selector": "~password", "value": "hunter2"},
                             "not-supported")
        assert "password field" in secret["error"]
        await ok(client, "fill", {**phone, "selector": "~password", "value": "hunter2"})
        assert device.fields["password"] == "hunter2"
        shown = await ok(client, "snapshot", phone)
        assert 'textbox "Email address" [ref=e1] value="ada@example.com"' in shown["snapshot"]
        assert 'textbox "Password" [ref=e2] [focused] value="********"' in shown["snapshot"]
        assert "hunter2" not in shown["snapshot"] and "\u2022" not in shown["snapshot"]
        # Filled again, a password field that holds something is emptied without reading its length.
        await ok(client, "fill", {**phone, "selector": "~password", "value": "swordfish"})
        assert device.fields["password"] == "swordfish"
