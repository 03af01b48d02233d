"""The WDA client against the fake WebDriverAgent: every call, its wire shape, and its failures."""

from __future__ import annotations

import io
import socket
import subprocess
import sys
import threading
from collections.abc import AsyncIterator, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx
import pytest
import trio
from PIL import Image

from browx_actors.devices.nodes import NativeNode
from browx_actors.devices.wda_client import WdaClient, open_wda_client
from browx_actors.errors import CODES, ToolError
from fakes.wda_server import WdaModel, serve_wda

T = 5.0  # every call's timeout: generous, never reached against the loopback peer
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
async def wda() -> AsyncIterator[tuple[WdaClient, WdaModel]]:
    with serve_wda() as (url, model):
        async with open_wda_client(url) as client:
            await client.create_session("com.example.shop", timeout=T)
            yield client, model


def node(root: NativeNode, test_id: str) -> NativeNode:
    (found,) = [n for n in root.walk() if n.test_id == test_id]
    return found


async def tap_node(client: WdaClient, test_id: str) -> None:
    """Re-resolve, then tap the centre of what that read returned (as the engine does)."""
    bounds = node(await client.source(timeout=T), test_id).bounds
    assert bounds is not None
    await client.tap(*bounds.center, timeout=T)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


async def test_status_says_ready_and_what_it_runs_on() -> None:
    with serve_wda() as (url, model):
        async with open_wda_client(url + "/") as client:
            status = await client.status(timeout=T)
    assert (status.ready, status.state, status.os_name, status.os_version) == (True, "success", "iOS", "17.5")
    assert status.simulator_version == "17.5"
    assert status.build["productBundleIdentifier"] == "com.facebook.WebDriverAgentRunner"
    assert model.paths() == ["/status"]


async def test_create_session_sends_the_bundle_in_always_match_and_commands_go_under_it() -> None:
    with serve_wda() as (url, model):
        async with open_wda_client(url) as client:
            session_id = await client.create_session("com.example.shop", timeout=T)
            await client.tap(10, 10, timeout=T)
    create, tap = model.requests
    assert (create.method, create.path, create.body) == (
        "POST", "/session", {"capabilities": {"alwaysMatch": {"bundleId": "com.example.shop"}}})
    assert session_id == client.session_id == model.session_id
    assert (tap.method, tap.path, tap.body) == ("POST", f"/session/{session_id}/wda/tap", {"x": 10, "y": 10})


async def test_source_is_the_active_apps_hierarchy_read_fresh(wda: tuple[WdaClient, WdaModel]) -> None:
    client, model = wda
    root = await client.source(timeout=T)
    assert (root.role, root.tag, root.name) == ("application", "XCUIElementTypeApplication", "Shop")
    email = node(root, "login-email")
    assert (email.role, email.tag, email.value, email.focused) == ("textbox", "XCUIElementTypeTextField", "Email",
                                                                    False)
    assert node(root, "login-password").password
    assert model.requests[-1].query == {"format": "json"}


async def test_tap_focuses_a_field_and_keys_type_into_it(wda: tuple[WdaClient, WdaModel]) -> None:
    client, model = wda
    await tap_node(client, "login-email")
    await client.keys("me@example.com", timeout=T)
    await tap_node(client, "login-password")
    await client.keys("hunter2", timeout=T)
    root = await client.source(timeout=T)
    assert node(root, "login-email").value == "me@example.com"
    password = node(root, "login-password")
    assert (password.focused, password.value) == (True, "********")  # WDA sends bullets: the mask stands in
    assert any(n.tag == "XCUIElementTypeKeyboard" for n in root.walk())
    assert model.requests[-2].body == {"value": ["hunter2"]}
    assert model.shop.password == "hunter2"


async def test_keys_with_nothing_focused_is_wdas_keyboard_error(wda: tuple[WdaClient, WdaModel]) -> None:
    client, _ = wda
    with pytest.raises(ToolError) as caught:
        await client.keys("lost", timeout=T)
    error = caught.value
    assert (error.code, error.details["wdaError"], error.details["status"]) == ("wda-error", "invalid element state",
                                                                               400)
    assert "on-screen keyboard must be present" in error.message
    assert error.details["command"] == "POST /wda/keys"


