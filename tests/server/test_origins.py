"""The operator's origin policy (``origins.py``): patterns, verdicts, and the refusal at dispatch.

Pure where it can be. The dispatch refuses ``navigate`` / ``new_tab`` to an origin the
policy keeps out before anything is touched (no browser starts for it); the browsers'
own blocking of a page's requests is in tests/chromium and tests/firefox.
"""

from __future__ import annotations

import pytest

from browx_actors import open_runtime
from browx_actors.config import RuntimeConfig
from browx_actors.origins import OriginPolicy, origin_of, parse_origin_patterns


def _policy(allowed: str = "", blocked: str = "") -> OriginPolicy:
    return OriginPolicy(parse_origin_patterns(allowed, source="allowed"),
                        parse_origin_patterns(blocked, source="blocked"))


@pytest.mark.parametrize(("url", "refused"), [
    ("https://app.example.com/a", None),
    ("https://deep.app.example.com/", None),
    ("http://127.0.0.1:8000/x", None),
    ("https://example.com/", "https://example.com"),  # *.example.com is its subdomains only
    ("https://evil.org/?next=https://app.example.com", "https://evil.org"),
    ("https://user:pw@evil.org/", "https://evil.org"),  # the credentials are no part of the origin
    ("https://ads.app.example.com/", "https://ads.app.example.com"),  # blocked wins over allowed
    ("about:blank", None), ("data:text/html,<p>x", None), ("myapp://deep/link", None),
])
def test_an_allow_list_with_a_block_inside_it(url: str, refused: str | None) -> None:
    policy = _policy("*.example.com; 127.0.0.1", "https://ads.app.example.com")
    verdict = policy.refusal(url)
    assert (None if verdict is None else verdict[0]) == refused
    if url.startswith("https://ads."):
        assert verdict is not None and "blocked by 'https://ads.app.example.com'" in verdict[1]


def test_ports_and_schemes_narrow_a_pattern() -> None:
    policy = _policy("https://shop.test:8443")
    assert policy.refusal("https://shop.test:8443/cart") is None
    assert policy.refusal("https://shop.test/cart") is not None  # 443 is another origin
    assert policy.refusal("http://shop.test:8443/cart") is not None
    assert _policy(blocked="*").refusal("wss://any.where/socket") is not None
    assert not OriginPolicy().active and OriginPolicy().refusal("https://any.where/") is None


def test_the_origin_of_a_page() -> None:
    assert origin_of("https://User:pw@Shop.Test:8443/cart?x#y") == "https://shop.test:8443"
    assert origin_of("HTTP://a.test/") == "http://a.test"
    for other in ("about:blank", "data:text/html,x", "ws://a.test/", "http://[::1/", ""):
        assert origin_of(other) is None, other


def test_an_admitted_origin_passes_the_allow_list() -> None:
    policy = _policy("*.example.com").admitting("https://other.org")
    assert policy.refusal("https://other.org/path") is None
    assert policy.refusal("https://other.org:8443/") is not None  # that exact origin only
    assert policy.refusal("https://third.org/") is not None


@pytest.mark.parametrize("bad", ["ht tp://x", "ftp://files.test", "https://", "*.", "host:99999", "a/b"])
def test_a_pattern_that_is_not_one_is_refused_naming_where_it_came_from(bad: str) -> None:
    with pytest.raises(ValueError, match="BROWX_BLOCKED_ORIGINS"):
        RuntimeConfig.from_env({"BROWX_BLOCKED_ORIGINS": bad})


async def test_navigate_and_new_tab_to_an_origin_out_of_reach_are_refused_before_anything_starts() -> None:
    config = RuntimeConfig.from_env({"BROWX_ALLOWED_ORIGINS": "127.0.0.1"})
    async with open_runtime(config=config) as runtime:
        for tool in ("navigate", "new_tab"):
            refused = await runtime.call_tool(tool, {"url": "evil.org/login"})
            assert refused["code"] == "origin-blocked" and refused["field"] == "url", refused
            assert refused["origin"] == "https://evil.org" and "127.0.0.1" in refused["rule"]
        status = await runtime.call_tool("runtime_status", {})
        pool = next(c for c in status["tree"]["children"] if c["id"] == "browser-pool")
        assert pool["launches"] == 0  # refused before any browser started
