"""End to end: registered secrets leave no spelling of themselves anywhere.

The real server in a subprocess, the MCP SDK's client over real stdio (its stderr
kept), real Chromium. First Chromium itself writes each of the audit's two secrets as
``encodeURI``, ``encodeURIComponent``, ``escape()``, a URL's path, query, fragment and
user info, ``URLSearchParams`` and a GET form's submission, and each must be what
``secret_book.spellings`` says and masked to the alias. Then the same secrets are
registered and a page writes them in all those spellings into its text, title,
console, requests and script results; files are saved under names holding the alias;
a selector holding a raw value fails inside Playwright, whose traceback the server
logs; a prompt goes to stderr. No spelling of either value may reach a result, the
recorder's JSONL, a file's name, or the server's stderr.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from mcp.client import Client

from browx_actors.secret_book import mask_deep
from e2e_support import Recording, Transcript, browx_server, call, ok, recording_server
from secret_support import CHROMIUM, FIRST, SECOND, expected_spellings, leaks

pytestmark = pytest.mark.chromium

#: A function of the value: each spelling Chromium writes, by the name ``spellings`` gives it.
SPELLINGS_JS = """(value) => {
  const set = (base, part, prefix) => {
    const u = new URL(base); u[part] = prefix + value; return u[part].slice(prefix.length);
  };
  return {
    "encodeURI": encodeURI(value), "encodeURIComponent": encodeURIComponent(value), "escape()": escape(value),
    "URL path": set('http://h.test/', 'pathname', '/'), "URL query": set('http://h.test/', 'search', '?'),
    "URL fragment": set('http://h.test/', 'hash', '#'), "URL user info": set('http://h.test/', 'password', ''),
    "form": new URLSearchParams({k: value}).toString().slice(2), "JSON": JSON.stringify(value).slice(1, -1),
  };
}"""


#: Loaded by the server's Python at start (``sitecustomize``): one ``eval_js`` call, the
#: one that asks, fails as a handler bug whose message quotes its arguments, the way
#: Playwright's error text quotes the selector it was given. The server logs it.
FAILING_HANDLER = """
import browx_actors.server.dispatch as dispatch

_run = dispatch.Dispatcher._run


async def _run_or_fail(self, tool, checked):
    if tool.name == "eval_js" and "FAIL-WITH-ARGS" in str(checked.get("expr")):
        raise RuntimeError(f"the handler failed on {checked!r}")
    return await _run(self, tool, checked)


