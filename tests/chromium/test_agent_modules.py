"""The page agent's modules (``agent/*.js``) and the one script they join into.

What the agent does is tested in ``test_page_agent.py``, on the script the loader
gives; this file holds what the split itself promises: small modules, each listed
once and headed, the install guard first, a script that parses, and a ``--compare``
that tells a moved line from a changed one.
"""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Iterator
from importlib import resources
from itertools import islice
from pathlib import Path

import pytest

from browx_actors.sessions.chromium.agent.source import (
    AGENT_KEY,
    MODULE_LINE_LIMIT,
    MODULES,
    compare,
    join_modules,
    line_count,
    load_agent_source,
    main,
    module_bodies,
    read_module,
    script_body,
    split_header,
)


def node_check(script: str, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    """``node --check`` on ``script``: parses it (duplicate ``const``\\s included), runs nothing."""
    node = shutil.which("node")
    assert node is not None, "node (Node 20) is not on PATH"
    path = tmp_path / "agent.js"
    path.write_text(script, encoding="utf-8")
    return subprocess.run([node, "--check", str(path)], capture_output=True, text=True, check=False)


def code_lines(script: str) -> Iterator[str]:
    """The script's lines of code, in order: comments and blank lines left out."""
    in_comment = False
    for line in script.splitlines():
        text = line.strip()
        if in_comment or text.startswith("/*"):
            in_comment = "*/" not in text
            continue
        if text and not text.startswith("//"):
            yield text


def test_line_count_counts_a_last_line_without_newline() -> None:
    assert [line_count(text) for text in ("", "a\n", "a\nb", "a\nb\n\n")] == [0, 1, 2, 3]


def test_every_module_is_under_the_line_limit() -> None:
    counts = {name: line_count(read_module(name)) for name in MODULES}
    assert {name: n for name, n in counts.items() if n >= MODULE_LINE_LIMIT} == {}


def test_modules_lists_every_js_file_exactly_once() -> None:
    folder = resources.files("browx_actors.sessions.chromium.agent")
    files = sorted(entry.name for entry in folder.iterdir() if entry.name.endswith(".js"))
    assert len(set(MODULES)) == len(MODULES)
    assert sorted(MODULES) == files


def test_every_module_starts_with_a_header_naming_it() -> None:
    for name in MODULES:
        header, body = split_header(read_module(name))
        assert header.startswith(f"// {name}: "), name
        assert body.strip(), name


def test_the_install_guard_comes_before_any_other_code() -> None:
    first = list(islice(code_lines(load_agent_source()), 4))
    assert first == [
        "(() => {",
        "'use strict';",
        f"const AGENT_KEY = '{AGENT_KEY}';",
        "if (AGENT_KEY in window) return;",
    ]


def test_the_joined_script_passes_node_check(tmp_path: Path) -> None:
    result = node_check(load_agent_source(), tmp_path)
    assert result.returncode == 0, result.stderr


def test_node_check_rejects_a_name_two_modules_declare(tmp_path: Path) -> None:
    result = node_check(join_modules(["  const shared = 1;\n", "  const shared = 2;\n"]), tmp_path)
    assert result.returncode != 0
    assert "shared" in result.stderr


def test_load_refuses_a_script_without_the_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("browx_actors.sessions.chromium.agent.source.AGENT_KEY", "__browxAgent_v0")
    with pytest.raises(RuntimeError, match="__browxAgent_v0"):
        load_agent_source()


def test_script_body_drops_only_the_wrapper() -> None:
    script = "/* head */\n(() => {\n  'use strict';\n  const a = 1;\n})();\n"
    assert script_body(script) == "/* head */\n  const a = 1;\n"
    with pytest.raises(ValueError, match="opening"):
        script_body("  const a = 1;\n")
    with pytest.raises(ValueError, match="end with"):
        script_body("(() => {\n  'use strict';\n  const a = 1;\n")


def test_compare_finds_no_difference_in_the_modules_own_body(tmp_path: Path) -> None:
    path = tmp_path / "agent.js"
    path.write_text(join_modules([module_bodies()]), encoding="utf-8")
    assert compare(path) == ""


def test_compare_shows_a_changed_line(tmp_path: Path) -> None:
    body = module_bodies()
    assert "  const NAME_MAX = 100;" in body
    path = tmp_path / "agent.js"
    path.write_text(join_modules([body.replace("const NAME_MAX = 100;", "const NAME_MAX = 7;")]), encoding="utf-8")
    changed = [line for line in compare(path).splitlines() if line[:1] in "-+" and line[1:2] == " "]
    assert changed == ["-  const NAME_MAX = 7;        // accessible names in the snapshot line",
                       "+  const NAME_MAX = 100;        // accessible names in the snapshot line"]


def test_main_prints_ok_a_diff_or_why_it_cannot_compare(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    same, changed, unwrapped = (tmp_path / name for name in ("same.js", "changed.js", "unwrapped.js"))
    same.write_text(join_modules([module_bodies()]), encoding="utf-8")
    changed.write_text(join_modules([module_bodies() + "  // one more line\n"]), encoding="utf-8")
    unwrapped.write_text(module_bodies(), encoding="utf-8")

    assert main(["--compare", str(same)]) == 0
    assert capsys.readouterr().out == "OK\n"
    assert main(["--compare", str(changed)]) == 1
    assert capsys.readouterr().out.endswith("\n-  // one more line\n")
    assert main(["--compare", str(unwrapped)]) == 2
    assert "no closure opening" in capsys.readouterr().err
