"""Page-level tools of the chromium engine: navigation, screenshots, viewport, eval, waits.

Screenshots go through the session's raw CDP flat session (``Page.captureScreenshot``
with a clip and a scale), which lets one call cap the longest side of any capture so no
result exceeds what agent hosts accept, without decoding and re-encoding the image.
"""

from __future__ import annotations

import base64
import json
import time
from typing import Any

import trio
from playwright.async_api import Error as PlaywrightError
from playwright.async_api import TimeoutError as PlaywrightTimeout

from ..actor import Later, ToolError
from ..cdp import CdpFailure
from ..server.mcp_stdio import ToolOutput
from ..workspace import resolve_in_workspace
from .chromium import ChromiumSession, first_line
from .web_target import resolve_target

__all__ = ["eval_js", "go_back", "go_forward", "navigate", "screenshot", "set_viewport", "wait_for"]

_SCHEMES = ("http://", "https://", "file://", "about:", "data:")


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
        return await session.pw(session.page.title)
    return title if isinstance(title, str) else ""


async def _navigation_result(session: ChromiumSession, action: str, from_url: str,
                             response: Any, started: float, console_seq: int) -> dict[str, Any]:
    page = session.page
    return {
        "ok": True,
        "action": action,
        "navigation": {"changed": page.url != from_url, "from": from_url, "to": page.url},
        "status": None if response is None else response.status,
        "title": await _title(session),
        "console": session.console.since(console_seq, errors_only=True),
        "settled": {"by": "load-state", "totalMs": round((time.perf_counter() - started) * 1000, 1)},
        "warnings": [],
    }


async def navigate(session: ChromiumSession, args: dict[str, Any]) -> dict[str, Any]:
    url = args["url"]
    if not url.startswith(_SCHEMES):
        if "://" in url:
            raise ToolError("bad-arg", f"unsupported URL scheme in {url!r}", field="url")
        url = "https://" + url
    page = session.page
    from_url = page.url
    console_seq = session.console.last_seq
    started = time.perf_counter()
    try:
        response = await session.pw(page.goto, url, wait_until=args["waitUntil"],
                                    timeout=args["timeoutMs"])
    except PlaywrightTimeout as err:
        raise ToolError("timeout", f"navigate to {url}: {first_line(err)}") from err
    except PlaywrightError as err:
        raise ToolError("navigation-failed", f"navigate to {url}: {first_line(err)}", url=url) from err
    return await _navigation_result(session, "navigate", from_url, response, started, console_seq)


async def _history(session: ChromiumSession, direction: str) -> dict[str, Any]:
    page = session.page
    from_url = page.url
    console_seq = session.console.last_seq
    started = time.perf_counter()
    go = page.go_back if direction == "back" else page.go_forward
    try:
        response = await session.pw(go, wait_until="load", timeout=30_000)
    except PlaywrightTimeout as err:
        raise ToolError("timeout", f"go {direction}: {first_line(err)}") from err
    except PlaywrightError as err:
        raise ToolError("navigation-failed", f"go {direction}: {first_line(err)}") from err
    result = await _navigation_result(session, f"go_{direction}", from_url, response, started, console_seq)
    if not result["navigation"]["changed"] and response is None:
        result["warnings"].append(f"there was no page to go {direction} to")
    return result


async def go_back(session: ChromiumSession, args: dict[str, Any]) -> dict[str, Any]:
    return await _history(session, "back")


async def go_forward(session: ChromiumSession, args: dict[str, Any]) -> dict[str, Any]:
    return await _history(session, "forward")


async def set_viewport(session: ChromiumSession, args: dict[str, Any]) -> dict[str, Any]:
    size = {"width": args["width"], "height": args["height"]}
    await session.pw(session.page.set_viewport_size, size)
    return {"ok": True, "viewport": size}


# -- screenshots ----------------------------------------------------------------------


async def _element_box(session: ChromiumSession, args: dict[str, Any]) -> dict[str, float]:
    element = await resolve_target(session, args, [])

    async def box() -> dict[str, float]:
        await element.scroll_into_view_if_needed(timeout=10_000)
        found = await element.bounding_box()
        if found is None:
            raise ToolError("not-visible", "the element has no visible box to capture")
        return found

    return await session.pw(box)


