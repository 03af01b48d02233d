"""What the page agent itself costs per action, timed inside the page: this checkout's
agent against another's (``--against DIR``), in the same browser, in the same run.

The MCP latency benchmark times whole calls, whose spread on a shared 2-core host is
tens of milliseconds; the agent's own work is fractions of one. Here two contexts of
one headless Chromium load the same page (a form and 200 links), one with each agent
as its init script, and each sample runs, inside the page, 20 times over:

* ``aim`` for a click on the form's button (mark, find, actionability, reachability);
* the click's settle read: the button's handler, one task turn, then the page's own
  update (``quiet``, this checkout only; the page has nothing under way) and the
  changes since the mark;
* a whole snapshot.

Samples alternate between the two agents. Read the difference, not the absolute
figures: ``performance.now()`` is coarsened to 0.1 ms, hence the 20 repetitions.

Run: ``python -m benchmarks.agent_cost --against DIR`` (``git archive <commit> | tar
-x -C DIR``).
"""

from __future__ import annotations

import argparse
import re
import statistics
import sys
import tempfile
from pathlib import Path

from browx_actors.demo import serve_directory
from browx_actors.sessions.chromium.agent.source import MODULES, join_modules

REPEAT = 20
SAMPLES = 200
KEY = "window['__browxAgent_v1']"

PAGE = """<!doctype html><html><head><title>links</title></head><body>
<h1>Directory</h1>
<form aria-label="Search"><label>Query <input id="q" name="q"></label>
<button type="button" id="go" onclick="out.textContent = 'searched ' + q.value">Search</button></form>
<p id="out" role="status"></p>
<ul>{links}</ul></body></html>"""

SAMPLE = f"""async ([repeat, quiet]) => {{
  const a = {KEY};
  const now = () => performance.now();
  let t = now();
  for (let i = 0; i < repeat; i++) a.aim({{selector: '#go', mode: 'click', acting: true}});
  const aim = (now() - t) / repeat;
  let settle = 0;
  for (let i = 0; i < repeat; i++) {{
    a.mark();
    document.getElementById('go').click();
    await new Promise(r => setTimeout(r, 0));
    t = now();
    if (quiet) await a.quiet({{budgetMs: 2000}});
    a.changes({{limit: 20}});
    a.describe(a.refFor(document.getElementById('go')));
    settle += now() - t;
  }}
  t = now();
  for (let i = 0; i < repeat; i++) a.snapshot({{}});
  return [aim, settle / repeat, (now() - t) / repeat];
}}"""


def agent_of(tree: Path) -> str:
    """A checkout's agent, joined from its modules as its loader would (its own order
    when it lists one, this one's otherwise)."""
    folder = tree / "browx_actors" / "sessions" / "chromium" / "agent"
    listed = re.search(r"^MODULES[^=]*= \(([^)]*)\)", (folder / "source.py").read_text(encoding="utf-8"), re.M)
    order = re.findall(r'"([\w-]+\.js)"', listed.group(1)) if listed else MODULES
    return join_modules((folder / name).read_text(encoding="utf-8") for name in order)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--against", type=Path, required=True, metavar="DIR", help="the other checkout")
    parser.add_argument("--samples", type=int, default=SAMPLES, help=f"samples per agent (default {SAMPLES})")
    options = parser.parse_args()
    from playwright.sync_api import sync_playwright

    from browx_actors.cdp.launcher import find_chromium

    agents = {"before": agent_of(options.against), "after": agent_of(Path(__file__).resolve().parents[1])}
    links = "".join(f'<li><a href="/item/{i}">Item number {i}</a></li>' for i in range(200))
    results: dict[str, list[list[float]]] = {name: [[], [], []] for name in agents}
    with tempfile.TemporaryDirectory() as tmp, serve_directory(Path(tmp)) as base, sync_playwright() as p:
        (Path(tmp) / "links.html").write_text(PAGE.format(links=links))
        browser = p.chromium.launch(executable_path=find_chromium(),
                                    args=["--no-sandbox", "--disable-gpu", "--disable-background-networking"])
        pages = {}
        for name, source in agents.items():
            context = browser.new_context(viewport={"width": 1280, "height": 720})
            context.add_init_script(source)
            page = context.new_page()
            page.goto(f"{base}/links.html")
            page.evaluate(f"() => {KEY}.snapshot({{}})")
            pages[name] = page
        for i in range(options.samples + 10):
            for name in (("before", "after") if i % 2 else ("after", "before")):
                sample = pages[name].evaluate(SAMPLE, [REPEAT, name == "after"])
                if i >= 10:
                    for slot, value in enumerate(sample):
                        results[name][slot].append(value)
        browser.close()
    print(f"# Page agent cost inside the page, {options.samples} samples of {REPEAT} repetitions per agent, "
          "alternating (page: a form and 200 links)\n")
    print("| step | before median ms | after median ms | after - before ms |")
    print("| --- | --- | --- | --- |")
    for slot, step in enumerate(("aim (click)", "settle read (click)", "snapshot")):
        before = statistics.median(results["before"][slot])
        after = statistics.median(results["after"][slot])
        print(f"| {step} | {before:.3f} | {after:.3f} | {after - before:+.3f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
