"""The pure rules behind the page tools: credential redaction, route globs and Fetch
commands, frame refs and stitching, console text, download names, PDF pages, network
presets, and the nullable parameters emulate declares."""

from __future__ import annotations

import base64
import json
import zlib

import pytest
from hypothesis import given
from hypothesis import strategies as st

from browx_actors.errors import ToolError
from browx_actors.sessions.chromium.console.text import format_args
from browx_actors.sessions.chromium.frames.refs import parse_ref, qualify_refs, stitch
from browx_actors.sessions.chromium.network.redact import REDACTED, redact_headers, redact_url
from browx_actors.sessions.chromium.network.route_rules import continue_params, fetch_pattern, fulfill_params
from browx_actors.sessions.chromium.page.downloads import free_name, safe_filename
from browx_actors.sessions.chromium.page.emulation import media_features, network_conditions
from browx_actors.sessions.chromium.page.pdf import count_pages
from browx_actors.tools import EMULATE as emulate
from browx_actors.tools import Param, json_schema, validate_args
from browx_actors.tools.network import glob_regex


def test_urls_lose_user_info_and_credential_parameters_and_nothing_else() -> None:
    assert redact_url("https://ada:pw@h.test/a?token=x&q=1#frag") == \
        f"https://ada:{REDACTED}@h.test/a?token={REDACTED}&q=1#frag"
    assert redact_url("https://h.test/?Access-Token=1&API_KEY=2&page=3") == \
        f"https://h.test/?Access-Token={REDACTED}&API_KEY={REDACTED}&page=3"
    assert redact_url("https://h.test/x?q=a%20b&flag") == "https://h.test/x?q=a%20b&flag"
    assert redact_url("data:text/plain,hi") == "data:text/plain,hi"


def test_headers_lose_credentials_and_stay_bounded() -> None:
    headers = {"Authorization": "Bearer x", "cookie": "a=1", "Set-Cookie": "a=1\nb=2", "Accept": "*/*",
               "X-Long": "v" * 1000}
    out = redact_headers(headers)
    assert out["Authorization"] == REDACTED and out["cookie"] == REDACTED
    assert out["Set-Cookie"] == f"{REDACTED} (2 values)" and out["Accept"] == "*/*"
    assert len(out["X-Long"]) == 300 and out["X-Long"].endswith("\u2026")
    many = redact_headers({f"h{i}": "v" for i in range(50)})
    assert len(many) == 41 and many["(+10 more)"] == ""


@given(st.text(max_size=40))
def test_redacted_urls_never_hold_a_credential_value(secret: str) -> None:
    secret = secret.replace("&", "").replace("#", "") or "s3cr3t"
    url = f"https://h.test/p?password={secret}&q=1"
    assert f"password={REDACTED}&q=1" in redact_url(url)


@pytest.mark.parametrize(("pattern", "url", "matches"), [
    ("**/api/*", "http://h/api/items", True),
    ("**/api/*", "http://h/api/items/7", False),
    ("**/api/**", "http://h/api/items/7", True),
    ("**/*.{png,jpg}", "http://h/a/b.jpg", True),
    ("**/*.{png,jpg}", "http://h/a/b.gif", False),
    ("http://h/q?x=1", "http://h/q?x=1", True),
    ("http://h/q?x=1", "http://h/qax=1", False),  # ? is itself
])
def test_route_globs_match_whole_urls(pattern: str, url: str, matches: bool) -> None:
    assert bool(glob_regex(pattern).match(url)) is matches


def test_fetch_patterns_are_looser_than_their_globs() -> None:
    assert fetch_pattern("**/api/*") == "*/api/*"
    assert fetch_pattern("**/*.{png,jpg}") == "*/*.*"
    assert fetch_pattern("http://h/q?x=1") == "http://h/q\\?x=1"
    with pytest.raises(ValueError):
        glob_regex("**/{a,b")


