"""Every spelling of a secret a result, a log line or a file may carry, pure.

A page rarely shows a registered value only as typed. A browser writes it into a URL
(``encodeURI``, ``encodeURIComponent``, ``escape()``, a URL's path, query, fragment or
user info, each with its own set of characters it percent-encodes), a form submits it
as ``application/x-www-form-urlencoded`` (``+`` for a space), JSON and JavaScript
escape it (``\\"``, ``\\u00fc``), Python's ``repr`` in an error message escapes it, and
HTML escapes it (``&amp;``). A server may answer any of these in lower-case hex, or
encode one twice (a URL carried in another's query).

:func:`spellings` lists the forms browsers and the common encoders write, by name: it
is what the tests hold masking to, and what a clipped fragment (a secret cut short at
an ellipsis) is looked for in. :func:`pattern` is what masking searches with: one
regular expression per value that matches each of those spellings and any mix of
them, because it is built a character at a time: each character may stand as itself
or as any of its escapes (percent-encoded UTF-8 or Latin-1 or ``%uXXXX``, once or
twice, hex in either case; ``+`` for a space; a backslash escape, JSON's, JavaScript's
or Python's, nested or not; an HTML entity). So an encoder this module never heard of
that escapes a different set of characters is still caught, and a string is masked
only where it decodes to the value. Letters, digits and ``-._`` are never escaped by
any of them and stand for themselves, which keeps the expression short, lets the
search skip ahead to them, and gives :func:`anchors`: text lacking one of those runs
holds no spelling, which a substring test tells in C before any expression runs.
Base64 is not a per-character spelling; its forms (:func:`base64_forms`) are matched
as they are.
"""

from __future__ import annotations

import base64
import html
import json
import re
import string
import urllib.parse

__all__ = ["MAX_ESCAPABLE", "PLAIN", "anchors", "base64_forms", "pattern", "spellings"]

#: What no encoder escapes: these stand for themselves in every spelling.
PLAIN = frozenset(string.ascii_letters + string.digits + "-._")

#: ``encodeURIComponent`` (and the WHATWG component set) keeps these, beyond letters and digits.
_COMPONENT_SAFE = "!'()*-._~"
#: ``encodeURI`` keeps these as well.
_URI_SAFE = _COMPONENT_SAFE + ";,/?:@&=+$#"
#: ``escape()`` keeps these, beyond letters and digits.
_ESCAPE_SAFE = "@*_+-./"


def _kept_except(encoded: str) -> str:
    """Printable ASCII punctuation a URL part keeps: all but ``encoded`` (and ``%``
    stays as typed: a browser does not re-encode it in a URL's parts)."""
    return "".join(c for c in string.punctuation if c not in encoded)


#: What Chromium keeps as typed in each part of a URL (checked against Chromium in
#: tests/server/test_e2e_secret_spellings.py): controls, space and non-ASCII are always
#: percent-encoded as UTF-8; these sets say which punctuation is too. (Chromium encodes
#: ``'`` in the query of any scheme, and turns ``\\`` into ``/`` in a path.)
_PATH_KEEPS = _kept_except('"#<>?^`{|}\\')
_QUERY_KEEPS = _kept_except("\"#'<>")
_FRAGMENT_KEEPS = _kept_except('"<>`')
_USERINFO_KEEPS = _kept_except("\"#'/:;<=>?@[\\]^`{|}")
#: A URL parser drops these wherever they are (a password set on a URL keeps them).
_URL_DROPS = str.maketrans("", "", "\t\n\r")


def _quote(value: str, safe: str) -> str:
    return urllib.parse.quote(value.encode("utf-8", "surrogatepass"), safe=safe)


#: A percent escape: ``%XX``, or ``escape()``'s ``%uXXXX``.
_ESCAPES = re.compile(r"%u[0-9A-F]{4}|%[0-9A-F]{2}")


def _form_encoded(value: str) -> str:
    """``application/x-www-form-urlencoded``, as ``URLSearchParams`` and a GET form
    write it: letters, digits and ``*-._`` stay, a space is ``+``, the rest is
    percent-encoded."""
    return _quote(value, "* ").replace(" ", "+").replace("~", "%7E")  # quote() always keeps ~


