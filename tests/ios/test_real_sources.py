"""Every real iOS source in tests/testdata/ios goes through the WebDriverAgent peer as an
app's screen: the peer serves the JSON source WDA gives for that snapshot
(:mod:`fakes.wda_xml`, from the recorded XML), the engine's client reads it over HTTP with
the engine's reader, the snapshot gives refs, the first tappable element is resolved by its
ref and tapped through ``/wda/tap``, and the peer records the tap at that element's point.
Then what the real screens say about rows, text fields and types."""

from __future__ import annotations

import base64
import io
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from types import SimpleNamespace
from typing import Any

import pytest
from PIL import Image

from browx_actors.devices.nodes import NativeNode
from browx_actors.devices.wda_client import WdaClient, open_wda_client
from browx_actors.sessions.native.refs import Hierarchy, RefBook
from browx_actors.sessions.native.snapshot import shown_text, snapshot
from browx_actors.sessions.native.target import locate_in, on_screen, point_of
from fakes.testdata import TESTDATA
from fakes.wda_server import WdaModel, serve_wda
from fakes.wda_xml import source_json

T = 5.0
APP = "com.example.recorded"
SOURCES = sorted(path.name for path in (TESTDATA / "ios").glob("*.xml"))


@asynccontextmanager
async def recorded(name: str) -> AsyncIterator[tuple[WdaClient, WdaModel, Hierarchy]]:
    """The peer showing the real source ``name``, a session on it, and its first read."""
    model = WdaModel()
    model.record(APP, source_json((TESTDATA / "ios" / name).read_bytes()))
    with serve_wda(model) as (url, _):
        async with open_wda_client(url) as client:
            await client.create_session(APP, timeout=T)
            yield client, model, Hierarchy(await client.source(timeout=T))


async def read(name: str) -> Hierarchy:
    async with recorded(name) as (_, _, hierarchy):
        return hierarchy


def first(hierarchy: Hierarchy, **fields: object) -> NativeNode:
    return next(node for node in hierarchy.root.walk() if all(getattr(node, k) == v for k, v in fields.items()))


def line_of(text: str, start: str) -> str:
    return next(line.strip() for line in text.splitlines() if line.strip().startswith(start))


def test_the_test_data_holds_real_sources_of_several_screens() -> None:
    assert len(SOURCES) >= 5


def walk(tree: dict[str, Any]) -> Iterator[dict[str, Any]]:
    yield tree
    for child in tree.get("children", ()):
        yield from walk(child)


def test_the_json_is_wdas_shape_of_the_xml_element_for_element() -> None:
    xml = (TESTDATA / "ios" / "settings-zh-source.xml").read_text(encoding="utf-8")
    tree = source_json(xml)
    assert sum(1 for _ in walk(tree)) == xml.count("<XCUIElementType") == 327
    wifi = next(node for node in walk(tree) if node["type"] == "Cell" and node["label"] == "无线局域网")
    assert {key: value for key, value in wifi.items() if key != "children"} == {
        "type": "Cell", "rawIdentifier": None, "name": "无线局域网", "value": "alibaba-inc", "label": "无线局域网",
        "rect": {"x": 20, "y": -81, "width": 374, "height": 46}, "frame": "{{20, -81}, {374, 46}}",
        "isEnabled": "1", "isVisible": "0", "isAccessible": "0"}
    label = next(node for node in walk(wifi) if node["type"] == "StaticText" and node["label"] == "无线局域网")
    assert (label["rawIdentifier"], label["name"], label["value"]) == ("WIFI", "WIFI", "无线局域网")
    assert "children" not in label and "index" not in label


def test_the_peer_serves_a_recorded_screen_as_xml_too_and_paints_it() -> None:
    xml = (TESTDATA / "ios" / "settings-zh-source.xml").read_text(encoding="utf-8")
    model = WdaModel()
    model.record(APP, source_json(xml))
    status, reply = model.handle("GET", "/source", None)
    assert status == 200 and reply["value"].count("<XCUIElementType") == 327
    assert source_json(reply["value"]) == source_json(xml)
    _, shot = model.handle("GET", "/screenshot", None)
    assert Image.open(io.BytesIO(base64.b64decode(shot["value"]))).size == (414 * 3, 896 * 3)
    assert model.handle("GET", "/wda/activeAppInfo", None)[1]["value"]["name"] == "设置"


