"""Page-level tools of the chromium engine: navigation, screenshots, viewport, emulation, eval,
waits.

Screenshots go through the session's raw CDP flat session (``Page.captureScreenshot``
with a clip and a scale), which lets one call cap the longest side of any capture so no
result exceeds what agent hosts accept, without decoding and re-encoding the image.
"""

from __future__ import annotations

import base64
import contextlib
import json
import time
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import FloatRect, Page, Response
from playwright.async_api import TimeoutError as PlaywrightTimeout

from ....cdp import CdpError, CdpFailure, TargetLink
from ....errors import ToolError
from ....jsonsafe import JsonObject, dates_as_text
from ....kernel.actor import Later
from ....tools import Reply
from ....tools.contract import SessionArgs
from ....tools.navigation import WEB_SCHEMES, NavigateArgs, url_to_load
from ....tools.page import (
    EMULATED,
    EmulateArgs,
    EvalJsArgs,
    ScreenshotArgs,
    ScreenshotRegionArgs,
    SetViewportArgs,
    WaitForArgs,
)
from ....tools.shapes import Rect
from ....tools.targets import Element
from ....workspace import file_to_write, save_file
from ..agent.pageagent import AGENT_KEY
from ..failures import is_selector_error, selector_refusal
from ..input.target import resolve_target
from ..losses import first_line

if TYPE_CHECKING:
    from ..session import ChromiumSession

__all__ = ["emulate", "eval_js", "go_back", "go_forward", "navigate", "screenshot", "screenshot_region", "set_viewport",
           "wait_for"]

#: How long go_back / go_forward wait for the page they land on.
HISTORY_TIMEOUT_MS = 30_000


async def _title(session: ChromiumSession) -> str:
    """The new document's title, as the browser process holds it.

    ``Page.getNavigationHistory`` is answered by the browser process from the current
    history entry, whose title the page keeps up to date (``document.title``, empty
    when the page sets none). Asking the page itself means waiting behind the first
    rendering of the new document (about 10 ms on a 2-core host for a page of 200
    links), and Playwright's ``page.title()`` first builds a utility world in it
    (about 20 ms).
    """
    try:
        history = await session.cdp.send("Page.getNavigationHistory")
        title = history["entries"][history["currentIndex"]].get("title")
    except (CdpFailure, KeyError, IndexError, TypeError):  # the tab is closing: ask Playwright
        asked: str = await session.pw(session.page.title)
        return asked
    return title if isinstance(title, str) else ""


async def _document_of(session: ChromiumSession) -> float | None:
    """The current document's identity: its ``performance.timeOrigin``, which a new
    document gets and a same-document navigation (pushState, a hash) keeps."""
    return (await _document_and_url(session))[0]


async def _document_and_url(session: ChromiumSession) -> tuple[float | None, str | None]:
    """The document's identity and its own ``location.href``, in one round trip (the
    page's word on its URL: Playwright's may lag a history step just taken)."""
    try:
        reply = await session.cdp.send("Runtime.evaluate", {"expression": "[performance.timeOrigin, location.href]",
                                                            "returnByValue": True})
    except CdpFailure:
        return None, None
    value = reply.get("result", {}).get("value")
    if not isinstance(value, list) or len(value) != 2:
        return None, None
    origin, href = value
    return (origin if isinstance(origin, (int, float)) else None), (href if isinstance(href, str) else None)


def _fragment_only(url: str, current: str) -> bool:
    """Loading ``url`` from ``current`` can only be a same-document navigation."""
    return "#" in url and url.split("#", 1)[0] == current.split("#", 1)[0]


