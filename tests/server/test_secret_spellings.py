"""Registered secrets in every spelling, without a browser: what masking covers, where a
secret is substituted, and the server's log lines.

An audit with two secrets that hold what URLs and scripts encode found the value in
results as ``encodeURI``, ``escape()``, a URL's parts and a form wrote it, a selector's
raw value in the server's log, and the value as a file's name. The spellings here are
what Chromium writes (tests/server/test_e2e_secret_spellings.py holds them to Chromium
itself); masking has to leave none of them, in any mix or case, and nothing else.

Only what the secret book had before the audit is imported at the top, so the checks
of what it answers run (and fail) on the code before the fix; its new parts are
imported where they are used.
"""

from __future__ import annotations

import base64
import gc
import io
import json
import logging
import re
import string
import urllib.parse
from typing import Any

import attrs
import pytest
from hypothesis import given
from hypothesis import strategies as st

from browx_actors import tools
from browx_actors.config import DEFAULT_CAPABILITIES
from browx_actors.errors import ToolError
from browx_actors.secret_book import SecretBook, check_secret, encodings, mask_deep
from browx_actors.server.catalog import Catalog
from browx_actors.server.dispatch import Dispatcher
from browx_actors.tools import Arguments, Gates, Reply, Table, Tool, runs
from secret_support import CHROMIUM, FIRST, SECOND, expected_spellings, leaks

SECRETS = [("PW", FIRST), ("PX", SECOND)]


# -- the spellings --------------------------------------------------------------------


@pytest.mark.parametrize("value", [FIRST, SECOND])
def test_the_spellings_are_what_chromium_and_the_encoders_write(value: str) -> None:
    from browx_actors.secret_book.spellings import spellings

    written = spellings(value)
    assert written == {**written, **expected_spellings(value)}
    assert set(encodings(value)) == set(written.values()) and encodings(value)[0] == value


@pytest.mark.parametrize("value", [FIRST, SECOND])
def test_every_spelling_is_masked_where_it_stands(value: str) -> None:
    alias = "<PW>" if value == FIRST else "<PX>"
    missed = []
    for name, form in expected_spellings(value).items():
        if mask_deep(f"before {form} after", SECRETS) != f"before {alias} after":
            missed.append(f"{name}: {form}")
        if mask_deep({form: [form, {"k": f"({form})"}]}, SECRETS) != {alias: [alias, {"k": f"({alias})"}]}:
            missed.append(f"{name} in a structure: {form}")
    assert missed == []


def test_mixed_nested_and_other_encoders_spellings_are_masked() -> None:
    component = urllib.parse.quote(FIRST, safe="")
    for form in (
        urllib.parse.quote(component, safe=""),  # a URL in another URL's query: encoded twice
        re.sub("%..", lambda m: m.group().lower(), urllib.parse.quote(FIRST, safe="")),  # lower-case hex
        urllib.parse.quote(FIRST),  # Python's own defaults
        "Zq9-sEcReT+/=%C3%BC&x y%41",  # one character encoded, the rest not
        "Zq9-sEcReT+/=\\u00FC&x y%41",  # upper-case hex in a JSON escape
        "Zq9-sEcReT+\\/=\\u00fc&x y%41",  # JSON with an escaped slash
        "Zq9-sEcReT+/=&#252;&amp;x y%41",  # HTML
        json.dumps(json.dumps(FIRST)[1:-1])[1:-1],  # JSON in JSON
        "Zq9-sEcReT+/=\\xfc&x\\x20y%41",  # Python and JavaScript \x escapes
    ):
        assert mask_deep(f"[{form}]", SECRETS) == "[<PW>]", form


def test_near_misses_and_ordinary_text_are_left_alone() -> None:
    for text in ("Zq9-sEcReT+/=ü&x y%42", "Zq9-sEcReT", "ab%41+c", "abA+cd", "ab%2541+cde"[:-2] + "x",
                 "a perfectly ordinary line", "%41%42%43", "\\u00fc"):
        assert mask_deep(text, SECRETS) == text
    data = {"a": ["plain", {"b": "text"}], "n": 3}
    assert mask_deep(data, SECRETS) is data  # nothing to mask: the very same object


def test_one_secret_inside_another_is_masked_whole() -> None:
    inner = "ab%41+cd"
    outer = f"xx-{inner}-yy"
    assert mask_deep(f"{outer} and {inner}", [("INNER", inner), ("OUTER", outer)]) == "<OUTER> and <INNER>"
    assert mask_deep(urllib.parse.quote(outer, safe=""), [("INNER", inner), ("OUTER", outer)]) == "<OUTER>"