def test_fulfill_and_continue_commands() -> None:
    params = fulfill_params("R1", status=None, headers={"X-A": "1"}, body='{"a": 1}', content_type=None)
    assert params["responseCode"] == 200 and base64.b64decode(params["body"]) == b'{"a": 1}'
    assert {"name": "Content-Type", "value": "application/json"} in params["responseHeaders"]
    text = fulfill_params("R1", status=404, headers={"content-type": "text/html"}, body="<p>", content_type=None)
    assert text["responseHeaders"] == [{"name": "content-type", "value": "text/html"}]
    assert continue_params("R2", {"Accept": "*/*"}, None) == {"requestId": "R2"}
    merged = continue_params("R2", {"Accept": "*/*", "X-Drop": "1"}, {"accept": "text/html", "X-Drop": ""})
    assert merged["headers"] == [{"name": "accept", "value": "text/html"}]


def test_frame_refs_keep_top_document_refs_and_stitch_frames_under_their_iframes() -> None:
    assert parse_ref("e5") is not None and parse_ref("e5").frame is None  # type: ignore[union-attr]
    assert parse_ref("[ref=f2e5]").frame == "f2" and parse_ref("f2e5").local == "e5"  # type: ignore[union-attr]
    assert parse_ref("f2") is None and parse_ref("x5") is None and parse_ref(5) is None
    child = qualify_refs('heading "In" [ref=e1]\n  button "Go" [ref=e2]', "f3")
    assert child == 'heading "In" [ref=f3e1]\n  button "Go" [ref=f3e2]'
    top = 'heading "Top" [ref=e1]\n  iframe "Pay" [ref=e2]\nbutton "Done" [ref=e3]'
    stitched, placed = stitch(top, "e2", child)
    assert placed and stitched == ('heading "Top" [ref=e1]\n  iframe "Pay" [ref=e2]\n    heading "In" [ref=f3e1]\n'
                                   '      button "Go" [ref=f3e2]\nbutton "Done" [ref=e3]')
    assert stitch(top, "e9", child) == (top, False)


def test_console_text_applies_format_specifiers_and_previews() -> None:
    args = [{"type": "string", "value": "%s has %d items (%c%o)"}, {"type": "string", "value": "cart"},
            {"type": "number", "value": 3.7, "description": "3.7"}, {"type": "string", "value": "color: red"},
            {"type": "object", "className": "Object", "description": "Object",
             "preview": {"properties": [{"name": "a", "type": "number", "value": "1"},
                                        {"name": "b", "type": "string", "value": "x"}]}},
            {"type": "undefined"}]
    assert format_args(args) == 'cart has 3 items ({a: 1, b: "x"}) undefined'
    array = {"type": "object", "subtype": "array", "description": "Array(2)",
             "preview": {"subtype": "array", "properties": [{"name": "0", "type": "number", "value": "1"},
                                                            {"name": "1", "type": "number", "value": "2"}]}}
    assert format_args([array, {"type": "object", "subtype": "null"}]) == "Array(2) [1, 2] null"


@pytest.mark.parametrize(("suggested", "safe"), [
    ("report.csv", "report.csv"), ("../../etc/passwd", "passwd"), ("C:\\Users\\x\\evil.exe", "evil.exe"),
    (".bashrc", "bashrc"), ("a<b>:c|d?.txt", "a_b__c_d_.txt"), ("", "download"), ("...", "download"),
    ("x" * 200 + ".tar.gz", "x" * 117 + ".gz"),
])
def test_download_names_stay_one_file_in_one_folder(suggested: str, safe: str) -> None:
    assert safe_filename(suggested) == safe


def test_download_names_never_overwrite() -> None:
    taken = {"r.csv", "r (2).csv", "notes"}
    assert free_name("r.csv", taken.__contains__) == "r (3).csv"
    assert free_name("notes", taken.__contains__) == "notes (2)"
    assert free_name("new.csv", taken.__contains__) == "new.csv"


def test_pdf_pages_are_counted_without_counting_the_page_tree() -> None:
    pdf = b"%PDF-1.4\n1 0 obj <</Type /Pages /Kids [2 0 R 3 0 R]>>\n2 0 obj <</Type /Page>>\n3 0 obj <</Type/Page>>"
    assert count_pages(pdf) == 2


