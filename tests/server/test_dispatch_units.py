"""Pure pieces of the dispatch path: argument validation, secrets, config, workspace."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from browx_actors.config import DEFAULT_CAPABILITIES, RuntimeConfig, parse_capabilities
from browx_actors.errors import ToolError
from browx_actors.secret_book import SecretBook, check_secret, mask_deep, substitute_deep
from browx_actors.server.catalog import Catalog
from browx_actors.server.dispatch import Dispatcher
from browx_actors.server.docs import render, render_engines
from browx_actors.tools import (
    Arguments,
    Gates,
    NoArgs,
    Param,
    Table,
    arguments,
    json_schema,
    param,
    runs,
    runtime_tool,
    validate_args,
)
from browx_actors.tools.contract import READS
from browx_actors.workspace import resolve_in_workspace

PARAMS = (
    Param("url", "string", "u", required=True, max_length=20),
    Param("count", "integer", "c", default=5, minimum=0, maximum=10),
    Param("mode", "string", "m", default="a", enum=("a", "b")),
    Param("tags", "array", "t", items="string"),
    Param("point", "object", "p", properties={"x": {"type": "number"}, "y": {"type": "number"}},
          required_keys=("x", "y")),
)


def _bad(args: object) -> ToolError:
    with pytest.raises(ToolError) as caught:
        validate_args(PARAMS, args)
    assert caught.value.code == "bad-arg"
    return caught.value


def test_defaults_fill_in_and_valid_args_pass() -> None:
    assert validate_args(PARAMS, {"url": "x"}) == {
        "url": "x", "count": 5, "mode": "a", "tags": None, "point": None,
    }
    assert validate_args(PARAMS, {"url": "x", "count": 3.0, "point": {"x": 1, "y": 2.5}})["count"] == 3


@pytest.mark.parametrize(
    ("args", "field", "words"),
    [
        ({}, "url", "missing required argument 'url'"),
        ({"url": "x", "bogus": 1}, "bogus", "unknown argument 'bogus'"),
        ({"url": 5}, "url", "url must be a string, got integer"),
        ({"url": "x" * 21}, "url", "url must be at most 20 characters, got 21"),
        ({"url": "x", "count": True}, "count", "must be an integer, got boolean"),
        ({"url": "x", "count": 1.5}, "count", "must be an integer, got number"),
        ({"url": "x", "count": 11}, "count", "at most 10"),
        ({"url": "x", "count": -1}, "count", "at least 0"),
        ({"url": "x", "mode": "c"}, "mode", "one of a, b"),
        ({"url": "x", "tags": ["a", 3]}, "tags[1]", "tags[1] must be a string"),
        ({"url": "x", "point": {"x": 1}}, "point.y", "missing point.y"),
        ({"url": "x", "point": {"x": 1, "y": 2, "z": 3}}, "point.z", "unknown key 'z'"),
        ({"url": "x", "point": {"x": "1", "y": 2}}, "point.x", "point.x must be a number"),
        ([1, 2], "arguments", "arguments must be a JSON object"),
    ],
)
def test_bad_arguments_name_the_field(args: object, field: str, words: str) -> None:
    err = _bad(args)
    assert err.details["field"] == field
    assert words in err.message
    assert err.to_envelope() == {"ok": False, "code": "bad-arg", "error": err.message, "field": field}


@given(st.dictionaries(st.text(max_size=8), st.none() | st.booleans() | st.integers() | st.text(max_size=8),
                       max_size=5))
def test_validation_never_raises_anything_but_bad_arg(args: dict) -> None:
    try:
        validate_args(PARAMS, args)
    except ToolError as err:
        assert err.code == "bad-arg" and "field" in err.details


def test_schema_matches_declarations() -> None:
    schema = json_schema(PARAMS)
    assert schema["required"] == ["url"] and schema["additionalProperties"] is False
    assert schema["properties"]["mode"]["enum"] == ["a", "b"]
    assert schema["properties"]["point"]["required"] == ["x", "y"]


SECRETS = {"PASSWORD": "hunter22", "TOKEN": "tok-abc-123"}


def test_substitute_and_mask_round_trip() -> None:
    args = {"value": "<PASSWORD>", "nested": ["x <TOKEN> y", {"k": "<UNKNOWN>"}], "n": 3}
    raw = substitute_deep(args, SECRETS)
    assert raw == {"value": "hunter22", "nested": ["x tok-abc-123 y", {"k": "<UNKNOWN>"}], "n": 3}
    assert mask_deep(raw, SECRETS) == args
    assert mask_deep({"hunter22": "hunter22hunter22"}, SECRETS) == {"<PASSWORD>": "<PASSWORD><PASSWORD>"}


@given(st.text(), st.text(alphabet="abcdefgh", min_size=3, max_size=10))
def test_mask_never_leaves_the_raw_value(text: str, secret: str) -> None:
    masked = mask_deep({"a": [text + secret + text]}, {"S": secret})
    assert secret not in masked["a"][0].replace("<S>", "")


def test_mask_prefers_the_longest_secret() -> None:
    assert mask_deep("abcdef", {"SHORT": "abc", "LONG": "abcdef"}) == "<LONG>"


@pytest.mark.parametrize(("name", "value", "field"), [("lower", "secret", "name"), ("OK", "ab", "value")])
def test_secret_registration_is_checked(name: str, value: str, field: str) -> None:
    with pytest.raises(ToolError) as caught:
        check_secret(name, value)
    assert caught.value.details["field"] == field


def test_capabilities_parse_with_defaults_and_refuse_unknown_names() -> None:
    assert parse_capabilities(None) == DEFAULT_CAPABILITIES
    assert parse_capabilities("eval, secrets,") == DEFAULT_CAPABILITIES | {"eval", "secrets"}
    with pytest.raises(ValueError, match="unknown capabilities: evil"):
        parse_capabilities("eval,evil")
    config = RuntimeConfig.from_env({"BROWX_CAPABILITIES": "canvas", "BROWX_WORKSPACE": "/w"},
                                    capabilities="eval")
    assert config.capabilities == DEFAULT_CAPABILITIES | {"eval"} and config.workspace == Path("/w")


def test_workspace_chokepoint(tmp_path: Path) -> None:
    (tmp_path / "inside").mkdir()
    os.symlink("/etc", tmp_path / "link-out")
    assert resolve_in_workspace(tmp_path, "inside/a.png") == (tmp_path / "inside" / "a.png").resolve()
    for escape in ("../x.png", "/etc/passwd", "link-out/passwd", "inside/../../x"):
        with pytest.raises(ToolError) as caught:
            resolve_in_workspace(tmp_path, escape)
        assert caught.value.code == "bad-arg"
        assert caught.value.message == "path must stay inside the workspace"


@arguments
class EchoArgs(Arguments):
    value: str = param("value", "string", "", required=True, secrets="substitute")
    session: str = param("session", "string", "", default="default")


ECHO = runtime_tool("echo", EchoArgs, title="Echo", capability="read", hints=READS, summary="Echo value.")
SECRET_OP = runtime_tool("secret_op", NoArgs, title="Secret op", capability="eval", hints=READS,
                         summary="Behind eval.")


async def test_dispatch_orders_validation_gate_substitution_and_masking() -> None:
    seen: list[Any] = []

    async def echo(context: object, args: EchoArgs) -> dict:
        seen.append(args)
        return {"ok": True, "echo": args.value}

    async def secret_op(context: object, args: NoArgs) -> dict:
        seen.append(args)
        return {"ok": True}

    catalog = Catalog.of([ECHO, SECRET_OP], Table.of("runtime", [runs(ECHO, echo), runs(SECRET_OP, secret_op)]), {})
    secrets = SecretBook()
    secrets.register("default", "PASSWORD", "hunter22")
    gates = Gates(DEFAULT_CAPABILITIES, DEFAULT_CAPABILITIES | {"eval"})
    records: list = []
    dispatcher = Dispatcher(catalog, context=None, gates=gates, secrets=secrets,  # type: ignore[arg-type]
                            recorder=records.append)
    out = await dispatcher.dispatch("echo", {"value": "pw=<PASSWORD>"})
    assert seen == [EchoArgs(value="pw=hunter22", session="default")]  # the handler saw the value
    assert seen[0].json() == {"value": "pw=hunter22", "session": "default"}
    assert out.envelope == {"ok": True, "echo": "pw=<PASSWORD>"}  # the result did not
    assert records[0].args == {"value": "pw=<PASSWORD>", "session": "default"}
    bad = (await dispatcher.dispatch("echo", {})).envelope
    assert bad["code"] == "bad-arg" and bad["field"] == "value"
    denied = (await dispatcher.dispatch("secret_op", {})).envelope
    assert denied["code"] == "capability-denied" and denied["capability"] == "eval"
    assert "server" in denied["error"] and "client" not in denied["error"]
    assert gates.denials["secret_op"] == 1 and records[-1].capability_denials == 1
    assert (await dispatcher.dispatch("nope", {})).envelope["code"] == "unknown-tool"
    assert len(seen) == 1  # nothing ran for the refused calls


def test_docs_are_current() -> None:
    docs = Path(__file__).parents[2] / "docs"
    hint = "regenerate: python -m browx_actors.server.docs"
    assert (docs / "tools.md").read_text() == render(), hint
    assert (docs / "engines.md").read_text() == render_engines(), hint


def test_mask_covers_escaped_and_clipped_forms_but_not_binary_payloads() -> None:
    secrets = {"PW": 'Pa"ss\\w0rd-42', "TOKEN": "ghp_abcdefghijklmnopqrstuvwxyz0123456789"}
    snapshot = 'textbox "Password" value="Pa\\"ss\\\\w0rd-42"'
    assert mask_deep(snapshot, secrets) == 'textbox "Password" value="<PW>"'
    assert mask_deep("token ghp_abcdefghijklmn\u2026", secrets) == "token <TOKEN>\u2026"
    assert mask_deep("\u2026uvwxyz0123456789 was typed", secrets) == "\u2026<TOKEN> was typed"
    assert mask_deep("plain text\u2026 elsewhere", secrets) == "plain text\u2026 elsewhere"
    payload = {"contentBase64": "xxghp_abcdefghijklmnopqrstuvwxyz0123456789", "note": "ghp_abc\u2026"}
    assert mask_deep(payload, secrets) == {"contentBase64": payload["contentBase64"], "note": "<TOKEN>\u2026"}