async def _navigation_result(session: ChromiumSession, action: str, from_url: str,
                             response: Response | None, started: float, console_seq: int,
                             document: float | None = None) -> Reply:
    """Where the tab is now (``url``), ``sameDocument`` when no load happened, the
    document's response ``status`` (none without one), its ``title``, the console errors
    logged meanwhile (when any) and ``settled``. ``document`` is the identity of the
    document before (None: not taken); a navigation that kept it was same-document."""
    page = session.page
    to_url = page.url
    same_document = False
    if response is None and document is not None:
        now, href = await _document_and_url(session)
        same_document = now == document
        if same_document and href is not None:
            to_url = href
    reply = Reply.of(url=to_url)
    if same_document:
        reply["sameDocument"] = True
    if response is not None:
        reply["status"] = response.status
    reply["title"] = await _title(session)
    console = session.console.since(console_seq, errors_only=True)
    if console:
        reply["console"] = console
    reply["settled"] = {"by": "same-document" if same_document else "load-state",
                        "ms": round((time.perf_counter() - started) * 1000, 1)}
    if to_url == from_url and response is None and action != "navigate":
        reply.warn(f"there was no page to {action.replace('_', ' ')} to")
    return reply


async def navigate(session: ChromiumSession, args: NavigateArgs) -> Reply:
    url = url_to_load(str(args.url))
    if not url.startswith(WEB_SCHEMES):
        raise ToolError("not-supported", f"chromium loads http(s), about and data URLs; {url!r} is an app "
                        "deep link, which android-app and ios-app sessions open", engine="chromium", url=url)
    page = session.page
    from_url = page.url
    console_seq = session.console.last_seq
    started = time.perf_counter()
    document = await _document_of(session) if _fragment_only(url, from_url) else None
    try:
        response = await session.pw(page.goto, url, wait_until=args.wait_until,
                                    timeout=args.timeout_ms)
    except PlaywrightTimeout as err:
        raise ToolError("timeout", f"navigate to {url}: {first_line(err)}") from err
    except PlaywrightError as err:
        raise ToolError("navigation-failed", f"navigate to {url}: {first_line(err)}", url=url) from err
    return await _navigation_result(session, "navigate", from_url, response, started, console_seq, document)


async def _history(session: ChromiumSession, direction: str) -> Reply:
    page = session.page
    from_url = page.url
    console_seq = session.console.last_seq
    started = time.perf_counter()
    document = await _document_of(session)
    go = page.go_back if direction == "back" else page.go_forward
    try:
        response = await session.pw(_step_history, page, go, HISTORY_TIMEOUT_MS)
    except PlaywrightTimeout as err:
        raise ToolError("timeout", f"go {direction}: {first_line(err)}") from err
    except PlaywrightError as err:
        raise ToolError("navigation-failed", f"go {direction}: {first_line(err)}") from err
    return await _navigation_result(session, f"go_{direction}", from_url, response, started, console_seq, document)


async def _step_history(page: Page, go: Callable[..., Awaitable[Response | None]],
                        timeout_ms: float) -> Response | None:
    """Go back or forward and wait for the page's load, on the Playwright thread.

    A page a browser we did not launch restores from its back-forward cache (ours has
    it off) fires no load event again: waiting for ``load`` would hang. So the step
    waits for the commit, and then for ``load`` only while the document is not
    complete yet."""
    response = await go(wait_until="commit", timeout=timeout_ms)
    with contextlib.suppress(PlaywrightError):  # replaced again meanwhile: wait for it
        if await page.evaluate("document.readyState") == "complete":
            return response
    await page.wait_for_load_state("load", timeout=timeout_ms)
    return response


async def go_back(session: ChromiumSession, args: SessionArgs) -> Reply:
    return await _history(session, "back")


async def go_forward(session: ChromiumSession, args: SessionArgs) -> Reply:
    return await _history(session, "forward")


async def set_viewport(session: ChromiumSession, args: SetViewportArgs) -> Reply:
    size = {"width": args.width, "height": args.height}
    await session.pw(session.page.set_viewport_size, size)
    return Reply.of(viewport=size)


# -- screenshots ----------------------------------------------------------------------