async def screenshot(session: ChromiumSession, args: dict[str, Any]) -> ToolOutput:
    targets = [n for n in ("ref", "selector", "region") if args.get(n) is not None]
    if len(targets) > 1:
        raise ToolError("bad-arg", "give at most one of ref, selector, region", field=targets[1])
    if targets and args["fullPage"]:
        raise ToolError("bad-arg", "fullPage captures the whole page; drop it to capture a part",
                        field="fullPage")
    fmt = args["format"]
    metrics = await session.cdp.send("Page.getLayoutMetrics")
    viewport = metrics["cssVisualViewport"]
    if args.get("region"):
        r = args["region"]
        clip = {"x": r["x"] + viewport["pageX"], "y": r["y"] + viewport["pageY"],
                "width": r["width"], "height": r["height"]}
    elif targets:
        box = await _element_box(session, args)
        metrics = await session.cdp.send("Page.getLayoutMetrics")
        viewport = metrics["cssVisualViewport"]
        clip = {"x": box["x"] + viewport["pageX"], "y": box["y"] + viewport["pageY"],
                "width": box["width"], "height": box["height"]}
    elif args["fullPage"]:
        content = metrics["cssContentSize"]
        clip = {"x": 0, "y": 0, "width": content["width"], "height": content["height"]}
    else:
        clip = {"x": viewport["pageX"], "y": viewport["pageY"],
                "width": viewport["clientWidth"], "height": viewport["clientHeight"]}
    if clip["width"] < 1 or clip["height"] < 1:
        raise ToolError("bad-arg", "the area to capture is empty", field=targets[0] if targets else "region")
    cap = args["maxDimension"]
    scale = min(1.0, cap / max(clip["width"], clip["height"]))
    params: dict[str, Any] = {
        "format": fmt,
        "clip": {**clip, "scale": scale},
        "captureBeyondViewport": bool(args["fullPage"] or targets),
    }
    if fmt == "jpeg":
        params["quality"] = args["quality"]
    reply = await session.cdp.send("Page.captureScreenshot", params, timeout=60)
    data = base64.b64decode(reply["data"])
    width, height = round(clip["width"] * scale), round(clip["height"] * scale)
    envelope: dict[str, Any] = {
        "ok": True, "format": fmt, "width": width, "height": height, "byteLength": len(data),
        "scale": round(scale, 4), "warnings": [],
    }
    if scale < 1:
        envelope["warnings"].append(
            f"scaled by {scale:.3f} so the longest side fits maxDimension={cap}"
        )
    if args.get("path"):
        target = resolve_in_workspace(session.workspace, args["path"])
        await trio.to_thread.run_sync(_write_file, target, data)
        envelope["path"] = str(target)
    return ToolOutput(envelope, ((f"image/{fmt}", data),))


def _write_file(path: Any, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)


# -- eval and waits -------------------------------------------------------------------


async def eval_js(session: ChromiumSession, args: dict[str, Any]) -> dict[str, Any]:
    try:
        value = await session.pw(session.page.evaluate, args["expr"])
    except PlaywrightError as err:
        raise ToolError("eval-error", first_line(err)) from err
    if args["returnType"] == "void":
        return {"ok": True, "value": None}
    size = len(json.dumps(value, default=str))
    if size > args["maxBytes"]:
        raise ToolError("too-large", f"the value is {size} bytes of JSON, above maxBytes={args['maxBytes']}",
                        sizeBytes=size)
    return {"ok": True, "value": value}


async def wait_for(session: ChromiumSession, args: dict[str, Any]) -> Later:
    """Waits run as a task in the session's nursery, so the session keeps serving."""
    conditions = [n for n in ("text", "textGone", "selector", "ref", "url") if args.get(n) is not None]
    if len(conditions) != 1:
        raise ToolError("bad-arg", "give exactly one of text, textGone, selector, ref, url",
                        field=conditions[1] if conditions else "text")
    return Later.of(_wait, session, args, conditions[0])


async def _wait(session: ChromiumSession, args: dict[str, Any], condition: str) -> dict[str, Any]:
    page = session.page
    timeout = args["timeoutMs"]
    state = args["state"]
    started = time.perf_counter()

    async def wait() -> None:
        if condition == "text":
            await page.get_by_text(args["text"]).first.wait_for(state=state, timeout=timeout)
        elif condition == "textGone":
            await page.get_by_text(args["textGone"]).first.wait_for(state="hidden", timeout=timeout)
        elif condition == "selector":
            await page.locator(args["selector"]).first.wait_for(state=state, timeout=timeout)
        elif condition == "url":
            await page.wait_for_url(args["url"], timeout=timeout)
        else:
            from .pageagent import AGENT_KEY

            await page.wait_for_function(
                f"([ref, want]) => {{ const a = window[{AGENT_KEY!r}]; const el = a && a.resolve(ref);"
                " const vis = !!el && a.describe(el).visible;"
                " return want === 'visible' ? vis : want === 'hidden' ? !vis :"
                " want === 'attached' ? !!el : !el; }",
                arg=[args["ref"], state], timeout=timeout,
            )

    try:
        await session.pw(wait)
    except PlaywrightTimeout as err:
        raise ToolError("timeout", f"waited {timeout} ms for {condition} ({state}): not met") from err
    except PlaywrightError as err:
        message = first_line(err)
        if condition in ("selector", "url") and "has been closed" not in message:
            raise ToolError("bad-arg", f"wait_for {condition}: {message}", field=condition) from err
        raise ToolError("page-error", f"wait_for {condition}: {message}") from err
    return {"ok": True, "condition": condition, "state": state,
            "waitedMs": round((time.perf_counter() - started) * 1000, 1), "url": page.url}