def _utf16_units(char: str) -> list[int]:
    data = char.encode("utf-16-be", "surrogatepass")
    return [int.from_bytes(data[i:i + 2], "big") for i in range(0, len(data), 2)]


def _js_escape(value: str) -> str:
    """JavaScript's ``escape()``: Latin-1 as ``%XX``, the rest as ``%uXXXX`` per UTF-16 unit."""
    out = []
    for char in value:
        if char in _ESCAPE_SAFE or (char.isascii() and char.isalnum()):
            out.append(char)
        elif ord(char) < 256:
            out.append(f"%{ord(char):02X}")
        else:
            out.extend(f"%u{unit:04X}" for unit in _utf16_units(char))
    return "".join(out)


def spellings(value: str) -> dict[str, str]:
    """The value as each encoder writes it, by the encoder's name (the same text may
    appear under several names)."""
    raw = value.encode("utf-8", "surrogatepass")
    in_url = value.translate(_URL_DROPS)
    forms = {
        "raw": value,
        "JSON": json.dumps(value, ensure_ascii=False)[1:-1],
        "JSON, ASCII only": json.dumps(value, ensure_ascii=True)[1:-1],
        "Python repr": repr(value)[1:-1],
        "encodeURIComponent": _quote(value, _COMPONENT_SAFE),
        "encodeURI": _quote(value, _URI_SAFE),
        "escape()": _js_escape(value),
        "URL path": _quote(in_url.replace("\\", "/"), _PATH_KEEPS),  # a backslash is a slash there
        "URL query": _quote(in_url, _QUERY_KEEPS),
        "URL fragment": _quote(in_url, _FRAGMENT_KEEPS),
        "URL user info": _quote(value, _USERINFO_KEEPS),  # set as a password, not parsed
        "form": _form_encoded(value),
        "HTML": html.escape(value),
        "base64": base64.b64encode(raw).decode("ascii"),
        "base64url": base64.urlsafe_b64encode(raw).decode("ascii"),
    }
    forms["base64, unpadded"] = forms["base64"].rstrip("=")
    forms["base64url, unpadded"] = forms["base64url"].rstrip("=")
    # Every percent-encoded form in lower-case hex too, as some servers write it.
    for name in ("encodeURIComponent", "encodeURI", "escape()", "URL path", "form"):
        forms[f"{name}, lower-case hex"] = _ESCAPES.sub(lambda m: m.group().lower(), forms[name])
    # And each form as a JSON string holds it (a response body, a log line in JSON).
    for name, form in list(forms.items()):
        forms[f"{name}, in JSON"] = json.dumps(form, ensure_ascii=False)[1:-1]
    return forms


def _hex(number: int, width: int) -> str:
    """``number`` in hex, each letter digit matching either case."""
    return "".join(f"[{d}{d.lower()}]" if d.isalpha() else d for d in f"{number:0{width}X}")


#: A backslash escape, as JSON, JavaScript or Python write it, or the same nested in
#: another string (each level doubles the backslashes). Possessive: the run is the
#: escape's whole, so a page's long run of backslashes costs no backtracking.
_BACKSLASHES = r"\\++"
#: A backslash itself, escaped up to three levels deep (a bounded run, for the same reason).
_BACKSLASH = r"\\{1,8}"
_SHORT_ESCAPES = {"\b": "b", "\f": "f", "\n": "n", "\r": "r", "\t": "t", "\v": "v", "\0": "0"}
_HTML_NAMES = {"&": "amp", "<": "lt", ">": "gt", '"': "quot", "'": "(?:apos|#39)", "\u00a0": "nbsp"}
#: A percent sign, or one percent-encoded once or more (``%25``, ``%2525``).
_PERCENT = "%(?:25)*"


