"""What the Playwright relay costs a call: Playwright through ``cdp/relay.py`` vs its own socket.

An attach (``--cdp-endpoint``, ``open_session {cdpEndpoint}``) opens one socket, since a
fleet's endpoint starts a browser per socket, and Playwright reaches the browser through
a loopback relay over it: one more websocket hop each way, an id renamed on the way out
and on the way back. Measured in the same run, against the same Chromium, with two
Playwright connections, one direct and one through the relay, and a page on each:

* ``page.evaluate('1+1')``: one small round trip, where the hop is all the difference;
* ``page.screenshot()`` of a page of noise: a reply of some MiB, which the relay renames
  without parsing it.

Both paths are sampled in alternating batches so drift lands on both. Run from the repo
root: ``python -m benchmarks.playwright_relay``.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Awaitable, Callable

import trio

from browx_actors.cdp import launch_chromium, open_cdp_connection
from browx_actors.cdp.relay import open_playwright_relay
from browx_actors.sessions.chromium.bridge.aiobridge import open_asyncio_thread
from browx_actors.sessions.chromium.bridge.driver import PlaywrightDriver

N = 300
WARMUP = 50
BATCH = 10
SHOTS = 40
TARGET_RATIO = 1.5
#: Noise, which PNG cannot compress: a screenshot of some MiB, as a busy page's is.
PAGE = ("data:text/html,<body style='margin:0'><canvas id=c width=1280 height=720></canvas><script>"
        "const x=c.getContext('2d'),d=x.createImageData(1280,720);"
        "for(let i=0;i<d.data.length;i++)d.data[i]=i%4==3?255:Math.random()*256|0;x.putImageData(d,0,0)</script>")


async def _sample(call: Callable[[], Awaitable[object]], count: int, into: list[float]) -> None:
    for _ in range(count):
        start = time.perf_counter_ns()
        await call()
        into.append((time.perf_counter_ns() - start) / 1000)


async def _alternate(direct: Callable[[], Awaitable[object]], relayed: Callable[[], Awaitable[object]],
                     count: int, warmup: int) -> tuple[list[float], list[float]]:
    await _sample(direct, warmup, [])
    await _sample(relayed, warmup, [])
    direct_samples: list[float] = []
    relayed_samples: list[float] = []
    for _ in range(max(1, count // BATCH)):
        await _sample(direct, BATCH, direct_samples)
        await _sample(relayed, BATCH, relayed_samples)
    return direct_samples, relayed_samples


async def main() -> None:
    async with (
        open_asyncio_thread() as bridge,
        launch_chromium() as browser,
        open_cdp_connection(browser.ws_url) as cdp,
        open_playwright_relay(cdp) as relay_url,
    ):
        driver = PlaywrightDriver(bridge)
        try:
            direct_browser = await driver.connect_over_cdp(browser.ws_url)
            relayed_browser = await driver.connect_over_cdp(relay_url)
            direct_page = await bridge.run(direct_browser.new_page)
            relayed_page = await bridge.run(relayed_browser.new_page)
            for page in (direct_page, relayed_page):
                await bridge.run(page.goto, PAGE)

            async def evaluate(page: object) -> object:
                return await bridge.run(page.evaluate, "1+1")  # type: ignore[attr-defined]

            async def screenshot(page: object) -> object:
                return await bridge.run(page.screenshot)  # type: ignore[attr-defined]

            size = len(await screenshot(relayed_page))  # type: ignore[arg-type]
            rows = {
                "evaluate '1+1'": await _alternate(lambda: evaluate(direct_page), lambda: evaluate(relayed_page),
                                                   N, WARMUP),
                f"screenshot ({size / 2**20:.1f} MiB png)": await _alternate(
                    lambda: screenshot(direct_page), lambda: screenshot(relayed_page), SHOTS, 5),
            }
            for page in (direct_page, relayed_page):
                await bridge.run(page.close)
            for connected in (direct_browser, relayed_browser):
                await bridge.run(connected.close)
        finally:
            await driver.aclose()
    print(f"Playwright through the relay vs its own socket, same Chromium, alternating batches of {BATCH}")
    print(f"{'call':<26} {'direct med us':>14} {'relay med us':>13} {'ratio':>7} {'added us':>9}")
    for name, (direct, relayed) in rows.items():
        d, r = statistics.median(direct), statistics.median(relayed)
        print(f"{name:<26} {d:>14.0f} {r:>13.0f} {r / d:>6.2f}x {r - d:>9.0f}")
    ratio = statistics.median(rows["evaluate '1+1'"][1]) / statistics.median(rows["evaluate '1+1'"][0])
    verdict = "within" if ratio <= TARGET_RATIO else "OVER"
    print(f"evaluate median ratio {verdict} the {TARGET_RATIO}x target")


if __name__ == "__main__":
    trio.run(main)
