"""What leaves the server and what may enter it: the egress steps and the shape checks.

Every string that leaves is valid UTF-8 (a page's lone surrogate becomes U+FFFD) and
every number is finite (a page's NaN becomes null), whoever reads the result: the MCP
client, a library caller, the diagnostics store. Every argument that enters is JSON
data a tool can use and write back: nested at most 32 levels, valid Unicode, integers
of at most 4,300 digits, finite numbers; a library caller gets the same refusals as an
MCP client, naming the field and the limit.
"""

from __future__ import annotations

import json
import math
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from browx_actors.errors import ToolError
from browx_actors.jsonsafe import finite_numbers, valid_unicode
from browx_actors.secret_book import SecretBook
from browx_actors.server.catalog import Catalog
from browx_actors.server.dispatch import Dispatcher
from browx_actors.server.egress import outgoing
from browx_actors.tools import Gates, NoArgs, Param, Reply, Table, runs, runtime_tool, validate_args
from browx_actors.tools.contract import READS
from browx_actors.tools.params import MAX_DEPTH, Unreadable


def test_lone_surrogates_become_the_replacement_character_in_values_and_keys() -> None:
    data = {"title": "a\ud800b", "items": ["ok", "\udfff"], "k\udc00": 1}
    out = outgoing(data, [])
    assert out == {"title": "a\ufffdb", "items": ["ok", "\ufffd"], "k\ufffd": 1}
    json.dumps(out, ensure_ascii=False).encode("utf-8")


def test_non_finite_numbers_become_null() -> None:
    out = outgoing({"a": math.nan, "b": [math.inf, -math.inf, 1.5], "c": 2}, [])
    assert out == {"a": None, "b": [None, None, 1.5], "c": 2}
    json.dumps(out, allow_nan=False)


def test_clean_data_passes_through_as_the_very_same_object() -> None:
    data = {"snapshot": "héllo 🌍", "nodes": [{"ref": "e1", "x": 1.5}], "ok": True}
    assert valid_unicode(data) is data and finite_numbers(data) is data and outgoing(data, []) is data


def test_masking_sees_the_text_before_it_is_made_valid() -> None:
    assert outgoing({"t": "pw=hunter2\ud800"}, [("PW", "hunter2")]) == {"t": "pw=<PW>\ufffd"}


_scalars = st.none() | st.booleans() | st.integers() | st.floats() | st.text()
_values = st.recursive(_scalars, lambda inner: st.lists(inner, max_size=3)
                       | st.dictionaries(st.text(max_size=3), inner, max_size=3), max_leaves=15)


@given(_values)
def test_whatever_a_page_produces_leaves_as_strict_utf8_json(value: Any) -> None:
    json.dumps(outgoing({"ok": True, "value": value}, []), ensure_ascii=False, allow_nan=False).encode("utf-8")


PARAMS = (Param("text", "string", "t"), Param("data", "object", "d"), Param("n", "integer", "n", minimum=0,
                                                                             maximum=10))


def _refused(args: dict[str, Any]) -> ToolError:
    with pytest.raises(ToolError) as caught:
        validate_args(PARAMS, args)
    assert caught.value.code == "bad-arg"
    return caught.value


def _nested(depth: int) -> Any:
    value: Any = 1
    for _ in range(depth):
        value = [value]
    return value


@pytest.mark.parametrize(("args", "field", "words"), [
    ({"text": "x\ud800"}, "text", "lone UTF-16 surrogate (U+D800) at index 1"),
    ({"data": {"k": ["ok", "\udfff"]}}, "data.k[1]", "surrogate"),
    ({"data": {"\ud800": 1}}, "data.\ud800", "surrogate"),
    ({"data": {"deep": _nested(MAX_DEPTH + 5)}}, "data", f"nested deeper than {MAX_DEPTH} levels"),
    ({"data": {"n": 10 ** 5000}}, "data.n", "more than 4,300 digits"),
    ({"data": {"f": math.nan}}, "data.f", "finite"),
    ({"data": {"f": Unreadable("an integer of 5,000 digits")}}, "data.f", "5,000 digits"),
    ({"n": Unreadable("an integer of 5,000 digits")}, "n", "5,000 digits"),
    ({"data": {"o": object()}}, "data.o", "not JSON data"),
    ({"data": {1: "x"}}, "data", "keys are strings"),
])
def test_what_no_tool_can_use_is_refused_naming_the_field_and_limit(args: dict[str, Any], field: str,
                                                                    words: str) -> None:
    err = _refused(args)
    assert err.details["field"] == field and words in err.message


def test_a_self_containing_argument_is_refused_not_recursed_forever() -> None:
    loop: list[Any] = []
    loop.append(loop)
    assert "nested deeper" in _refused({"data": {"loop": loop}}).message


def test_nesting_up_to_the_limit_is_accepted() -> None:
    assert validate_args(PARAMS, {"data": {"deep": _nested(MAX_DEPTH - 1)}})["data"]["deep"] == _nested(MAX_DEPTH - 1)


PAGE_TEXT = runtime_tool("page_text", NoArgs, title="Page text", capability="read", hints=READS,
                         summary="Answer what a hostile page would.")


async def _page_text(context: Any, args: NoArgs) -> Reply:
    return Reply.of(title="\ud800", ratio=math.nan, items=[math.inf])


async def test_the_dispatch_writes_a_hostile_page_valid_for_every_reader() -> None:
    recorded: list[Any] = []
    catalog = Catalog.of([PAGE_TEXT], Table.of("runtime", [runs(PAGE_TEXT, _page_text)]), {})
    dispatcher = Dispatcher(catalog, context=None,  # type: ignore[arg-type]
                            gates=Gates(frozenset({"read"}), frozenset({"read"})),
                            secrets=SecretBook(), recorder=recorded.append)
    output = await dispatcher.dispatch("page_text", {})
    assert output.envelope == {"ok": True, "title": "\ufffd", "ratio": None, "items": [None]}
    assert recorded[0].envelope == output.envelope


def test_a_page_date_reads_as_its_iso_text_in_utc() -> None:
    import datetime

    from browx_actors.jsonsafe import dates_as_text

    moment = datetime.datetime(2026, 12, 6, 22, 5, 1, 250000, tzinfo=datetime.UTC)
    local = moment.astimezone(datetime.timezone(datetime.timedelta(hours=9)))
    assert dates_as_text({"at": local, "list": [moment, 1, "x"]}) == {
        "at": "2026-12-06T22:05:01.250Z", "list": ["2026-12-06T22:05:01.250Z", 1, "x"]}
    plain = {"a": [1, 2]}
    assert dates_as_text(plain) is plain  # nothing to change: the very same object