async def _element_box(session: ChromiumSession, target: Element, reply: Reply) -> FloatRect:
    element = await resolve_target(session, target, reply)

    async def box() -> FloatRect:
        await element.scroll_into_view_if_needed(timeout=10_000)
        found = await element.bounding_box()
        if found is None:
            raise ToolError("not-visible", "the element has no visible box to capture")
        return found

    return await session.pw(box)


async def screenshot(session: ChromiumSession, args: ScreenshotArgs) -> Reply:
    return await _capture(session, args)


async def screenshot_region(session: ChromiumSession, args: ScreenshotRegionArgs) -> Reply:
    """A screenshot of the region: the capture ``screenshot {region}`` makes, with the
    format, size cap and path asked for."""
    region: Rect = {"x": args.x, "y": args.y, "width": args.width, "height": args.height}
    return await _capture(session, ScreenshotArgs(session=args.session, format=args.format, quality=args.quality,
                                                  region=region, max_dimension=args.max_dimension, path=args.path))


async def _capture(session: ChromiumSession, args: ScreenshotArgs) -> Reply:
    """One capture: the viewport, the full page, the element or the region ``args`` name."""
    named = (("ref", args.ref), ("selector", args.selector), ("region", args.region))
    targets = [name for name, value in named if value is not None]
    fmt = args.format
    reply = Reply(warnings=[])
    # A path the workspace refuses is refused before anything is captured.
    target = file_to_write(session.workspace, args.path) if args.path else None
    metrics = await session.cdp.send("Page.getLayoutMetrics")
    viewport = metrics["cssVisualViewport"]
    if args.region:
        r = args.region
        clip = {"x": r["x"] + viewport["pageX"], "y": r["y"] + viewport["pageY"],
                "width": r["width"], "height": r["height"]}
    elif targets:
        box = await _element_box(session, args, reply)
        metrics = await session.cdp.send("Page.getLayoutMetrics")
        viewport = metrics["cssVisualViewport"]
        clip = {"x": box["x"] + viewport["pageX"], "y": box["y"] + viewport["pageY"],
                "width": box["width"], "height": box["height"]}
    elif args.full_page:
        content = metrics["cssContentSize"]
        clip = {"x": 0, "y": 0, "width": content["width"], "height": content["height"]}
    else:
        clip = {"x": viewport["pageX"], "y": viewport["pageY"],
                "width": viewport["clientWidth"], "height": viewport["clientHeight"]}
    if clip["width"] < 1 or clip["height"] < 1:
        raise ToolError("bad-arg", "the area to capture is empty", field=targets[0] if targets else "region")
    cap = args.max_dimension
    scale = min(1.0, cap / max(clip["width"], clip["height"]))
    params: JsonObject = {
        "format": fmt,
        "clip": {**clip, "scale": scale},
        "captureBeyondViewport": bool(args.full_page or targets),
    }
    if fmt == "jpeg":
        params["quality"] = args.quality
    shot = await session.cdp.send("Page.captureScreenshot", params, timeout=60)
    data = base64.b64decode(shot["data"])
    width, height = round(clip["width"] * scale), round(clip["height"] * scale)
    reply.fields.update(format=fmt, width=width, height=height, byteLength=len(data), scale=round(scale, 4))
    if scale < 1:
        reply.warn(f"scaled by {scale:.3f} so the longest side fits maxDimension={cap}")
    if target is not None:
        await save_file(target, data)
        reply["path"] = str(target)
    reply.attach(f"image/{fmt}", data)
    return reply


# -- eval and waits -------------------------------------------------------------------


async def eval_js(session: ChromiumSession, args: EvalJsArgs) -> Reply:
    try:
        value = dates_as_text(await session.pw(session.page.evaluate, args.expr))
    except PlaywrightError as err:
        raise ToolError("eval-error", first_line(err)) from err
    if args.return_type == "void":
        return Reply.of(value=None)
    size = len(json.dumps(value, default=str))
    if size > args.max_bytes:
        raise ToolError("too-large", f"the value is {size} bytes of JSON, above maxBytes={args.max_bytes}",
                        sizeBytes=size)
    return Reply.of(value=value)