dispatch.Dispatcher._run = _run_or_fail
"""


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for k, v in value.items() for s in (k, *_strings(v))]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return []


async def test_chromium_writes_each_spelling_as_the_masking_knows_it(tmp_path: Path, pages_url: str) -> None:
    """The spellings the tests hold masking to are Chromium's own; the server's
    ``spellings`` lists each of them; masking leaves none."""
    page = f"{pages_url}/secret_spellings.html"
    async with browx_server(tmp_path / "ws", "eval") as client:  # no secret registered: results are raw
        await ok(client, "navigate", {"url": page})
        for value, alias in ((FIRST, "<PW>"), (SECOND, "<PX>")):
            known = expected_spellings(value)
            written = (await ok(client, "eval_js", {"expr": f"({SPELLINGS_JS})({json.dumps(value)})"}))["value"]
            assert written == {name: known[name] for name in written}
            from browx_actors.secret_book.spellings import spellings  # new with the fix

            assert written == {name: spellings(value)[name] for name in written}
            masks = [("PW", FIRST), ("PX", SECOND)]
            assert mask_deep(written, masks) == dict.fromkeys(written, alias)
            # A GET form's submission: the URL it goes to holds the form spelling.
            await ok(client, "navigate", {"url": page})
            await ok(client, "fill", {"selector": "#q", "value": value})
            sent = await ok(client, "click", {"selector": "button[type=submit]"})
            assert sent["navigation"]["to"] == f"{page}?q={known['form']}"
            assert mask_deep(sent["navigation"]["to"], masks) == f"{page}?q={alias}"


async def test_registered_secrets_leave_no_spelling_in_results_records_files_or_stderr(
        tmp_path: Path, pages_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    inject = tmp_path / "inject"
    inject.mkdir()
    (inject / "sitecustomize.py").write_text(FAILING_HANDLER)
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, (str(inject), os.environ.get("PYTHONPATH")))))
    workspace = tmp_path / "ws"
    page = f"{pages_url}/secret_spellings.html"
    record = Recording()
    transcript = Transcript()
    #: What went wrong, by where: every check is kept, so one run names every way out.
    problems: list[str] = []

    def expect(holds: bool, problem: str) -> None:
        if not holds:
            problems.append(problem)

    async with Client(recording_server(workspace, "eval,secrets,storage,diagnostics", record),
                      read_timeout_seconds=150) as client:
        client.transcript = transcript  # type: ignore[attr-defined]
        await ok(client, "navigate", {"url": page})
        await ok(client, "register_secret", {"name": "PW", "value": FIRST})
        await ok(client, "register_secret", {"name": "PX", "value": SECOND})
        for alias in ("<PW>", "<PX>"):
            # A script writes it in every spelling (the alias substitutes into a script).
            written = (await ok(client, "eval_js", {"expr": f"({SPELLINGS_JS})({json.dumps(alias)})"}))["value"]
            expect(written == dict.fromkeys(written, alias), f"eval_js: {written}")
            # A form sends it; the page writes it into its text, title, console and a request.
            await ok(client, "navigate", {"url": page})
            await ok(client, "fill", {"selector": "#q", "value": alias})
            sent = await ok(client, "click", {"selector": "button[type=submit]"})
            expect(sent["navigation"]["to"] == f"{page}?q={alias}", f"navigation: {sent['navigation']}")
            shown = (await ok(client, "snapshot"))["snapshot"]
            expect(f"encodeURI {alias}" in shown and f"escape {alias}" in shown, f"snapshot: {shown}")
            await ok(client, "console_read")
            await ok(client, "network_read")
            await ok(client, "list_tabs")
        # A URL is not a place for a secret: the alias goes to the page as typed.
        await ok(client, "navigate", {"url": f"{page}?q=<PX>"})
        shown = (await ok(client, "snapshot"))["snapshot"]
        expect("encodeURIComponent %3CPX%3E" in shown, f"a URL's alias was substituted: {shown}")
        # Files named with an alias keep it; a raw value typed in a file's name is masked there.
        for tool, path in (("pdf_save", "out/<PW>.pdf"), ("storage_state_save", "out/<PX>.json"),
                           ("screenshot", "out/<PW>.png"), ("pdf_save", f"out/raw-{SECOND}.pdf")):
            saved = await ok(client, tool, {"path": path})
            expect(saved["path"].endswith(path.replace(SECOND, "<PX>")), f"{tool} answered {saved['path']}")
        # The server's stderr: a handler that fails quoting its arguments (the aliases
        # substituted, a spelling typed raw) is logged; a selector holding a raw value
        # fails inside Playwright; a prompt is written there too.
        failed = await call(client, "eval_js", {
            "expr": f"'FAIL-WITH-ARGS <PW> <PX> {CHROMIUM[FIRST]['encodeURI']}'"})
        assert (failed["ok"], failed["code"]) == (False, "internal"), failed
        await call(client, "click", {"selector": f"text=/{FIRST}(/"})
        await call(client, "await_human", {
            "prompt": f"Paste {CHROMIUM[FIRST]['escape()']} then {CHROMIUM[SECOND]['form']}", "timeoutMs": 200})
        await ok(client, "diagnostics_search")  # flushes the recorder
    for text in transcript.texts + transcript.structured:
        problems += [f"result: {leak}" for s in _strings(json.loads(text)) for leak in leaks(s)]
    records = list((workspace / "diagnostics").rglob("*.jsonl"))
    assert records, "diagnostics recorded nothing"
    for path in records:
        text = path.read_text()
        problems += [f"JSONL {path.name}: {leak}" for leak in leaks(text)]
        for line in text.splitlines():
            problems += [f"JSONL record: {leak}" for s in _strings(json.loads(line)) for leak in leaks(s)]
    names = [p.name for p in workspace.rglob("*")]
    expect({"<PW>.pdf", "<PX>.json", "<PW>.png", "raw-<PX>.pdf"} <= set(names), f"files: {names}")
    problems += [f"file name: {leak}" for name in names for leak in leaks(name)]
    stderr = record.stderr.decode("utf-8", "replace")
    problems += [f"stderr: {leak}" for leak in leaks(stderr)]
    expect("Paste <PW> then <PX>" in stderr, "the prompt was not written to stderr, masked")
    expect("FAIL-WITH-ARGS <PW> <PX> <PW>" in stderr, "the handler's failure was not logged, masked")
    assert problems == [], f"{len(problems)} ways out:\n" + "\n".join(problems)
