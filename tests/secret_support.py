"""The audit's two secrets, every spelling of each, and a search for any of them.

Shared by tests/server/test_secret_spellings.py (without a browser) and
tests/server/test_e2e_secret_spellings.py (which reads the Chromium ones off Chromium).
The spellings here are written out or made with the standard library, not with the
server's own code, so they can judge it.
"""

from __future__ import annotations

import base64
import html
import json
import re

#: A URL's and a form's special characters, non-ASCII, a space, and a ``%41`` that is
#: not an escape but looks like one.
FIRST, SECOND = "Zq9-sEcReT+/=ü&x y%41", "ab%41+cd"

#: What Chromium writes for each (tests/server/test_e2e_secret_spellings.py reads them off Chromium).
CHROMIUM = {
    FIRST: {
        "encodeURI": "Zq9-sEcReT+/=%C3%BC&x%20y%2541",
        "encodeURIComponent": "Zq9-sEcReT%2B%2F%3D%C3%BC%26x%20y%2541",
        "escape()": "Zq9-sEcReT+/%3D%FC%26x%20y%2541",
        "URL path": "Zq9-sEcReT+/=%C3%BC&x%20y%41",
        "URL query": "Zq9-sEcReT+/=%C3%BC&x%20y%41",
        "URL fragment": "Zq9-sEcReT+/=%C3%BC&x%20y%41",
        "URL user info": "Zq9-sEcReT+%2F%3D%C3%BC&x%20y%41",
        "form": "Zq9-sEcReT%2B%2F%3D%C3%BC%26x+y%2541",
    },
    SECOND: {
        "encodeURI": "ab%2541+cd",
        "encodeURIComponent": "ab%2541%2Bcd",
        "escape()": "ab%2541+cd",
        "URL path": "ab%41+cd",
        "URL query": "ab%41+cd",
        "URL fragment": "ab%41+cd",
        "URL user info": "ab%41+cd",
        "form": "ab%2541%2Bcd",
    },
}


def expected_spellings(value: str) -> dict[str, str]:
    """``FIRST`` or ``SECOND`` as each encoder writes it, by name: Chromium's own,
    JSON's, Python's, HTML's, base64, the percent-encoded ones in lower-case hex, and
    each of those as a JSON string holds it."""
    raw = value.encode()
    forms = {
        "raw": value,
        "JSON": json.dumps(value, ensure_ascii=False)[1:-1],
        "JSON, ASCII only": json.dumps(value)[1:-1],
        "Python repr": repr(value)[1:-1],
        **CHROMIUM[value],
        "HTML": html.escape(value),
        "base64": base64.b64encode(raw).decode(),
        "base64url": base64.urlsafe_b64encode(raw).decode(),
    }
    forms["base64, unpadded"] = forms["base64"].rstrip("=")
    forms["base64url, unpadded"] = forms["base64url"].rstrip("=")
    for name in ("encodeURIComponent", "encodeURI", "escape()", "URL path", "form"):
        forms[f"{name}, lower-case hex"] = re.sub("%[0-9A-F]{2}", lambda m: m.group().lower(), forms[name])
    for name, form in list(forms.items()):
        forms[f"{name}, in JSON"] = json.dumps(form, ensure_ascii=False)[1:-1]
    return forms


def leaks(text: str, values: tuple[str, ...] = (FIRST, SECOND)) -> list[str]:
    """Every spelling of ``values`` found in ``text``, named."""
    return [f"{name} of {value!r}: {form!r}" for value in values
            for name, form in expected_spellings(value).items() if form in text]