async def test_gestures_send_wdas_shapes(wda: tuple[WdaClient, WdaModel]) -> None:
    client, model = wda
    await client.touch_and_hold(100, 200, 1.5, timeout=T)
    await client.drag(200, 600, 200, 200, 0.25, timeout=T)
    await client.pinch(0.5, -1.0, timeout=T)
    hold, drag, pinch = model.requests[-3:]
    assert (hold.path.rsplit("/", 1)[-1], hold.body) == ("touchAndHold", {"x": 100, "y": 200, "duration": 1.5})
    assert (drag.path.rsplit("/", 1)[-1], drag.body) == (
        "dragfromtoforduration", {"fromX": 200, "fromY": 600, "toX": 200, "toY": 200, "duration": 0.25})
    assert (pinch.path.rsplit("/", 1)[-1], pinch.body) == ("pinch", {"scale": 0.5, "velocity": -1.0})


async def test_screenshot_is_a_png_in_pixels_and_screen_gives_points_and_scale(wda: tuple[WdaClient, WdaModel]) -> None:
    client, _ = wda
    screen = await client.screen(timeout=T)
    assert (screen.width, screen.height, screen.scale) == (393, 852, 3)
    assert screen.to_pixels(10, 20) == (30, 60)
    png = await client.screenshot(timeout=T)
    with Image.open(io.BytesIO(png)) as image:
        assert (image.format, image.size) == ("PNG", (1179, 2556))
    await tap_node(client, "login-email")  # the keyboard appears: another picture
    assert await client.screenshot(timeout=T) != png


async def test_home_goes_to_the_home_screen_and_other_buttons_are_refused(wda: tuple[WdaClient, WdaModel]) -> None:
    client, model = wda
    await client.press_button("home", timeout=T)
    home = await client.source(timeout=T)
    assert home.name == "SpringBoard"
    assert model.requests[-2].body == {"name": "home"}
    with pytest.raises(ToolError) as caught:
        await client.press_button("volumeUp", timeout=T)
    assert caught.value.details["wdaError"] == "unknown error"
    assert "only supports the following buttons" in caught.value.message
    icon = next(n for n in home.walk() if n.name == "Shop")
    assert icon.bounds is not None
    await client.tap(*icon.bounds.center, timeout=T)
    assert (await client.source(timeout=T)).name == "Shop"


async def test_launch_starts_afresh_and_terminate_says_whether_it_ran(wda: tuple[WdaClient, WdaModel]) -> None:
    client, model = wda
    await tap_node(client, "login-email")
    assert await client.terminate_app("com.example.shop", timeout=T) is True
    assert await client.terminate_app("com.example.shop", timeout=T) is False
    await client.launch_app("com.example.shop", timeout=T)
    assert model.requests[-1].body == {"bundleId": "com.example.shop"}
    assert not node(await client.source(timeout=T), "login-email").focused
    with pytest.raises(ToolError) as caught:
        await client.launch_app("com.example.missing", timeout=T)
    assert "is not installed on the device under test" in caught.value.message


async def test_open_url_follows_a_deep_link_and_refuses_an_unknown_scheme(wda: tuple[WdaClient, WdaModel]) -> None:
    client, model = wda
    await client.open_url("shop://checkout", timeout=T)
    assert node(await client.source(timeout=T), "place-order").name == "Place order"
    assert model.requests[-2].body == {"url": "shop://checkout"}
    with pytest.raises(ToolError) as caught:
        await client.open_url("nosuchapp://x", timeout=T)
    assert caught.value.code == "wda-error"


async def test_an_empty_login_raises_a_modal_alert(wda: tuple[WdaClient, WdaModel]) -> None:
    client, _ = wda
    await tap_node(client, "login-submit")
    root = await client.source(timeout=T)
    alert = next(n for n in root.walk() if n.role == "alertdialog")
    assert alert.name == "Email required"
    assert node(root, "login-submit").bounds is not None
    await tap_node(client, "login-submit")  # the alert's window takes the tap
    ok = next(n for n in (await client.source(timeout=T)).walk() if n.name == "OK")
    assert ok.bounds is not None
    await client.tap(*ok.bounds.center, timeout=T)
    assert not any(n.role == "alertdialog" for n in (await client.source(timeout=T)).walk())


