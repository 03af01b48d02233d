"""The egress step that redacts credentials carried in URLs (issue 18, item 10): pure,
tested without a server; the end-to-end test is in tests/chromium/test_e2e_real_pages.py."""

from __future__ import annotations

import logging
import string

import pytest
from hypothesis import given
from hypothesis import strategies as st

from browx_actors.credentials import RedactingFormatter
from browx_actors.server.egress import REDACTED, credential_name, outgoing, redact_text, redact_urls


@pytest.mark.parametrize(("text", "expected"), [
    ("https://ada:hunter22@example.com/repo", "https://ada:<redacted>@example.com/repo"),
    ("https://ghp_TOKEN@github.com/x.git", "https://<redacted>@github.com/x.git"),
    ("http://h/p?token=abc&page=2#top", "http://h/p?token=<redacted>&page=2#top"),
    ("/api?api_key=K1&q=shoes", "/api?api_key=<redacted>&q=shoes"),
    ("x?accessToken=A&X-Amz-Signature=S&sessionid=9&sig=z", "x?accessToken=<redacted>&X-Amz-Signature=<redacted>"
     "&sessionid=<redacted>&sig=<redacted>"),
    ("see http://h/?password=p4ss;then more", "see http://h/?password=<redacted>;then more"),
    ("?keyword=shoes&monkey=1&author=me", "?keyword=shoes&monkey=1&author=me"),
    ("mailto:ada@example.com and a@b", "mailto:ada@example.com and a@b"),
    ("?token=", "?token="),
    ("https://u:<redacted>@h/?token=<redacted>", "https://u:<redacted>@h/?token=<redacted>"),
])
def test_examples(text: str, expected: str) -> None:
    assert redact_text(text) == expected


@pytest.mark.parametrize("name", ["password", "passwd", "token", "apikey", "apiKey", "api-key", "secret",
                                  "client_secret", "auth", "oauth", "key", "publicKey", "session", "JSESSIONID",
                                  "sig", "Signature", "X-Goog-Credential", "csrf_token"])
def test_credential_names(name: str) -> None:
    assert credential_name(name)


@pytest.mark.parametrize("name", ["keyword", "monkey", "author", "page", "q", "view", "passenger", "signup"])
def test_ordinary_names(name: str) -> None:
    assert not credential_name(name)


def test_every_string_of_a_result_and_nothing_binary() -> None:
    envelope = {"ok": True, "navigation": {"to": "http://h/?token=T"}, "console": [{"text": "GET http://a:b@h/"}],
                "snapshot": 'link "x" url=/x?secret=S', "contentBase64": "aGk/dG9rZW49VA==?token=T",
                "keys": {"http://h/?auth=A": 1}, "count": 3}
    assert redact_urls(envelope) == {
        "ok": True, "navigation": {"to": "http://h/?token=<redacted>"},
        "console": [{"text": "GET http://a:<redacted>@h/"}], "snapshot": 'link "x" url=/x?secret=<redacted>',
        "contentBase64": "aGk/dG9rZW49VA==?token=T", "keys": {"http://h/?auth=<redacted>": 1}, "count": 3,
    }


def test_outgoing_masks_secrets_then_redacts() -> None:
    # A registered secret becomes its alias first, which says more than <redacted>.
    out = outgoing({"url": "http://h/?token=hunter22&key=k9k9&q=hunter22"}, {"PW": "hunter22"})
    assert out == {"url": "http://h/?token=<PW>&key=<redacted>&q=<PW>"}


_VALUE = st.text(alphabet=string.ascii_letters + string.digits + "-_.~%", min_size=1, max_size=30)


@given(name=st.sampled_from(["token", "apikey", "password", "session", "sig", "access_token"]), value=_VALUE,
       prefix=st.sampled_from(["https://h/p?", "/p?a=1&", "?"]), suffix=st.sampled_from(["", "&z=1", "#f"]))
def test_a_credential_value_never_survives(name: str, value: str, prefix: str, suffix: str) -> None:
    text = f"{prefix}{name}={value}{suffix}"
    redacted = redact_text(text)
    assert redacted == f"{prefix}{name}={REDACTED}{suffix}"
    assert redact_text(redacted) == redacted  # idempotent


@given(st.text(max_size=200))
def test_redaction_is_idempotent_on_any_text(text: str) -> None:
    once = redact_text(text)
    assert redact_text(once) == once


def test_the_log_redacts_the_urls_libraries_connect_to() -> None:
    # trio-websocket logs "Connecting to <url>" at debug level, a fleet's token and all.
    record = logging.LogRecord("trio-websocket", logging.DEBUG, __file__, 1, "Connecting to %s", (
        "ws://127.0.0.1:9/?token=fleet-token-0123456789",), None)
    line = RedactingFormatter(logging.Formatter("%(name)s %(message)s")).format(record)
    assert line == f"trio-websocket Connecting to ws://127.0.0.1:9/?token={REDACTED}"
