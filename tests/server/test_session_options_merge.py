"""open_session's context options, without a browser: the device table read from the
installed Playwright, the lookup by name, the merge (explicit arguments over the
device's), firefox's refusals, and what chromium's new_context is given."""

from __future__ import annotations

import pytest

from browx_actors.errors import ToolError
from browx_actors.jsonsafe import JsonObject
from browx_actors.sessions.context_options import ContextOptions, merge, refuse_on_firefox
from browx_actors.sessions.device_descriptors import descriptors, parse_bundle, pick

PHONE: JsonObject = {"userAgent": "Phone UA", "viewport": {"width": 390, "height": 660}, "deviceScaleFactor": 3,
                     "isMobile": True, "hasTouch": True, "defaultBrowserType": "webkit"}
DESK: JsonObject = {"userAgent": "Desk UA", "viewport": {"width": 1920, "height": 1080}, "deviceScaleFactor": 1,
                    "isMobile": False, "hasTouch": False}
TABLE = {"Phone X": PHONE, "Desktop Y": DESK}


def lookup(name: str) -> JsonObject:
    return pick(name, TABLE)


def test_the_installed_playwright_has_the_usual_devices() -> None:
    table = descriptors()
    assert {"iPhone 15", "Pixel 7", "Desktop Chrome"} <= set(table)
    iphone = table["iPhone 15"]
    assert iphone["isMobile"] is True and iphone["hasTouch"] is True and iphone["deviceScaleFactor"] == 3
    assert set(iphone["viewport"]) == {"width", "height"} and "iPhone" in iphone["userAgent"]


def test_the_bundle_literal_is_read_with_its_keys_quoted() -> None:
    bundle = ('var x = 1;\n    deviceDescriptorsSource_default = {\n      "A b": {\n        userAgent: "u: v",\n'
              '        viewport: {\n          width: 10,\n          height: 20\n        },\n        isMobile: true\n'
              '      }\n    };\n  }\n});\n')
    assert parse_bundle(bundle) == {"A b": {"userAgent": "u: v", "viewport": {"width": 10, "height": 20},
                                            "isMobile": True}}


def test_a_device_is_found_by_name_or_refused_naming_device_with_close_names() -> None:
    assert pick("Phone X", TABLE) is PHONE
    assert pick("phone x", TABLE) is PHONE
    with pytest.raises(ToolError) as refused:
        pick("Phone Z", TABLE)
    assert refused.value.code == "bad-arg" and refused.value.details["field"] == "device"
    assert "Phone X" in refused.value.details["close"] and "Phone X" in refused.value.message


def test_a_device_brings_its_viewport_scale_touch_and_user_agent() -> None:
    assert merge({"device": "Phone X"}, lookup) == {
        "device": "Phone X", "viewport": {"width": 390, "height": 660}, "deviceScaleFactor": 3, "isMobile": True,
        "hasTouch": True, "userAgent": "Phone UA"}


def test_explicit_viewport_and_user_agent_win_over_the_devices() -> None:
    merged = merge({"device": "Phone X", "viewport": {"width": 500, "height": 700}, "userAgent": "Mine"}, lookup)
    assert merged["viewport"] == {"width": 500, "height": 700} and merged["userAgent"] == "Mine"
    assert merged["isMobile"] is True  # the rest of the device stays


def test_without_a_device_only_what_is_set_is_there_and_the_viewport_defaults() -> None:
    assert merge({}, lookup) == {"viewport": {"width": 1280, "height": 720}}
    assert merge({"locale": "de-DE", "timezone": "Asia/Tokyo", "colorScheme": "dark", "ignoreHttpsErrors": True,
                  "userAgent": None}, lookup) == {
        "viewport": {"width": 1280, "height": 720}, "locale": "de-DE", "timezone": "Asia/Tokyo",
        "colorScheme": "dark", "ignoreHttpsErrors": True}
    assert "ignoreHttpsErrors" not in merge({"ignoreHttpsErrors": False}, lookup)


def test_the_devices_table_is_not_changed_through_the_options() -> None:
    merged = merge({"device": "Phone X"}, lookup)
    merged["viewport"]["width"] = 1  # type: ignore[index]
    assert PHONE["viewport"] == {"width": 390, "height": 660}


@pytest.mark.parametrize(("args", "field"), [
    ({"device": "Phone X"}, "device"),
    ({"colorScheme": "dark"}, "colorScheme"),
])
def test_firefox_refuses_what_bidi_cannot_set_naming_the_field(args: JsonObject, field: str) -> None:
    with pytest.raises(ToolError) as refused:
        refuse_on_firefox(merge(args, lookup))
    assert refused.value.code == "not-supported" and refused.value.details["field"] == field
    assert "Firefox 153" in refused.value.message


def test_firefox_takes_a_desktop_device_and_the_rest() -> None:
    refuse_on_firefox(merge({"device": "Desktop Y", "locale": "de-DE", "timezone": "Asia/Tokyo",
                             "userAgent": "x", "ignoreHttpsErrors": True}, lookup))


def test_chromium_context_keywords_carry_what_was_set() -> None:
    options = ContextOptions.of(merge({"device": "Phone X", "locale": "de-DE", "timezone": "Asia/Tokyo",
                                       "colorScheme": "dark", "ignoreHttpsErrors": True}, lookup))
    assert options.playwright() == {
        "is_mobile": True, "has_touch": True, "ignore_https_errors": True, "device_scale_factor": 3.0,
        "user_agent": "Phone UA", "locale": "de-DE", "timezone_id": "Asia/Tokyo", "color_scheme": "dark"}
    assert ContextOptions().playwright() == {"is_mobile": False, "has_touch": False, "ignore_https_errors": False}