async def test_the_promo_banner_moves_the_testid_node_and_two_buttons_share_a_label(
        wda: tuple[WdaClient, WdaModel]) -> None:
    client, _ = wda
    await client.open_url("shop://products", timeout=T)
    before = await client.source(timeout=T)
    adds = [n for n in before.walk() if n.name == "Add to cart"]
    assert [n.test_id for n in adds] == ["add-espresso", "add-kettle"]
    gift_before = next(n for n in before.walk() if n.role == "listitem" and n.test_id is None)
    assert not node(before, "checkout-submit").enabled
    await tap_node(client, "add-kettle")
    await tap_node(client, "toggle-promo")
    after = await client.source(timeout=T)
    moved, was = node(after, "checkout-submit"), node(before, "checkout-submit")
    assert moved.path != was.path and moved.bounds != was.bounds
    assert moved.enabled
    gift_after = next(n for n in after.walk() if n.role == "listitem" and n.test_id is None)
    assert gift_after.path != gift_before.path
    assert node(after, "cart-count").name == "Cart: 1 item"
    await tap_node(client, "checkout-submit")
    assert node(await client.source(timeout=T), "order-total").name == "Total: $39.00"


async def test_nothing_listening_is_wda_unreachable_naming_the_url_and_the_fix() -> None:
    url = f"http://127.0.0.1:{free_port()}"
    async with open_wda_client(url) as client:
        with pytest.raises(ToolError) as caught:
            await client.status(timeout=T)
    error = caught.value
    assert (error.code, error.details["url"]) == ("wda-unreachable", url)
    assert url in error.message
    assert "build and run WebDriverAgent" in error.message and "BROWX_IOS_WDA_URL" in error.message
    assert CODES["wda-unreachable"].kind == "internal"


async def test_wda_error_replies_carry_wdas_error_and_message(wda: tuple[WdaClient, WdaModel]) -> None:
    client, model = wda
    model.fail_next("/wda/tap", "invalid coordinates", "The coordinates provided are invalid")
    with pytest.raises(ToolError) as caught:
        await client.tap(-5, -5, timeout=T)
    error = caught.value
    assert (error.code, error.details["wdaError"]) == ("wda-error", "invalid coordinates")
    assert error.message == ("WebDriverAgent refused POST /wda/tap: invalid coordinates: "
                             "The coordinates provided are invalid")
    await client.tap(5, 5, timeout=T)  # scripted once


async def test_a_session_another_client_replaced_is_invalid_session_id(wda: tuple[WdaClient, WdaModel]) -> None:
    client, model = wda
    model.session_id = "SOMEONE-ELSES"
    with pytest.raises(ToolError) as caught:
        await client.tap(5, 5, timeout=T)
    assert (caught.value.details["wdaError"], caught.value.details["status"]) == ("invalid session id", 404)


@pytest.fixture
def not_wda() -> Iterator[str]:
    """An HTTP server that is not WebDriverAgent (HTML), on loopback."""

    class Html(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            body = b"<html><body>It works!</body></html>"
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Html)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


async def test_a_server_that_is_not_wda_is_a_wda_error(not_wda: str) -> None:
    async with open_wda_client(not_wda) as client:
        with pytest.raises(ToolError) as caught:
            await client.status(timeout=T)
    assert caught.value.code == "wda-error"
    assert "not WebDriverAgent's JSON" in caught.value.message and "It works!" in caught.value.message


async def test_a_connection_dropped_mid_command_is_wda_unreachable() -> None:
    listener = socket.create_server(("127.0.0.1", 0))

    def hang_up() -> None:
        connection, _ = listener.accept()
        connection.recv(65536)
        connection.close()

    thread = threading.Thread(target=hang_up, daemon=True)
    thread.start()
    async with open_wda_client(f"http://127.0.0.1:{listener.getsockname()[1]}") as client:
        with pytest.raises(ToolError) as caught:
            await client.source(timeout=T)
    listener.close()
    assert caught.value.code == "wda-unreachable"
    assert "dropped the connection during GET /source" in caught.value.message


async def test_a_command_that_outlives_its_timeout_is_timeout(autojump_clock: trio.abc.Clock) -> None:
    listener = socket.create_server(("127.0.0.1", 0))  # accepts into its backlog, never answers
    async with open_wda_client(f"http://127.0.0.1:{listener.getsockname()[1]}") as client:
        start = trio.current_time()
        with pytest.raises(ToolError) as caught:
            await client.screen(timeout=7.5)
        assert trio.current_time() - start == pytest.approx(7.5)
    listener.close()
    assert (caught.value.code, caught.value.details["command"]) == ("timeout", "GET /wda/screen")
    assert "within 7.5 s" in caught.value.message


