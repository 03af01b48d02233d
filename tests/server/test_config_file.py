"""``serve --config FILE`` and ``--print-config``: the pure parsing and layering, then the
real command as a subprocess (no browser: ``--print-config`` exits before one starts)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from browx_actors import config as config_module
from browx_actors.__main__ import build_parser
from browx_actors.config import RuntimeConfig
from browx_actors.config_file import (
    KEYS,
    effective_values,
    layered_environment,
    parse_config_text,
    printable,
    sources,
)

SERVE = [sys.executable, "-m", "browx_actors", "serve"]
TOKEN = "0123456789abcdef-secret"

TOML = f"""
workspace = "/from/file"
capabilities = ["eval", "secrets"]
actionInput = "playwright"
pageRecording = false
operatorToken = "{TOKEN}"
[cdpHeaders]
Authorization = "Bearer {TOKEN}"
[native]
adbPort = 5038
[http]
port = 8931
authToken = "{TOKEN}"
allowedOrigins = ["https://app.example"]
"""


def test_every_variable_and_flag_has_a_key() -> None:
    keyed_envs = {key.env for key in KEYS if key.env}
    read_envs = set(re.findall(r'env\.get\("([A-Z_]+)"\)', Path(config_module.__file__).read_text()))
    assert read_envs and read_envs <= keyed_envs
    serve = build_parser()._subparsers._group_actions[0].choices["serve"]  # type: ignore[union-attr]
    flags = {opt for action in serve._actions for opt in action.option_strings if opt.startswith("--")}
    assert flags - {key.flag for key in KEYS} == {"--help", "--config", "--print-config"}


def test_toml_and_json_read_the_same() -> None:
    from_toml = parse_config_text(TOML, "c.toml")
    as_json = {"workspace": "/from/file", "capabilities": "eval,secrets", "native": {"adbPort": 5038},
               "cdpHeaders": [f"Authorization: Bearer {TOKEN}"], "http": {"idleTimeout": 60}}
    from_json = parse_config_text(json.dumps(as_json), "C.JSON")
    assert from_toml["native.adbPort"] == from_json["native.adbPort"] == 5038
    assert from_toml["http.allowedOrigins"] == ["https://app.example"]
    assert from_json["http.idleTimeout"] == 60
    env = layered_environment(from_toml, {})
    assert env["BROWX_CAPABILITIES"] == "eval,secrets" and env["BROWX_PAGE_RECORDING"] == "off"
    assert layered_environment(from_json, {})["BROWX_CDP_HEADERS"] == env["BROWX_CDP_HEADERS"]


def test_file_under_environment_under_flag() -> None:
    file_values = parse_config_text(TOML, "c.toml")
    environ = {"BROWX_WORKSPACE": "/from/env", "BROWX_ACTION_INPUT": ""}  # an empty variable is unset
    env = layered_environment(file_values, environ)
    config = RuntimeConfig.from_env(env, capabilities="canvas")
    assert config.workspace == Path("/from/env")
    assert config.action_input == "playwright" and config.page_recording is False
    assert config.capabilities >= {"canvas"} and "eval" not in config.capabilities
    assert config.native.adb_port == 5038 and dict(config.cdp_headers)["Authorization"] == f"Bearer {TOKEN}"
    origin = sources({"capabilities"}, environ, file_values)
    assert origin["capabilities"] == "flag" and origin["workspace"] == "env"
    assert origin["actionInput"] == "file" and origin["headed"] == "default"


@pytest.mark.parametrize(("text", "name", "message"), [
    ("capabilites = ['eval']", "c.toml", "c.toml: unknown key 'capabilites' (did you mean 'capabilities'?)"),
    ("port = 8931", "c.toml", "unknown key 'port' (did you mean 'http.port'?)"),
    ('{"native": {"iosAppID": "x"}}', "c.json", "unknown key 'native.iosAppID' (did you mean 'native.iosAppId'?)"),
    ("[http]\nport = '8931'", "c.toml", "c.toml: http.port must be an integer, got str"),
    ("headed = 1", "c.toml", "headed must be true or false, got int"),
    ("downloadMaxBytes = true", "c.toml", "downloadMaxBytes must be an integer"),
    ("native = 3", "c.toml", "native must be a table"),
    ("actionInput = 'fast'", "c.toml", "actionInput: BROWX_ACTION_INPUT must be one of auto, playwright"),
    ("capabilities = 'eval,bogus'", "c.toml", "capabilities: unknown capabilities: bogus"),
    ("logLevel = 'LOUD'", "c.toml", "logLevel: must be a logging level"),
    ("workspace = ", "c.toml", "c.toml: "),
    ("workspace: x", "c.yaml", "c.yaml: a config file is .toml or .json"),
    ("[1]", "c.json", "c.json: a config file is a table of keys"),
])
def test_a_bad_file_is_refused_naming_the_key(text: str, name: str, message: str) -> None:
    with pytest.raises(ValueError, match=re.escape(message)):
        parse_config_text(text, name)


def test_a_secret_of_the_wrong_type_is_not_quoted() -> None:
    with pytest.raises(ValueError, match=r"operatorToken must be a string, got int \*\*\*") as info:
        parse_config_text("operatorToken = 1234567", "c.toml")
    assert "1234567" not in str(info.value)


def test_printable_masks_secrets() -> None:
    config = RuntimeConfig.from_env(layered_environment(parse_config_text(TOML, "c.toml"), {}),
                                    attach_cdp="http://fleet:9222?token=abc")
    shown = json.dumps(printable(effective_values(config, {"http.authToken": TOKEN}), sources((), {}, {})))
    assert TOKEN not in shown and "abc" not in shown
    assert '"Authorization": "***"' in shown and '"operatorToken": "***"' in shown


def _print_config(*flags: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    environ = {k: v for k, v in os.environ.items() if not k.startswith("BROWX_")}
    return subprocess.run([*SERVE, *flags, "--print-config"], capture_output=True, text=True, timeout=60,
                          env={**environ, **(env or {})})


def test_print_config_shows_each_layer_winning(tmp_path: Path) -> None:
    path = tmp_path / "browx.toml"
    path.write_text(TOML)
    done = _print_config("--config", str(path))
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert out["config"]["workspace"] == "/from/file" and out["sources"]["workspace"] == "file"
    assert out["config"]["http"]["port"] == 8931 and out["config"]["native"]["adbPort"] == 5038
    assert TOKEN not in done.stdout and out["config"]["http"]["authToken"] == "***"

    done = _print_config("--config", str(path), env={"BROWX_WORKSPACE": "/from/env"})
    out = json.loads(done.stdout)
    assert out["config"]["workspace"] == "/from/env" and out["sources"]["workspace"] == "env"

    done = _print_config("--config", str(path), "--workspace", "/from/flag", "--port", "0",
                         env={"BROWX_WORKSPACE": "/from/env"})
    out = json.loads(done.stdout)
    assert out["config"]["workspace"] == "/from/flag" and out["sources"]["workspace"] == "flag"
    assert out["config"]["http"]["port"] == 0 and out["sources"]["http.port"] == "flag"


def test_print_config_reads_json_too(tmp_path: Path) -> None:
    path = tmp_path / "browx.json"
    path.write_text(json.dumps({"headed": True, "http": {"host": "0.0.0.0", "authToken": TOKEN, "port": 1}}))
    out = json.loads(_print_config("--config", str(path)).stdout)
    assert out["config"]["headed"] is True and out["config"]["http"]["host"] == "0.0.0.0"
    assert out["sources"]["http.authToken"] == "file"


def test_a_bad_key_fails_at_start(tmp_path: Path) -> None:
    path = tmp_path / "browx.toml"
    path.write_text("[http]\nprot = 8931\n")
    done = subprocess.run([*SERVE, "--config", str(path)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.strip() == f"browx-actors: {path}: unknown key 'http.prot' (did you mean 'http.port'?)"


def test_the_readme_example_is_a_valid_file() -> None:
    readme = (Path(__file__).parents[2] / "README.md").read_text()
    section = readme.split("### Configuration file", 1)[1]
    example = section.split("```toml\n", 1)[1].split("```", 1)[0]
    values = parse_config_text(example, "browx.toml")
    assert values["http.port"] == 8931 and values["native.adbHost"] == "farm.internal"


def test_the_policy_file_is_read_at_start_and_a_bad_one_stops_it(tmp_path: Path) -> None:
    path = tmp_path / "policy.toml"
    path.write_text('[[confirm]]\ntools = ["click"]\nname = "Delete"\n')
    done = _print_config("--policy", str(path))
    out = json.loads(done.stdout)
    assert out["config"]["policy"] == str(path) and out["sources"]["policy"] == "flag"
    path.write_text('[[confirm]]\ntools = ["clik"]\n')
    done = _print_config("--policy", str(path))
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.strip() == f"browx-actors: policy file {str(path)!r}: confirm[0].tools: no tool named 'clik'"
    done = _print_config(env={"BROWX_POLICY": str(tmp_path / "absent.toml")})
    assert done.returncode == 2 and "absent.toml" in done.stderr and "No such file" in done.stderr