async def wait_for(session: ChromiumSession, args: WaitForArgs) -> Later:
    """Waits run as a task in the session's nursery, so the session keeps serving."""
    # The rules let exactly one condition through; it is named in the result by its JSON name.
    conditions = (("text", args.text), ("textGone", args.text_gone), ("selector", args.selector), ("ref", args.ref),
                  ("url", args.url))
    condition, value = next((name, value) for name, value in conditions if value is not None)
    return Later.of(_wait, session, condition, value, args.state, args.timeout_ms)


async def _wait(session: ChromiumSession, condition: str, value: str, state: str, timeout: int) -> Reply:
    """Wait until ``condition`` (its JSON name) on ``value`` reaches ``state``."""
    page = session.page
    started = time.perf_counter()

    async def wait() -> None:
        if condition == "text":
            await page.get_by_text(value).first.wait_for(state=state, timeout=timeout)
        elif condition == "textGone":
            await page.get_by_text(value).first.wait_for(state="hidden", timeout=timeout)
        elif condition == "selector":
            await page.locator(value).first.wait_for(state=state, timeout=timeout)
        elif condition == "url":
            await page.wait_for_url(value, timeout=timeout)
        else:
            await page.wait_for_function(
                f"([ref, want]) => {{ const a = window[{AGENT_KEY!r}]; const el = a && a.resolve(ref);"
                " const vis = !!el && a.describe(el).visible;"
                " return want === 'visible' ? vis : want === 'hidden' ? !vis :"
                " want === 'attached' ? !!el : !el; }",
                arg=[value, state], timeout=timeout,
            )

    try:
        await session.pw(wait)
    except PlaywrightTimeout as err:
        raise ToolError("timeout", f"waited {timeout} ms for {condition} ({state}): not met") from err
    except PlaywrightError as err:
        message = first_line(err)
        if condition == "selector" and is_selector_error(err):
            raise selector_refusal("selector", err) from err
        raise ToolError("page-error", f"wait_for {condition}: {message}") from err
    return Reply.of(condition=condition, state=state, waitedMs=round((time.perf_counter() - started) * 1000, 1),
                    url=page.url)


async def emulate(session: ChromiumSession, args: EmulateArgs) -> Reply:
    emulation = await session.emulation.installed()
    # A dict by JSON name, as the state is kept and reported: a nullable field left out is
    # absent from it, one sent as null is None.
    given = args.json()
    asked = sorted(name for name in EMULATED if name in given)
    changed = set(asked)
    if "network" in given and given["network"] != "custom":
        # Custom conditions go with network custom: any other value, or null, drops them.
        changed.add("networkConditions")
        given["networkConditions"] = None
    previous = dict(emulation.state)
    for name in changed:
        if given[name] is None:
            emulation.state.pop(name, None)
        else:
            emulation.state[name] = given[name]
    page_fields = changed - {"permissions"}
    if page_fields:
        await session.tab_lifecycle.attach_current()
        current = session.tabs.current
        assert current is not None and current.events is not None
        try:
            await emulation.apply(current.events, page_fields)
        except CdpError as err:
            emulation.state = previous
            await emulation.apply(current.events, page_fields)
            field = sorted(page_fields)[0] if len(page_fields) == 1 else "arguments"
            raise ToolError("bad-arg", f"the browser refused it: {err.message}", field=field) from err
        assert session.wiring is not None

        async def others(cdp: TargetLink, kind: str) -> None:
            if cdp is not current.events:
                await emulation.apply(cdp, page_fields)

        await session.wiring.reapply(others)
    if "permissions" in changed:
        await emulation.permissions()
    reply = Reply.of(emulation=dict(emulation.state), changed=asked, warnings=[])
    if emulation.state.get("geolocation") and "geolocation" not in (emulation.state.get("permissions") or ()):
        reply.warn("pages read the emulated position only with the geolocation permission: add it to permissions")
    return reply