def test_a_clipped_spelling_is_masked_at_the_ellipsis() -> None:
    encoded = CHROMIUM[FIRST]["encodeURIComponent"]
    assert mask_deep(f"url={encoded[:12]}\u2026", SECRETS) == "url=<PW>\u2026"
    assert mask_deep(f"\u2026{encoded[-9:]} sent", SECRETS) == "\u2026<PW> sent"
    assert mask_deep("plain text\u2026 elsewhere", SECRETS) == "plain text\u2026 elsewhere"


def test_binary_payloads_are_left_alone() -> None:
    payload = {"contentBase64": base64.b64encode(FIRST.encode()).decode(), "note": FIRST}
    assert mask_deep(payload, SECRETS) == {"contentBase64": payload["contentBase64"], "note": "<PW>"}


@given(st.text(min_size=3, max_size=24))
def test_any_value_is_masked_in_each_of_its_spellings(value: str) -> None:
    from browx_actors.secret_book.spellings import base64_forms, pattern, spellings

    compiled = re.compile(pattern(value))
    # A URL drops tabs and newlines; a value that leaves fewer than 3 characters there is
    # too short to mask in a URL (as it is too short to register).
    short_in_urls = len(re.sub("[\t\n\r]", "", value)) < 3
    for name, form in spellings(value).items():
        if short_in_urls and name.startswith(("URL path", "URL query", "URL fragment")):
            continue
        assert compiled.fullmatch(form) or form in base64_forms(value), (name, form)
        assert mask_deep(form, [("X", value)]) == "<X>", (name, form)


