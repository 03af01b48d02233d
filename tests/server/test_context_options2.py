"""The pure part of open_session's further context options: what merge passes through
and what a session keeps of it, and the argument rules that refuse them where they
cannot apply."""

from __future__ import annotations

import pytest

from browx_actors.errors import ToolError
from browx_actors.jsonsafe import JsonObject
from browx_actors.sessions.context_options import ContextOptions, masked, merge, refuse_on_firefox
from browx_actors.sessions.firefox.origin_grants import origin_of
from browx_actors.sessions.firefox.proxy_auth import answer
from browx_actors.sessions.init_script import as_function, as_statement
from browx_actors.tools.rules import Check
from browx_actors.tools.sessions import OPEN_SESSION


def check(args: dict[str, object]) -> None:
    """open_session's argument rules over ``args``, as the dispatch runs them."""
    for rule in OPEN_SESSION.rules:
        if isinstance(rule, Check):
            rule.check(args)


def no_device(name: str) -> dict[str, object]:
    raise AssertionError(name)


def test_storage_state_is_passed_through_and_kept_but_not_given_to_playwright_as_is() -> None:
    merged = merge({"storageState": "state/login.json"}, no_device)
    assert merged["storageState"] == "state/login.json"
    kept = ContextOptions.of(merged)
    assert kept.storage_state == "state/login.json"
    assert "storage_state" not in kept.playwright()  # the session reads the file through the workspace


@pytest.mark.parametrize("engine", ["android-app", "ios-app"])
def test_storage_state_is_for_browser_engines(engine: str) -> None:
    with pytest.raises(ToolError) as caught:
        check({"session": "s", "engine": engine, "storageState": "a.json"})
    assert caught.value.details["field"] == "storageState"


def test_an_attached_session_refuses_a_storage_state() -> None:
    with pytest.raises(ToolError) as caught:
        check({"session": "s", "engine": "chromium", "cdpEndpoint": "ws://h:1/x", "storageState": "a"})
    assert caught.value.details["field"] == "storageState"


def test_permissions_are_deduplicated_kept_and_given_to_playwright() -> None:
    merged = merge({"permissions": ["notifications", "geolocation", "notifications"]}, no_device)
    assert merged["permissions"] == ["geolocation", "notifications"]
    kept = ContextOptions.of(merged)
    assert kept.playwright()["permissions"] == ["geolocation", "notifications"]
    assert "permissions" not in merge({"permissions": []}, no_device)


def test_firefox_takes_permissions_granting_them_per_origin() -> None:
    refuse_on_firefox(merge({"permissions": ["geolocation"]}, no_device))  # firefox/origin_grants.py


def test_an_unknown_permission_is_refused_naming_it() -> None:
    with pytest.raises(ToolError) as caught:
        check({"session": "s", "engine": "chromium", "permissions": ["geolocation", "telepathy"]})
    assert caught.value.details["field"] == "permissions" and "telepathy" in caught.value.message


def test_an_init_script_is_kept_by_path_and_wrapped_as_a_function_body() -> None:
    kept = ContextOptions.of(merge({"initScript": "init.js"}, no_device))
    assert kept.init_script == "init.js" and "init_script" not in kept.playwright()
    # A last-line comment must not swallow the closing brace.
    assert as_function("window.a = 1 // note") == "() => {\nwindow.a = 1 // note\n}"
    assert as_statement("x()") == "(() => {\nx()\n})();\n"


def test_blocked_service_workers_are_playwrights_block() -> None:
    kept = ContextOptions.of(merge({"blockServiceWorkers": True}, no_device))
    assert kept.block_service_workers and kept.playwright()["service_workers"] == "block"
    assert "blockServiceWorkers" not in merge({"blockServiceWorkers": False}, no_device)


PROXY = {"server": "http://proxy.example:3128", "bypass": "a.example, .b.example", "username": "ada",
         "password": "hunter2"}


def test_a_proxy_goes_to_playwright_whole_and_its_password_is_masked_in_the_answer_and_repr() -> None:
    merged = merge({"proxy": PROXY}, no_device)
    kept = ContextOptions.of(merged)
    assert kept.playwright()["proxy"] == PROXY
    assert masked(merged)["proxy"] == {**PROXY, "password": "***"} and merged["proxy"] == PROXY
    assert "hunter2" not in repr(kept)


def test_firefox_takes_a_manual_or_socks_proxy_and_its_credentials() -> None:
    plain = {"server": "http://proxy.example:3128", "bypass": "a.example, .b.example"}
    assert ContextOptions.of(merge({"proxy": plain}, no_device)).bidi_proxy() == {
        "proxyType": "manual", "httpProxy": "proxy.example:3128", "sslProxy": "proxy.example:3128",
        "noProxy": ["a.example", ".b.example"]}
    socks = ContextOptions.of(merge({"proxy": {"server": "socks5://h:1080"}}, no_device)).bidi_proxy()
    assert socks == {"proxyType": "manual", "socksProxy": "h:1080", "socksVersion": 5}
    refuse_on_firefox(merge({"proxy": PROXY}, no_device))  # answered per challenge (firefox/proxy_auth.py)
    assert ContextOptions.of(merge({"proxy": PROXY}, no_device)).bidi_proxy() == {
        "proxyType": "manual", "httpProxy": "proxy.example:3128", "sslProxy": "proxy.example:3128",
        "noProxy": ["a.example", ".b.example"]}


CHALLENGE = {"request": {"request": "7"}, "response": {"status": 407}, "context": "c1"}


@pytest.mark.parametrize(("params", "owned", "tried", "action"), [
    (CHALLENGE, True, False, "provideCredentials"),
    (CHALLENGE, True, True, "cancel"),  # refused again with them: not looped
    (CHALLENGE, False, False, "default"),  # another session's challenge
    ({**CHALLENGE, "response": {"status": 401}}, True, False, "default"),  # the site's own, not the proxy's
])
def test_a_proxy_challenge_is_answered_with_the_credentials_only_when_ours(
        params: JsonObject, owned: bool, tried: bool, action: str) -> None:
    reply = answer(params, owned=owned, tried=tried, username="ada", password="hunter2")
    assert (reply["request"], reply["action"]) == ("7", action)
    assert ("credentials" in reply) is (action == "provideCredentials")
    if action == "provideCredentials":
        assert reply["credentials"] == {"type": "password", "username": "ada", "password": "hunter2"}


@pytest.mark.parametrize(("proxy", "field"), [
    ({"server": "proxy.example:3128"}, "proxy.server"),
    ({"server": "ftp://h:1"}, "proxy.server"),
    ({"server": "http://h:1", "port": "2"}, "proxy.port"),
    ({"server": "http://h:1", "password": "p"}, "proxy.password"),
])
def test_a_proxy_of_the_wrong_shape_is_refused_naming_the_key(proxy: dict[str, str], field: str) -> None:
    with pytest.raises(ToolError) as caught:
        check({"session": "s", "engine": "chromium", "proxy": proxy})
    assert caught.value.details["field"] == field


@pytest.mark.parametrize(("url", "origin"), [
    ("https://Shop.Example:8443/a?b#c", "https://shop.example:8443"),
    ("http://user:pw@host/x", "http://host"),  # credentials are no part of an origin
    ("about:blank", None), ("data:text/html,hi", None), ("file:///etc/passwd", None), ("http://[::1", None),
])
def test_firefox_grants_permissions_to_web_origins_only(url: str, origin: str | None) -> None:
    assert origin_of(url) == origin