def test_emulation_builds_media_features_and_network_conditions() -> None:
    assert media_features({}) == []
    assert media_features({"colorScheme": "dark", "reducedMotion": "reduce"}) == [
        {"name": "prefers-color-scheme", "value": "dark"}, {"name": "prefers-reduced-motion", "value": "reduce"}]
    assert network_conditions({}) == {"offline": False, "latency": 0, "downloadThroughput": -1,
                                      "uploadThroughput": -1}
    assert network_conditions({"network": "offline"})["offline"] is True
    assert network_conditions({"network": "slow-3g"})["latency"] == 2000
    custom = network_conditions({"network": "custom", "networkConditions": {"latencyMs": 50, "downloadKbps": 800}})
    assert custom == {"offline": False, "latency": 50, "downloadThroughput": 100_000.0, "uploadThroughput": -1}


def test_a_nullable_parameter_tells_null_from_absent() -> None:
    params = (Param("colorScheme", "string", "", enum=("dark", "light"), nullable=True),
              Param("limit", "integer", "", default=5))
    assert validate_args(params, {}) == {"limit": 5}
    assert validate_args(params, {"colorScheme": None}) == {"colorScheme": None, "limit": 5}
    assert validate_args(params, {"colorScheme": "dark"}) == {"colorScheme": "dark", "limit": 5}
    with pytest.raises(ToolError) as info:
        validate_args(params, {"colorScheme": "blue"})
    assert info.value.details == {"field": "colorScheme"}
    schema = json_schema(params)["properties"]["colorScheme"]
    assert schema["type"] == ["string", "null"]
    with pytest.raises(ValueError):
        Param("x", "string", "", nullable=True, default="a")


def test_emulate_declares_every_field_nullable_and_checks_time_zones() -> None:
    schema = emulate.input_schema()["properties"]
    # Every field of its own; session and after are every session tool's.
    own = [name for name in schema if name not in ("session", "after")]
    assert len(own) == 10 and all(schema[name]["type"][1] == "null" for name in own)
    args = validate_args(emulate.params, {"timezone": "Mars/Olympus"})
    with pytest.raises(ToolError) as info:
        for rule in emulate.rules:
            rule.check(args)
    assert info.value.details == {"field": "timezone"}
    json.dumps(emulate.input_schema())


def test_pages_packed_in_compressed_object_streams_are_counted() -> None:
    # cairo (Firefox's printing) writes its page objects inside deflated object streams.
    packed = zlib.compress(b"<< /Type /Pages /Count 2 >> << /Type /Page % 1 >> << /Type /Page % 2 >>")
    pdf = (b"%PDF-1.7\n1 0 obj\n<< /Type /ObjStm /N 3 /First 9 /Filter /FlateDecode >>\nstream\n" + packed
           + b"\nendstream\nendobj\n2 0 obj\n<< /Type /Page >>\nendobj\n")
    assert count_pages(pdf) == 3
    broken = pdf.replace(packed, b"not deflated")
    assert count_pages(broken) == 1


def test_unroute_keeps_what_it_does_not_name_and_refuses_an_unknown_id() -> None:
    import attrs
    import pytest

    from browx_actors.errors import ToolError
    from browx_actors.sessions.chromium.network.route_rules import kept_routes, take_paused

    @attrs.frozen
    class R:
        id: int
        pattern: str

    routes = [R(1, "**/a"), R(2, "**/b"), R(3, "**/a")]
    assert kept_routes(routes, 2, None) == [R(1, "**/a"), R(3, "**/a")]
    assert kept_routes(routes, None, "**/a") == [R(2, "**/b")]
    assert kept_routes(routes, None, None) == []
    with pytest.raises(ToolError) as unknown:
        kept_routes(routes, 9, None)
    assert unknown.value.code == "target-not-found" and unknown.value.details["field"] == "id"
    queue = {4: "held", 5: "other"}
    assert take_paused(queue, 4) == "held" and list(queue) == [5]
    with pytest.raises(ToolError) as gone:
        take_paused(queue, 4)
    assert "q5" in gone.value.message