def _char(char: str) -> str:
    """Every way one character of the value may be written."""
    code = ord(char)
    units = _utf16_units(char)
    ways = [re.escape(char)]
    ways.append("".join(_PERCENT + _hex(byte, 2) for byte in char.encode("utf-8", "surrogatepass")))
    if 128 <= code < 256:  # escape(), and Latin-1 percent-encoding
        ways.append(_PERCENT + _hex(code, 2))
    if code >= 256:
        ways.append("".join(_PERCENT + "[uU]" + _hex(unit, 4) for unit in units))
    if char == " ":
        ways.append(r"\+")
    if char == "\\":
        ways[0] = _BACKSLASH
        ways.append("/")  # a URL's path turns it into a slash
    elif not char.isalnum():
        ways.append(_BACKSLASHES + re.escape(char))  # \" \' \/ and the like
    if char in _SHORT_ESCAPES:
        ways.append(_BACKSLASHES + _SHORT_ESCAPES[char])
    ways.append("".join(_BACKSLASHES + "u" + _hex(unit, 4) for unit in units))
    ways.append(_BACKSLASHES + "u\\{0*" + _hex(code, 1) + "\\}")
    if code < 256:
        ways.append(_BACKSLASHES + "x" + _hex(code, 2))
    elif code > 0xFFFF:
        ways.append(_BACKSLASHES + "U" + _hex(code, 8))
    ways.append(f"&#(?:0*{code}|[xX]0*{_hex(code, 1)});")
    if char in _HTML_NAMES:
        ways.append(f"&{_HTML_NAMES[char]};")
    # The literal character last: where a spelling could end early (``&`` of ``&amp;``),
    # the longer reading is tried first, so the whole escape is masked.
    return "(?:" + "|".join([*ways[1:], ways[0]]) + ")"


#: Most characters a value may have that are not :data:`PLAIN` and still be matched a
#: character at a time. Each costs a group of a dozen ways to write it, and a value of
#: thousands of punctuation characters would take seconds to compile; beyond this, the
#: value's :func:`spellings` are matched as they are (hex in either case).
MAX_ESCAPABLE = 256


def _literal(form: str) -> str:
    return re.sub(r"%(?:u([0-9A-F]{4})|([0-9A-F]{2}))",
                  lambda m: "%u" + _hex(int(m.group(1), 16), 4) if m.group(1) else "%" + _hex(int(m.group(2), 16), 2),
                  re.escape(form))


def pattern(value: str) -> str:
    """A regular expression (source) matching ``value`` in every spelling but base64
    (:func:`base64_forms`), and in any mix of them (for a value of more than
    :data:`MAX_ESCAPABLE` characters to escape: in each of its spellings)."""
    if sum(char not in PLAIN for char in value) > MAX_ESCAPABLE:
        encoded = set(base64_forms(value))
        forms = sorted({form for form in spellings(value).values() if form and form not in encoded},
                       key=len, reverse=True)
        return "|".join(_literal(form) for form in forms)
    in_url = value.translate(_URL_DROPS)
    in_urls = [_chars(in_url)] if in_url != value and len(in_url) >= 3 else []
    return "|".join([_chars(value), *in_urls])


def base64_forms(value: str) -> tuple[str, ...]:
    """The value's bytes in base64, standard and URL-safe, padded or not, longest first."""
    raw = value.encode("utf-8", "surrogatepass")
    encoded = {base64.b64encode(raw).decode("ascii"), base64.urlsafe_b64encode(raw).decode("ascii")}
    return tuple(sorted(encoded | {form.rstrip("=") for form in encoded}, key=lambda form: (-len(form), form)))


def anchors(value: str) -> tuple[str, ...]:
    """The runs of :data:`PLAIN` characters in ``value``: every spelling but base64
    holds each of them as it is, so a text lacking one holds no spelling."""
    return tuple(dict.fromkeys(run for run in re.split(r"[^A-Za-z0-9._-]+", value) if run))


def _chars(value: str) -> str:
    """``value`` a character at a time, each in any of its ways."""
    parts = []
    run = ""
    for char in value:
        if char in PLAIN:
            run += char
            continue
        if run:
            parts.append(re.escape(run))
            run = ""
        parts.append(_char(char))
    if run:
        parts.append(re.escape(run))
    return "".join(parts)