@pytest.mark.parametrize("name", SOURCES)
async def test_a_real_source_is_read_snapshotted_and_tapped_through_the_wda_peer(name: str) -> None:
    async with recorded(name) as (client, model, hierarchy):
        refs = RefBook()
        shot = snapshot(hierarchy, refs)
        assert shot.node_count > 0 and "[ref=e1]" in shot.text
        screen = hierarchy.root.bounds
        tappable = next(node for node in hierarchy.root.walk() if node.visible and node.enabled and node.clickable
                        and node.bounds is not None and not on_screen(node.bounds, screen).empty)
        ref = refs.ref_for(hierarchy, tappable)
        assert f"[ref={ref}]" in shot.text  # the snapshot listed it
        located = locate_in(hierarchy, refs, SimpleNamespace(ref=ref, selector=None))
        assert located.node == tappable
        x, y = point_of(located)
        await client.tap(x, y, timeout=T)
    assert model.taps == [(x, y)]
    assert model.requests[-1].path == f"/session/{model.session_id}/wda/tap"
    assert tappable.bounds is not None and tappable.bounds.x <= x <= tappable.bounds.x + tappable.bounds.width
    assert tappable.bounds.y <= y <= tappable.bounds.y + tappable.bounds.height


async def test_a_table_cells_subtitle_shows_in_the_snapshot() -> None:
    """UICatalog's menu: cells with no label of their own, a title over a subtitle."""
    hierarchy = await read("uicatalog-menu-source.xml")
    text = snapshot(hierarchy, RefBook()).text
    assert 'listitem "Buttons Various uses of UIButton"' in text
    assert 'listitem "Alerts Various uses of UIAlertView, UIActionSheet"' in text
    assert first(hierarchy, role="listitem").tag == "XCUIElementTypeCell"


async def test_the_status_bars_window_beside_the_apps_and_a_subtitle_below_the_screen() -> None:
    """Windows side by side under the application: the status bar's items are on the
    screen with the app's rows; a subtitle WDA reports not visible is not in its row."""
    text = snapshot(await read("uicatalog-windows-source.xml"), RefBook()).text
    assert 'listitem "Alerts Various uses of UIAlertView, UIActionSheet"' in text
    assert 'listitem "Transitions" [' in text and "UIViewAnimationTransitions" not in text
    assert all(f'generic "{item}"' in text for item in ("3 of 3 Wi-Fi bars", "12:10 PM", "-100% battery power"))


async def test_a_settings_rows_value_and_a_switch_rows_state_come_through() -> None:
    """The Settings app on a device (Chinese): a Wi-Fi row whose value is the network, a
    Bluetooth row whose value is "on", the airplane-mode switch off. The list is scrolled,
    so those rows sit under the navigation bar, not visible, and the snapshot leaves them
    out; what is on screen starts at Notifications."""
    hierarchy = await read("settings-zh-source.xml")
    wifi = first(hierarchy, role="listitem", name="无线局域网")
    assert (wifi.tag, wifi.value, wifi.visible) == ("XCUIElementTypeCell", "alibaba-inc", False)
    assert shown_text(wifi, "无线局域网") == "alibaba-inc"
    assert shown_text(first(hierarchy, role="listitem", name="蓝牙"), "蓝牙") == "打开"
    airplane = first(hierarchy, role="switch")
    assert (airplane.name, airplane.tag, airplane.value, airplane.checked, airplane.checkable) == (
        "飞行模式", "XCUIElementTypeSwitch", "0", False, True)
    assert first(hierarchy, test_id="AIRPLANE_MODE").text == "飞行模式"  # the identifier WDA's name carried
    text = snapshot(hierarchy, RefBook()).text
    assert "无线局域网" not in text and "飞行模式" not in text
    assert line_of(text, "list ").startswith("list [ref=")
    assert text.splitlines()[3].strip().startswith('listitem "通知"')


async def test_text_fields_are_editable_and_the_secure_one_holds_no_text() -> None:
    """UICatalog's text fields, each a field inside a field as XCUITest reports them."""
    hierarchy = await read("uicatalog-text-fields-source.xml")
    normal = first(hierarchy, name="Normal")
    assert (normal.role, normal.tag, normal.value, normal.focusable) == (
        "textbox", "XCUIElementTypeTextField", "<enter text>", True)
    secure = first(hierarchy, name="Secure")
    assert (secure.tag, secure.password, secure.value, secure.text) == (
        "XCUIElementTypeSecureTextField", True, "********", "")


async def test_safaris_web_view_and_address_field() -> None:
    """Safari on a simulator showing a page: three nested web views over the page's links."""
    hierarchy = await read("safari-webview-source.xml")
    text = snapshot(hierarchy, RefBook()).text
    assert [node.tag for node in hierarchy.nodes if node.role == "document"] == ["XCUIElementTypeWebView"] * 3
    assert 'link "Logout"' in text and 'button "Back"' in text
    address = first(hierarchy, name="Address")
    assert (address.role, address.tag) == ("textbox", "XCUIElementTypeTextField")
    assert address.value == "\u200ethe-internet.herokuapp.com, secure"  # the value as Safari reports it
