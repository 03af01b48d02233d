"""What a CSS fade costs a click: the fade itself, not a fixed wait.

A page holds four modals that fade in over 0 (no transition), 100, 300 and 600 ms,
Bootstrap's way (``display: block``, a reflow, then a class that moves the opacity).
Each round clicks every modal's open button and then its close button through stdio
MCP, timed end to end as an agent host sees it; the server attaches to a Chromium
launched here. The settle waits for the page's own update (``quiet`` in the page
agent), so a click on a fading modal answers once the fade is over, and one on a
still page answers at once: the cost past the fade should be the same for every
duration, the no-transition click's.

``--against DIR`` also measures another checkout's server (``git archive <commit> | tar
-x -C DIR``) on the same page in the same run: the code from before the settle waited
answers every click at the same speed, with the modal still fading. "Opaque when
answered" is what the agent's next read finds: the modal at opacity 1.

Run: ``python -m benchmarks.settle_fade [--rounds N] [--against DIR]``.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

import trio
from mcp.client import Client
from mcp.client.stdio import StdioServerParameters

from browx_actors.cdp import launch_chromium
from browx_actors.demo import serve_directory

FADES_MS = (0, 100, 300, 600)
ROUNDS = 10

PAGE = """<!doctype html><html><head><title>fades</title><style>
.modal {{ display: none; position: fixed; inset: 20% 30%; background: #eee; opacity: 0; }}
.modal.show {{ opacity: 1; }}
{rules}
</style></head><body>
{buttons}
<script>
function openModal(id) {{ const m = document.getElementById(id); m.style.display = 'block'; m.offsetHeight;
  m.classList.add('show'); }}
function closeModal(id) {{ const m = document.getElementById(id); m.classList.remove('show');
  const done = () => {{ m.style.display = 'none'; }};
  if (getComputedStyle(m).transitionDuration === '0s') done();
  else m.addEventListener('transitionend', done, {{ once: true }}); }}
</script></body></html>"""


def _write_page(directory: Path) -> None:
    rules = "\n".join(f"#m{ms} {{ transition: opacity {ms}ms linear; }}" for ms in FADES_MS if ms)
    buttons = "\n".join(
        f'<button id="open{ms}" onclick="openModal(\'m{ms}\')">Open {ms}</button>'
        f'<div class="modal" id="m{ms}" role="dialog" aria-label="Modal {ms}">'
        f'<button id="close{ms}" onclick="closeModal(\'m{ms}\')">Close {ms}</button></div>'
        for ms in FADES_MS
    )
    (directory / "fades.html").write_text(PAGE.format(rules=rules, buttons=buttons))


def _server(ws_url: str, tree: Path | None) -> StdioServerParameters:
    env = {**os.environ, "BROWX_ATTACH_CDP": ws_url, "BROWX_WORKSPACE": tempfile.mkdtemp(),
           "BROWX_CAPABILITIES": "eval"}
    if tree is not None:
        env["PYTHONPATH"] = os.pathsep.join(p for p in (str(tree), env.get("PYTHONPATH")) if p)
    return StdioServerParameters(command=sys.executable, args=["-m", "browx_actors", "serve"], env=env,
                                 cwd=str(tree) if tree is not None else None)


async def _click(client: Client, selector: str) -> tuple[float, dict]:
    started = time.perf_counter()
    result = await client.call_tool("click", {"session": "bench", "selector": selector})
    elapsed = (time.perf_counter() - started) * 1000
    envelope = json.loads(result.content[0].text)
    if not envelope["ok"]:
        raise RuntimeError(f"click {selector} failed: {envelope}")
    return elapsed, envelope


def _empty() -> dict[int, dict[str, list]]:
    return {ms: {"open": [], "close": [], "shown": [], "page": []} for ms in FADES_MS}


async def _measure(ws_url: str, url: str, tree: Path | None, rounds: int,
                   out: dict[int, dict[str, list]]) -> None:
    async with Client(_server(ws_url, tree)) as client:
        await client.call_tool("open_session", {"session": "bench"})
        await client.call_tool("navigate", {"session": "bench", "url": url})
        for i in range(rounds + 2):
            for ms in FADES_MS:
                opened_ms, opened = await _click(client, f"#open{ms}")
                # What the agent reads next: is the modal there yet, at full opacity?
                probe = await client.call_tool("eval_js", {
                    "session": "bench", "expr": f"getComputedStyle(document.getElementById('m{ms}')).opacity"})
                shown = json.loads(probe.content[0].text).get("value") == "1"
                closed_ms, _ = await _click(client, f"#close{ms}")
                if i >= 2:
                    out[ms]["open"].append(opened_ms)
                    out[ms]["close"].append(closed_ms)
                    out[ms]["shown"].append(shown)
                    out[ms]["page"].append(opened.get("settled", {}).get("pageMs", 0))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=ROUNDS, help=f"measured rounds (default {ROUNDS})")
    parser.add_argument("--against", type=Path, metavar="DIR", help="also measure another checkout's server")
    options = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp, serve_directory(Path(tmp)) as base:
        _write_page(Path(tmp))
        url = f"{base}/fades.html"

        async def run() -> tuple[dict, dict | None]:
            # In blocks ordered A B B A (A alone without --against), so neither side
            # gains from the host speeding up or slowing down under other load.
            after, before = _empty(), _empty() if options.against is not None else None
            trees: list[Path | None] = [None, options.against, options.against, None]
            if options.against is None:
                trees = [None, None]
            async with launch_chromium() as chromium:
                for tree in trees:
                    into = after if tree is None else before
                    assert into is not None
                    await _measure(chromium.ws_url, url, tree, max(1, options.rounds // 2), into)
                return after, before

        after, before = trio.run(run)
    print(f"# Click on a fading modal through stdio MCP, {options.rounds} rounds in blocks A B B A "
          "(2 warm-up rounds each)\n")
    print("| fade ms | open median (p95) ms | open minus fade ms | settled.pageMs median | close median ms | "
          "opaque when answered | " + ("before: open median ms | before: opaque when answered |" if before else ""))
    print("| --- | --- | --- | --- | --- | --- | " + ("--- | --- |" if before else ""))
    still = statistics.median(after[0]["open"])
    for ms in FADES_MS:
        opens = sorted(after[ms]["open"])
        p95 = opens[max(0, int(len(opens) * 0.95) - 1)]
        med = statistics.median(opens)
        row = (f"| {ms} | {med:.1f} ({p95:.1f}) | {med - ms:.1f} ({(med - ms) / still:.2f}x the still click) | "
               f"{statistics.median(after[ms]['page']):.0f} | {statistics.median(after[ms]['close']):.1f} | ")
        row += f"{sum(after[ms]['shown'])}/{len(after[ms]['shown'])} |"
        if before:
            row += (f" {statistics.median(before[ms]['open']):.1f} | "
                    f"{sum(before[ms]['shown'])}/{len(before[ms]['shown'])} |")
        print(row)
    return 0


if __name__ == "__main__":
    sys.exit(main())