class BrokenPeer(WdaModel):
    """A WDA whose source and screenshot are not what WDA sends."""

    def _source(self, form: str) -> Any:
        return {"type": "Application", "isEnabled": "yes"}

    def _screenshot(self) -> bytes:
        return b"GIF89a not a png"


async def test_a_broken_source_or_screenshot_is_a_wda_error() -> None:
    with serve_wda(BrokenPeer()) as (url, _):
        async with open_wda_client(url) as client:
            with pytest.raises(ToolError) as caught:
                await client.source(timeout=T)
            assert caught.value.code == "wda-error"
            assert "isEnabled='yes'" in caught.value.message
            with pytest.raises(ToolError) as caught:
                await client.screenshot(timeout=T)
            assert "not a base64 PNG" in caught.value.message


async def test_session_commands_need_a_session_and_the_url_must_be_http() -> None:
    with serve_wda() as (url, _):
        async with open_wda_client(url) as client:
            with pytest.raises(RuntimeError, match="create_session first"):
                await client.tap(1, 1, timeout=T)
    with pytest.raises(ToolError) as caught:
        async with open_wda_client("127.0.0.1:8100"):
            pass
    assert (caught.value.code, caught.value.details["field"]) == ("bad-arg", "BROWX_IOS_WDA_URL")


# -- the peer itself --------------------------------------------------------------------


async def test_the_peer_answers_xml_by_default_and_unknown_endpoints_as_wda_does() -> None:
    with serve_wda() as (url, _):
        async with httpx.AsyncClient(base_url=url, trust_env=False) as http:
            home = (await http.get("/source")).json()["value"]
            session = (await http.post("/session", json={"capabilities": {"alwaysMatch": {
                "bundleId": "com.example.shop"}}})).json()
            xml = (await http.get("/source")).json()["value"]
            missing = await http.post("/session/none/wda/nothing", json={})
            unknown = await http.get("/wda/nothing")
    assert 'name="SpringBoard"' in home
    assert xml.startswith('<?xml version="1.0" encoding="UTF-8"?>\n<AppiumAUT><XCUIElementTypeApplication')
    assert 'name="login-email"' in xml and 'visible="true"' in xml
    assert (missing.status_code, missing.json()["value"]["error"]) == (404, "invalid session id")
    assert (unknown.status_code, unknown.json()["value"]["error"]) == (404, "unknown command")
    assert set(unknown.json()["value"]) == {"error", "message", "traceback"}
    assert unknown.json()["sessionId"] == session["value"]["sessionId"]


async def test_the_peer_runs_on_its_own_as_a_module() -> None:
    port = free_port()
    process = subprocess.Popen([sys.executable, "-m", "tests.fakes.wda_server", "--port", str(port)], cwd=ROOT,
                               stdout=subprocess.PIPE, text=True)
    try:
        assert process.stdout is not None
        banner = await trio.to_thread.run_sync(process.stdout.readline)
        assert f"BROWX_IOS_WDA_URL=http://127.0.0.1:{port}" in banner
        async with open_wda_client(f"http://127.0.0.1:{port}") as client:
            assert (await client.status(timeout=T)).ready
            await client.create_session("com.example.shop", timeout=T)
            assert node(await client.source(timeout=T), "login-submit").name == "Sign in"
    finally:
        process.terminate()
        process.wait(timeout=T)


async def test_double_tap_active_app_and_ending_the_session(wda: tuple[WdaClient, WdaModel]) -> None:
    client, model = wda
    await client.double_tap(196.5, 287.5, timeout=T)  # the "Remember me" switch: toggled twice
    assert model.requests[-1].path.endswith("/wda/doubleTap") and model.shop.remember is False
    assert (await client.active_app(timeout=T))["bundleId"] == "com.example.shop"
    await client.delete_session(timeout=T)
    assert client.session_id is None and model.session_id is None
    assert model.requests[-1].method == "DELETE"
    await client.delete_session(timeout=T)  # nothing left to end: no request
    assert model.requests[-1].method == "DELETE" and len([r for r in model.requests if r.method == "DELETE"]) == 1
