"""The server's session defaults on real headless Chromium over stdio MCP: a config
file's userAgent and locale in effect in the session that opens by itself, the flag's
user agent over the file's, and a call's own argument over both."""

from __future__ import annotations

from pathlib import Path

import pytest

from e2e_support import browx_server, ok

pytestmark = pytest.mark.chromium

READ = "({ua: navigator.userAgent, lang: navigator.language})"


async def test_a_config_files_defaults_apply_a_flag_overrides_and_a_call_wins(tmp_path: Path, pages_url: str) -> None:
    config = tmp_path / "browx.toml"
    config.write_text('userAgent = "file-ua"\nlocale = "de-DE"\n')
    async with browx_server(tmp_path / "ws", "eval", "--config", str(config), "--user-agent", "flag-ua") as client:
        await ok(client, "navigate", {"url": f"{pages_url}/e2e_small.html"})  # "default" opens by itself
        assert (await ok(client, "eval_js", {"expr": READ}))["value"] == {"ua": "flag-ua", "lang": "de-DE"}
        opened = await ok(client, "open_session", {"session": "own", "locale": "fr-FR"})
        assert (opened["userAgent"], opened["locale"]) == ("flag-ua", "fr-FR"), opened
        await ok(client, "navigate", {"session": "own", "url": f"{pages_url}/e2e_small.html"})
        seen = (await ok(client, "eval_js", {"session": "own", "expr": READ}))["value"]
        assert seen == {"ua": "flag-ua", "lang": "fr-FR"}, seen
