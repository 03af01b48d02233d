"""End to end, through the real server over stdio MCP: frames_list, and snapshots whose
refs reach into a same-origin frame, an out-of-process frame of another site (served
from the second loopback port, as localhost) and a frame nested in that one, where
click, fill, press and verify_* act as in the top document."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from e2e_support import browx_server, fails, ok
from polling import poll_until

pytestmark = pytest.mark.chromium


def ref_on(snapshot: str, line_start: str, after: str = "") -> str:
    """The ref of the first line starting (after indentation) with ``line_start``,
    looking only below the first line that contains ``after``."""
    lines = snapshot.split("\n")
    if after:
        lines = lines[next(i for i, line in enumerate(lines) if after in line):]
    for line in lines:
        if line.strip().startswith(line_start):
            found = re.search(r"\[ref=([a-z0-9]+)\]", line)
            assert found, line
            return found.group(1)
    raise AssertionError(f"no {line_start!r} in\n{snapshot}")


async def test_refs_reach_into_same_origin_and_out_of_process_frames(tmp_path: Path, pages_url: str,
                                                                     pages_url2: str) -> None:
    other_site = pages_url2.replace("127.0.0.1", "localhost")
    page = f"{pages_url}/page_frames.html?other={other_site}"
    async with browx_server(tmp_path / "ws", "eval") as client:
        await ok(client, "navigate", {"url": page})
        await ok(client, "wait_for", {"text": "A page with frames"})

        listed = await ok(client, "frames_list")
        assert listed["count"] == 3, listed
        same, other, nested = listed["frames"]
        assert same.startswith(f"f1 {pages_url}/page_frame_inner.html?who=same") and "(same-origin)" in same
        assert other.startswith(f"f2 {other_site}/page_frame_inner.html?who=other")
        assert "(cross-origin, out-of-process)" in other and nested.startswith("f3 ") and " in f2e" in nested
        details = (await ok(client, "frames_list", {"details": True}))["frames"]
        assert [(d["id"], d["parent"], d["sameOrigin"], d["outOfProcess"]) for d in details] == [
            ("f1", None, True, False), ("f2", None, False, True), ("f3", "f2", False, True)]

        snap = (await ok(client, "snapshot"))["snapshot"]
        assert 'heading "Frame same"' in snap and 'heading "Frame other"' in snap and 'heading "Frame nested"' in snap
        # Each frame's lines sit under its iframe's line; top-document refs stay eN.
        assert re.search(r'^iframe "Same origin" \[ref=e\d+\]\n  heading "Frame same" \[ref=f1e\d+\]', snap, re.M)
        assert re.search(r'^  iframe "Nested" \[ref=f2e\d+\]\n    heading "Frame nested" \[ref=f3e\d+\]', snap, re.M)
        assert re.search(r'^status \[ref=e\d+\]: top untouched', snap, re.M)

        for frame, after in (("f1", "Frame same"), ("f2", "Frame other"), ("f3", "Frame nested")):
            code = ref_on(snap, "textbox", after)
            send = ref_on(snap, "button", after)
            assert code.startswith(frame) and send.startswith(frame)
            filled = await ok(client, "fill", {"ref": code, "value": f"code {frame}"})
            assert filled["target"]["ref"] == code and "input" not in filled["settled"]  # the server's own input
            await ok(client, "verify_value", {"ref": code, "value": f"code {frame}"})
            clicked = await ok(client, "click", {"ref": send})
            assert clicked["target"]["name"] == "Send"
        after = (await ok(client, "snapshot"))["snapshot"]
        for who, frame in (("same", "f1"), ("other", "f2"), ("nested", "f3")):
            assert f"status [ref={frame}e" in after and f": sent code {frame} from {who}" in after, after

        # Playwright's path reaches into frames too (press acts through it).
        code = ref_on(after, "textbox", "Frame other")
        await ok(client, "press", {"ref": code, "key": "End"})
        await ok(client, "press", {"ref": code, "key": "X"})
        await ok(client, "verify_value", {"ref": code, "value": "code f2X"})
        await ok(client, "verify_visible", {"ref": ref_on(after, "heading", "Frame nested")})
        scoped = (await ok(client, "snapshot", {"scope": ref_on(after, "heading", "Frame other")}))["snapshot"]
        assert scoped.startswith('heading "Frame other" [ref=f2e')
        found = await ok(client, "find", {"role": "button", "scope": ref_on(after, "heading", "Frame other")})
        assert found["count"] == 0 or all(m["ref"].startswith("f2") for m in found["matches"])

        # A frame that is gone answers stale-element; top-document refs never moved.
        await ok(client, "eval_js", {"expr": "document.getElementById('same').remove()"})
        stale = await fails(client, "click", {"ref": ref_on(after, "button", "Frame same")}, "stale-element")
        assert "take a new snapshot" in stale["error"]
        assert (await ok(client, "frames_list"))["count"] == 2
        assert ref_on(after, "status [ref=e") == ref_on((await ok(client, "snapshot"))["snapshot"], "status [ref=e")


async def test_a_control_its_parent_frame_scrolls_out_of_view_is_reached(tmp_path: Path, pages_url: str,
                                                                        pages_url2: str) -> None:
    # The nested frame's Send button is in view in its own document but below the part
    # of the out-of-process frame around it that shows: input at its point would land on
    # the top page. The click scrolls the frames above to it first, then lands.
    other_site = pages_url2.replace("127.0.0.1", "localhost")
    async with browx_server(tmp_path / "ws", "eval") as client:
        await ok(client, "navigate", {"url": f"{pages_url}/page_frames.html?other={other_site}"})
        await ok(client, "wait_for", {"text": "A page with frames"})

        async def loaded() -> str | None:
            text: str = (await ok(client, "snapshot"))["snapshot"]
            return text if 'heading "Frame nested"' in text else None

        snap = await poll_until(loaded, interval=0.1, timeout=10)
        send = ref_on(snap, "button", "Frame nested")
        assert send.startswith("f3")
        clicked = await ok(client, "click", {"ref": send})
        assert "input" not in clicked["settled"] and clicked["target"]["name"] == "Send"  # the server's own input
        after = (await ok(client, "snapshot"))["snapshot"]
        assert re.search(r"status \[ref=f3e\d+\]: sent from nested", after), after
        assert re.search(r"status \[ref=f2e\d+\]: nothing sent", after) and "status [ref=e" in after


async def test_a_snapshot_with_frames_keeps_to_max_nodes(tmp_path: Path, pages_url: str, pages_url2: str) -> None:
    # Frames are read a generation at a time, all at once; each is stitched in cut to what
    # the lines before it left, so the text keeps to maxNodes and its first lines are there.
    other_site = pages_url2.replace("127.0.0.1", "localhost")
    async with browx_server(tmp_path / "ws") as client:
        await ok(client, "navigate", {"url": f"{pages_url}/page_frames.html?other={other_site}"})

        async def loaded() -> str | None:
            text: str = (await ok(client, "snapshot"))["snapshot"]
            return text if 'heading "Frame nested"' in text else None

        whole = await poll_until(loaded, interval=0.1, timeout=10)
        lines = whole.split("\n")
        assert len(lines) == 17, whole  # the top 4, the same-origin frame 4, the other 5, the nested 4
        for limit in (9, 12, 16):  # the other site's frame cut to 1 line, to 4, the nested one to 3
            cut = (await ok(client, "snapshot", {"maxNodes": limit}))["snapshot"]
            assert cut == "\n".join(lines[:limit]), (limit, cut)


async def test_a_control_in_a_frame_is_pressed_only_where_the_page_lets_a_pointer_reach_it(
        tmp_path: Path, pages_url: str) -> None:
    # Each button is in view and on top in its own frame, but the top page does not let a
    # pointer reach it at the point its frame's agent gives: one frame is scrolled out of
    # its container's view, one is drawn at half size, one turned, one lies under a cookie
    # banner. Input there would press a neighbour, the frame's own background or the
    # banner; the click scales, scrolls or leaves it to Playwright, and presses the button.
    async with browx_server(tmp_path / "ws", "eval") as client:
        await ok(client, "navigate", {"url": f"{pages_url}/page_frames_reach.html"})

        async def loaded() -> str | None:
            text: str = (await ok(client, "snapshot"))["snapshot"]
            return text if text.count('button "Press"') == 4 else None

        snap = await poll_until(loaded, interval=0.1, timeout=10)
        refs = dict(zip(("clipped", "scaled", "rotated", "covered"),
                        re.findall(r'button "Press" \[ref=(f\d+e\d+)\]', snap), strict=True))
        status = "document.getElementById('status').textContent"
        # The premise: in the top page, the covered frame's button lies under the banner.
        under = ("(() => { const f = document.getElementById('covered').getBoundingClientRect(); "
                 "const at = document.elementFromPoint(f.x + 2 + 30, f.y + 2 + 70); return at && at.id; })()")
        assert (await ok(client, "eval_js", {"expr": under}))["value"] == "banner"
        for who, way in (("clipped", "cdp"), ("scaled", "cdp"), ("rotated", "playwright"), ("covered", None)):
            clicked = await ok(client, "click", {"ref": refs[who]})
            assert await ok(client, "eval_js", {"expr": status}) == {"ok": True, "value": f"clicked {who}"}, who
            # (Under the banner, the first aim's scroll may take the banner away before the
            # second aim looks, or after: either way the button is what is pressed.)
            # The server's own input (CDP) goes unsaid; Playwright's is named.
            assert way is None or clicked["settled"].get("input") == (None if way == "cdp" else way), \
                (who, clicked["settled"])
        assert (await ok(client, "eval_js", {"expr": "document.getElementById('scroller').scrollTop > 0"}))["value"]
