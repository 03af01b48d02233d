"""The egress asks the result's JSON text first and walks only what the text cannot rule
out: held here to the three walks it replaces, value for value, on data built from what
makes each step act (credentials in URLs and query strings, lone surrogates, non-finite
numbers) mixed with what makes the text unreliable (escapes: quotes, backslashes,
newlines, control characters)."""

from __future__ import annotations

import math
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from browx_actors.jsonsafe import compact_json, finite_numbers, valid_unicode
from browx_actors.secret_book import mask_deep
from browx_actors.server.egress import leaving, redact_urls


def _walked(data: Any, masks: list[tuple[str, str]]) -> Any:
    """The egress as three walks, each over everything: what ``leaving`` must equal."""
    return finite_numbers(valid_unicode(redact_urls(mask_deep(data, masks))))


_PIECES = st.sampled_from([
    "https://", "http://user:pw@host/", "ftp://tok@h", "://", "@", "?", "&", ";", "=", "token", "api_key",
    "X-Amz-Signature", "ses_sion_id", "keyword", "page", "?q=1", "&token=abc", "?password=", ";jsessionid=9",
    '"', "\\", "\n", "\t", "\x01", "\x08", "\ud800", "\udfff", "\u00e9", "\u2028", " ", "<", ">", "'", "#",
    "a", "B", "7", "e5", "[ref=e9]", "<redacted>", ":<redacted>@", "?token=abc", "?a\nb=x", "x\"y=",
])
_TEXT = st.lists(_PIECES, max_size=10).map("".join)
_SCALARS = st.one_of(_TEXT, st.integers(-10**6, 10**6), st.booleans(), st.none(),
                     st.floats(allow_nan=True, allow_infinity=True))
_DATA = st.recursive(
    _SCALARS,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.dictionaries(st.one_of(_TEXT, st.just("imageBase64")), inner, max_size=4),
    ),
    max_leaves=24,
)


@settings(max_examples=600, deadline=None)
@given(_DATA)
def test_the_text_first_egress_equals_the_three_walks(data: Any) -> None:
    out = leaving(data, [])
    assert _same(out.data, _walked(data, []))
    if out.text is not None:
        assert out.text == compact_json(out.data)


@settings(max_examples=200, deadline=None)
@given(_DATA, st.sampled_from(["s3cret", "to\"k", "p@ss", "\u00e9t\u00e9"]))
def test_with_secrets_registered_too(data: Any, secret: str) -> None:
    masks = [("KEY", secret)]
    wrapped = {"seen": [data, f"x{secret}y"]}
    out = leaving(wrapped, masks)
    assert _same(out.data, _walked(wrapped, masks))
    assert secret not in compact_json(out.data)


def test_a_clean_result_leaves_with_its_text_and_as_the_same_object() -> None:
    data = {"ok": True, "nodes": [{"id": "n1", "label": "Buy \u00e9", "bounds": [0, 1.5, 2, 3]}]}
    out = leaving(data, [])
    assert out.data is data and out.text == compact_json(data)


def test_anything_the_text_cannot_vouch_for_is_walked_and_written_afresh() -> None:
    for data, expected in [
        ({"u": "see https://me:pw@example.com/x"}, {"u": "see https://me:<redacted>@example.com/x"}),
        ({"u": 'q "https://me:pw@h/"'}, {"u": 'q "https://me:<redacted>@h/"'}),  # an escape in the text
        # Escaped, the newline joins the name and the first match swallows the credential.
        ({"u": "?a\nb=x?token=secret"}, {"u": "?a\nb=x?token=<redacted>"}),
        ({"t": "a\ud800"}, {"t": "a\ufffd"}),
        ({"n": math.nan}, {"n": None}),
    ]:
        out = leaving(data, [])
        assert out.data == expected and out.text is None


def _same(a: Any, b: Any) -> bool:
    """Equal as JSON data (NaN never survives the egress, so == suffices but for lists vs tuples)."""
    return compact_json(a) == compact_json(b)
