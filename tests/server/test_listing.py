"""What an agent host loads before its first call: ``tools/list`` over real stdio MCP.

The real server in a subprocess, the MCP SDK's client. The listing holds only the tools
the server's capabilities allow, each with a title, its four MCP hints and a lean
schema, within a byte budget measured as the MCP Inspector's CLI prints it with
``--format json`` (one compact line, ``{"result": ...}``). A tool left out answers
``capability-denied`` naming its capability, whatever its arguments.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from mcp import types

from browx_actors.config import ALL_CAPABILITIES, DEFAULT_CAPABILITIES
from browx_actors.server.catalog import default_catalog
from browx_actors.tools import Hints
from e2e_support import browx_server, fails
from listing_support import ALL, ALL_BUDGET, DEFAULT_BUDGET, OPERATOR_ENV, printed

#: Tools of the read capability that are not read-only: each changes something of the
#: session's own (a name book), or runs other tools.
READ_BUT_CHANGES = {"name_ref", "tool.batch"}
#: Tools an MCP host should ask about first.
MUST_BE_DESTRUCTIVE = {"close_session", "close_tab", "cookies_clear", "cookies_delete", "storage_clear", "app_reset",
                       "app_uninstall", "device_shutdown"}


def schema_nodes(schema: Any) -> Iterator[dict[str, Any]]:
    """Every JSON Schema object in ``schema``: the root, properties, items, anyOf branches."""
    if not isinstance(schema, dict):
        return
    yield schema
    for prop in (schema.get("properties") or {}).values():
        yield from schema_nodes(prop)
    yield from schema_nodes(schema.get("items"))
    for branch in schema.get("anyOf") or ():
        yield from schema_nodes(branch)


def check_listing(listing: types.ListToolsResult, capabilities: frozenset[str]) -> None:
    catalog = default_catalog()
    expected = [tool.name for tool in catalog if tool.capability in capabilities]
    assert [tool.name for tool in listing.tools] == expected
    for tool in listing.tools:
        declared = catalog.get(tool.name)
        assert declared is not None
        assert tool.title == declared.title and tool.description == declared.summary
        hints = tool.annotations
        assert hints is not None, tool.name
        assert (hints.read_only_hint, hints.destructive_hint, hints.idempotent_hint, hints.open_world_hint) == (
            declared.hints.read_only, declared.hints.destructive, declared.hints.idempotent, declared.hints.open_world)
        schema = tool.input_schema
        assert schema["type"] == "object" and "after" in schema["properties"], tool.name
        for node in schema_nodes(schema):
            # One type per node: a list of types is anyOf branches (the Inspector's strict check).
            assert not isinstance(node.get("type"), list), (tool.name, node)
            assert set(node) <= {"type", "description", "enum", "items", "properties", "required", "anyOf"}, (
                tool.name, node)


@pytest.mark.parametrize(("capabilities", "env", "expected", "budget"), [
    ("", None, DEFAULT_CAPABILITIES, DEFAULT_BUDGET),
    (ALL, OPERATOR_ENV, ALL_CAPABILITIES, ALL_BUDGET),
], ids=["default", "all"])
async def test_the_listing_shows_what_the_capabilities_allow_within_its_budget(
        tmp_path: Path, capabilities: str, env: dict[str, str] | None, expected: frozenset[str], budget: int) -> None:
    async with browx_server(tmp_path / "ws", capabilities, env=env) as client:
        listing = await client.list_tools()
        check_listing(listing, expected)
        assert printed(listing) <= budget, printed(listing)
        instructions = client.instructions
        assert instructions is not None
        # What every tool shares is said once, there.
        for word in ("session", "ref", "selector", "coords", "after", "ui.get_visual_tree", "screenshot"):
            assert word in instructions, word


async def test_a_tool_left_out_is_refused_for_its_capability_before_its_arguments(tmp_path: Path) -> None:
    async with browx_server(tmp_path / "ws") as client:
        names = {tool.name for tool in (await client.list_tools()).tools}
        assert "eval_js" not in names and "cookies_clear" not in names
        for tool, args, capability in [("eval_js", {"bogus": 1}, "eval"), ("cookies_clear", {"after": 7}, "storage"),
                                       ("route", {}, "network-control")]:
            refused = await fails(client, tool, args, "capability-denied")
            assert refused["capability"] == capability, refused


def test_every_tool_has_a_title_and_its_four_hints_right_for_what_it_does() -> None:
    catalog = default_catalog()
    for tool in catalog:
        assert tool.title and tool.title[0].isupper() and len(tool.title) <= 40, tool.name
        assert isinstance(tool.hints, Hints)
        hints = tool.hints.annotations()
        assert set(hints) == {"readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"}
        assert all(isinstance(value, bool) for value in hints.values())
        if tool.capability == "read" and tool.name not in READ_BUT_CHANGES:
            assert tool.hints.read_only, tool.name
        if tool.hints.read_only:
            assert not tool.hints.destructive, tool.name
    for name in MUST_BE_DESTRUCTIVE:
        tool = catalog.get(name)
        assert tool is not None and tool.hints.destructive and not tool.hints.read_only, name
    for tool in catalog:
        if tool.capability == "navigation" and tool.name not in {"close_session", "close_tab", "select_tab"}:
            assert tool.hints.open_world, tool.name
    assert not any(catalog.get(name).hints.read_only for name in READ_BUT_CHANGES)  # type: ignore[union-attr]