def test_a_long_value_full_of_punctuation_is_matched_by_its_spellings() -> None:
    from browx_actors.secret_book.spellings import MAX_ESCAPABLE, spellings

    value = (string.punctuation + "üé€") * (MAX_ESCAPABLE // 10)
    assert sum(c in string.punctuation or not c.isascii() for c in value) > MAX_ESCAPABLE
    for name, form in spellings(value).items():
        assert mask_deep(f"[{form}]", [("LONG", value)]) == "[<LONG>]", name


def test_a_value_too_long_to_mask_is_refused() -> None:
    from browx_actors.secret_book import MAX_VALUE

    check_secret("OK", "x" * MAX_VALUE)
    with pytest.raises(ToolError) as refused:
        check_secret("LONG", "x" * (MAX_VALUE + 1))
    assert (refused.value.code, refused.value.details["field"]) == ("bad-arg", "value")


def test_the_masker_is_compiled_once_per_set_of_secrets() -> None:
    from browx_actors.secret_book.masking import masker, pairs_of

    assert masker(pairs_of(SECRETS)) is masker(pairs_of(dict(SECRETS)))
    assert masker(()) is None
    assert encodings(FIRST)[0] == FIRST and len(set(encodings(FIRST))) == len(encodings(FIRST))


# -- the server's log -------------------------------------------------------------------


def test_every_log_line_is_masked_with_every_books_secrets() -> None:
    from browx_actors.secret_book import every_secret
    from browx_actors.secret_book.logs import mask_handlers

    books = [SecretBook(), SecretBook()]  # two runtimes in one process
    books[0].register("s1", "PW", FIRST)
    books[1].register("s2", "PX", SECOND)
    assert {("PW", FIRST), ("PX", SECOND)} <= set(every_secret())
    stream = io.StringIO()
    logger = logging.getLogger("test_secret_spellings.log")
    logger.propagate = False
    handler = logging.StreamHandler(stream)
    handler.setFormatter(logging.Formatter("%(levelname)s %(message)s"))
    logger.addHandler(handler)
    try:
        mask_handlers(logger, every_secret)
        mask_handlers(logger, every_secret)  # once is enough: not wrapped twice
        selector = f"text=/{CHROMIUM[FIRST]['encodeURI']}(/"
        try:
            raise RuntimeError(f"Locator.count: Invalid regular expression: /{FIRST}(/ in {selector!r}")
        except RuntimeError:
            logger.exception("tool %s failed on %r", "click", {"selector": SECOND})
    finally:
        logger.removeHandler(handler)
    written = stream.getvalue()
    assert leaks(written) == [], written
    assert "ERROR tool click failed" in written and "/<PW>(/" in written and "<PX>" in written
    assert "RuntimeError" in written  # the traceback is there, masked
    del books
    gc.collect()
    assert ("PW", FIRST) not in every_secret()  # a book that is gone masks nothing more


def test_a_log_line_that_cannot_be_formatted_is_withheld_not_written_raw() -> None:
    from browx_actors.secret_book.logs import mask_handlers

    stream = io.StringIO()
    logger = logging.getLogger("test_secret_spellings.unformattable")
    logger.propagate = False
    handler = logging.StreamHandler(stream)
    logger.addHandler(handler)
    try:
        mask_handlers(logger, lambda: SECRETS)
        logger.error("a count of %d", FIRST)  # %d of a string: the formatter raises
    finally:
        logger.removeHandler(handler)
    written = stream.getvalue()
    assert leaks(written) == [] and "withheld" in written, written


# -- where a secret is substituted ------------------------------------------------------

#: Parameters that name a file, a place or a target: a secret's value never goes there.
NEVER_SUBSTITUTED = {"path", "paths", "apkPath", "url", "cdpEndpoint", "selector", "ref", "scope", "pattern",
                     "origin", "domain", "from", "to", "center", "reference", "rootNodeId", "nodeId", "filter",
                     "session", "name"}


def test_no_path_url_or_target_parameter_takes_a_secret() -> None:
    wrong = [f"{tool.name}.{p.name}" for tool in tools.ALL for p in tool.params
             if p.secrets in ("substitute", "values") and p.name in NEVER_SUBSTITUTED
             and (tool.name, p.name) != ("find", "name")]  # find's name is the accessible name to look for
    assert wrong == []
    written = {(tool.name, p.name) for tool in tools.ALL for p in tool.params if p.name in ("path",)}
    assert {("pdf_save", "path"), ("storage_state_save", "path"), ("screenshot", "path")} <= written
    for tool in tools.ALL:
        for p in tool.params:
            if p.name == "path" and tool.name in ("pdf_save", "storage_state_save", "storage_state_load",
                                                  "screenshot", "screenshot_region"):
                assert p.secrets == "mask", tool.name  # a file's name shows the alias, never the value


@attrs.define
class Seen:
    """A runtime context that runs no handler: it keeps the arguments a session would get."""

    calls: list[tuple[str, dict[str, Any]]] = attrs.Factory(list)

    async def run_tool(self, session_id: str, tool: Tool[Any], args: Arguments, *, timeout: float) -> Any:
        self.calls.append((tool.name, args.json()))
        return Reply.of()


async def _nothing(session: Any, args: Any) -> Reply:
    return Reply.of()


async def test_the_dispatch_substitutes_only_into_the_parameters_that_take_a_secret() -> None:
    declared = [tools.FILL, tools.FILL_FORM, tools.PDF_SAVE, tools.STORAGE_STATE_SAVE, tools.NAVIGATE,
                tools.CLICK, tools.EVAL_JS, tools.VERIFY_VALUE]
    catalog = Catalog.of(declared, Table.of("runtime", []), {"fake": Table.of("fake", [
        runs(tool, _nothing) for tool in declared])})
    context = Seen()
    book = SecretBook()
    book.register("default", "PW", FIRST)
    gates = Gates(DEFAULT_CAPABILITIES | {"eval", "storage"}, DEFAULT_CAPABILITIES | {"eval", "storage"})
    dispatcher = Dispatcher(catalog, context=context, gates=gates, secrets=book)  # type: ignore[arg-type]
    for name, args in (
        ("fill", {"selector": "#pw-<PW>", "value": "<PW>"}),
        ("fill_form", {"fields": [{"selector": "#a-<PW>", "value": "x<PW>"}, {"ref": "e2", "value": True}]}),
        ("pdf_save", {"path": "out/<PW>.pdf"}),
        ("pdf_save", {"path": f"out/{FIRST}.pdf"}),
        ("storage_state_save", {"path": "state/<PW>.json"}),
        ("navigate", {"url": "https://example.test/?token=<PW>"}),
        ("click", {"selector": "text=<PW>"}),
        ("eval_js", {"expr": "'<PW>'.length"}),
        ("verify_value", {"ref": "e1", "value": "<PW>"}),
    ):
        envelope = (await dispatcher.dispatch(name, args)).envelope
        assert envelope["ok"] is True, envelope
    got = [args for _, args in context.calls]
    assert got[0]["selector"] == "#pw-<PW>" and got[0]["value"] == FIRST
    assert got[1]["fields"] == [{"selector": "#a-<PW>", "value": f"x{FIRST}"}, {"ref": "e2", "value": True}]
    assert got[2]["path"] == "out/<PW>.pdf"
    assert got[3]["path"] == "out/<PW>.pdf"  # a raw value typed in a file's name is masked there
    assert got[4]["path"] == "state/<PW>.json"
    assert got[5]["url"] == "https://example.test/?token=<PW>"
    assert got[6]["selector"] == "text=<PW>"
    assert got[7]["expr"] == f"'{FIRST}'.length"
    assert got[8]["value"] == FIRST
