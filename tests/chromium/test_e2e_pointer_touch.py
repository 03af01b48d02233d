"""End to end: the mouse, touch, gesture and drag primitives, through the real server over
stdio MCP, on real headless Chromium. The pages log every pointer, mouse, touch, wheel and
drag event they receive (``tests/pages/input_events.html``); the tests compare the exact
sequence: types, coordinates, buttons, touch identifiers and pointer ids."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from e2e_support import browx_server, fails, ok

pytestmark = pytest.mark.chromium


async def _events(client: Any) -> list[str]:
    """The page's event log since the last read, cleared."""
    got = await ok(client, "eval_js", {"expr": "window.events.splice(0)"})
    return got["value"]


def _pointer_ids(lines: list[str]) -> list[str]:
    """The log with the browser's pointer ids renamed P1, P2... in order of appearance
    (they are the browser's to choose; which finger has which is what counts)."""
    names: dict[str, str] = {}

    def rename(match: re.Match[str]) -> str:
        return "id=" + names.setdefault(match.group(1), f"P{len(names) + 1}")

    return [re.sub(r"id=(\d+)", rename, line) for line in lines]


async def test_the_mouse_as_primitives(tmp_path: Path, pages_url: str) -> None:
    async with browx_server(tmp_path / "ws", "eval") as client:
        await ok(client, "navigate", {"url": f"{pages_url}/input_events.html"})

        # No mouse input has placed the pointer on this tab yet: a target is needed.
        unknown = await fails(client, "mouse_up", {}, "bad-arg")
        assert unknown["field"] == "coords"

        down = await ok(client, "mouse_down", {"coords": {"x": 10, "y": 10}})
        assert down["pointer"] == {"x": 10, "y": 10, "buttons": ["left"]}
        assert down["target"]["name"] == "pad" and "input" not in down["settled"]
        again = await fails(client, "mouse_down", {}, "bad-arg")
        assert again["field"] == "button"
        moved = await ok(client, "mouse_move", {"coords": {"x": 50, "y": 10}, "steps": 2, "durationMs": 100})
        assert moved["moves"] == 2 and moved["movedMs"] >= 100
        up = await ok(client, "mouse_up", {})  # where the pointer is
        assert up["pointer"] == {"x": 50, "y": 10, "buttons": []}
        assert await _events(client) == [
            "pointermove mouse id=1 10,10 b=0 primary", "mousemove 10,10 b=0",
            "pointerdown mouse id=1 10,10 b=1 primary", "mousedown 10,10 button=0 b=1 detail=1",
            "pointermove mouse id=1 30,10 b=1 primary", "mousemove 30,10 b=1",
            "pointermove mouse id=1 50,10 b=1 primary", "mousemove 50,10 b=1",
            "pointerup mouse id=1 50,10 b=0 primary", "mouseup 50,10 button=0 b=0 detail=1",
            "click 50,10 button=0 b=0 detail=1",
        ]

        # A right button press and release at an element's centre, named by selector.
        await ok(client, "mouse_down", {"selector": "#pad", "button": "right"})
        released = await ok(client, "mouse_up", {"button": "right"})
        assert released["pointer"] == {"x": 300, "y": 200, "buttons": []}
        assert await _events(client) == [
            "pointermove mouse id=1 300,200 b=0 primary", "mousemove 300,200 b=0",
            "pointerdown mouse id=1 300,200 b=2 primary", "mousedown 300,200 button=2 b=2 detail=1",
            "contextmenu 300,200 button=2 b=2 detail=0",
            "pointerup mouse id=1 300,200 b=0 primary", "mouseup 300,200 button=2 b=0 detail=1",
        ]

        # A double click where the pointer is (moving there, as every click does first):
        # two presses with rising counts, then dblclick.
        double = await ok(client, "double_click", {})
        assert "action" not in double and "input" not in double["settled"]
        assert await _events(client) == [
            "pointermove mouse id=1 300,200 b=0 primary", "mousemove 300,200 b=0",
            "pointerdown mouse id=1 300,200 b=1 primary", "mousedown 300,200 button=0 b=1 detail=1",
            "pointerup mouse id=1 300,200 b=0 primary", "mouseup 300,200 button=0 b=0 detail=1",
            "click 300,200 button=0 b=0 detail=1",
            "pointerdown mouse id=1 300,200 b=1 primary", "mousedown 300,200 button=0 b=1 detail=2",
            "pointerup mouse id=1 300,200 b=0 primary", "mouseup 300,200 button=0 b=0 detail=2",
            "click 300,200 button=0 b=0 detail=2", "dblclick 300,200 button=0 b=0 detail=2",
        ]

        # hover with a button held since mouse_down moves with it held (the page sees a drag).
        await ok(client, "mouse_down", {"coords": {"x": 40, "y": 40}})
        await ok(client, "hover", {"coords": {"x": 60, "y": 40}})
        assert (await ok(client, "mouse_up", {}))["pointer"] == {"x": 60, "y": 40, "buttons": []}
        assert [line for line in await _events(client) if line.startswith("pointermove")] == [
            "pointermove mouse id=1 40,40 b=0 primary", "pointermove mouse id=1 60,40 b=1 primary"]

        # The wheel over the inner scroller scrolls it, not the page.
        wheel = await ok(client, "mouse_wheel", {"deltaY": 120, "selector": "#scroller"})
        assert wheel["pointer"] == {"x": 950, "y": 95, "buttons": []}
        scrolled = await ok(client, "poll_eval", {"expr": "document.getElementById('scroller').scrollTop",
                                                  "until": "top => top >= 120", "timeoutMs": 5000})
        assert scrolled["value"] == 120
        assert await _events(client) == ["wheel 950,95 dx=0 dy=120 on=div"]
        assert (await ok(client, "eval_js", {"expr": "scrollY"}))["value"] == 0

        # A drag down the mouse pipeline: the pad reads pointer events, no HTML5 drag starts.
        dragged = await ok(client, "drag", {"from": {"x": 100, "y": 350}, "to": {"x": 300, "y": 350},
                                            "steps": 2, "durationMs": 60})
        assert dragged["drag"]["mode"] == "mouse" and dragged["drag"]["moves"] == 2
        assert dragged["pointer"] == {"x": 300, "y": 350, "buttons": []}
        assert await _events(client) == [
            "pointermove mouse id=1 100,350 b=0 primary", "mousemove 100,350 b=0",
            "pointerdown mouse id=1 100,350 b=1 primary", "mousedown 100,350 button=0 b=1 detail=1",
            "pointermove mouse id=1 200,350 b=1 primary", "mousemove 200,350 b=1",
            "pointermove mouse id=1 300,350 b=1 primary", "mousemove 300,350 b=1",
            "pointerup mouse id=1 300,350 b=0 primary", "mouseup 300,350 button=0 b=0 detail=1",
            "click 300,350 button=0 b=0 detail=1",
        ]

        # HTML5 drag and drop: intercepted and driven to the drop zone, with the page's data.
        html5 = await ok(client, "drag", {"from": {"selector": "#source"}, "to": {"selector": "#dropzone"},
                                          "steps": 4, "durationMs": 80})
        assert html5["drag"]["mode"] == "html5" and html5["drag"]["types"] == ["text/plain"]
        assert html5["target"]["text"] == "Drag me" and html5["drag"]["dropTarget"]["text"] == "Drop here"
        assert html5["drag"]["to"] == {"x": 730, "y": 250}
        assert await _events(client) == ["dragstart 690,40", "dragenter 730,250", "dragover 730,250",
                                         "drop 730,250 data=payload-42", "dragend effect=copy"]
        assert "actual" not in await ok(client, "verify_text", {"selector": "#dropzone", "text": "Dropped payload-42"})
        # A drop target out of view once the source is in view: refused before any input.
        far = await fails(client, "drag", {"from": {"selector": "#source"}, "to": {"selector": "#faraway"}},
                          "not-visible")
        assert far["reason"] == "outside-viewport" and await _events(client) == []
        # The page's drag is over: the mouse is free again.
        await ok(client, "mouse_move", {"coords": {"x": 20, "y": 20}})
        assert await _events(client) == ["pointermove mouse id=1 20,20 b=0 primary", "mousemove 20,20 b=0"]

        # The pointer is kept per tab: a new tab has none yet, and the first keeps its own.
        await ok(client, "new_tab", {"url": f"{pages_url}/input_events.html"})
        assert (await fails(client, "mouse_move", {}, "bad-arg"))["field"] == "coords"
        assert (await ok(client, "mouse_move", {"coords": {"x": 7, "y": 8}}))["pointer"]["x"] == 7
        await ok(client, "select_tab", {"tab": 1})
        assert (await ok(client, "mouse_move", {}))["pointer"] == {"x": 20, "y": 20, "buttons": []}


async def test_touch_points_swipes_and_a_two_finger_pinch(tmp_path: Path, pages_url: str) -> None:
    async with browx_server(tmp_path / "ws", "eval") as client:
        await ok(client, "navigate", {"url": f"{pages_url}/input_events.html"})
        assert (await ok(client, "eval_js", {"expr": "navigator.maxTouchPoints"}))["value"] == 0

        first = await ok(client, "touch_start", {"points": [{"x": 100, "y": 100}, {"x": 200, "y": 100}]})
        assert first["touchEmulation"] == "enabled" and any("touch emulation" in w for w in first["warnings"])
        assert first["touches"] == [{"id": 0, "x": 100, "y": 100}, {"id": 1, "x": 200, "y": 100}]
        assert (await ok(client, "eval_js", {"expr": "navigator.maxTouchPoints"}))["value"] == 10
        down = await fails(client, "touch_start", {"points": [{"x": 5, "y": 5, "id": 1}]}, "bad-arg")
        assert "already down" in down["error"]
        moved = await ok(client, "touch_move", {"points": [{"x": 110, "y": 100, "id": 0}], "steps": 2,
                                                "durationMs": 60})
        assert moved["touches"] == [{"id": 0, "x": 110, "y": 100}, {"id": 1, "x": 200, "y": 100}]
        lifted = await ok(client, "touch_end", {"ids": [1]})
        assert lifted["touches"] == [{"id": 0, "x": 110, "y": 100}]
        assert (await ok(client, "touch_end", {}))["touches"] == []
        assert (await fails(client, "touch_end", {}, "bad-arg"))["field"] == "ids"
        assert _pointer_ids(await _events(client)) == [
            "pointerdown touch id=P1 100,100 b=1 primary",
            "touchstart touches=[0@100,100] changed=[0@100,100]",
            "pointerdown touch id=P2 200,100 b=1",
            "touchstart touches=[0@100,100 1@200,100] changed=[1@200,100]",
            "pointermove touch id=P1 105,100 b=1 primary",
            "touchmove touches=[0@105,100 1@200,100] changed=[0@105,100]",
            "pointermove touch id=P1 110,100 b=1 primary",
            "touchmove touches=[0@110,100 1@200,100] changed=[0@110,100]",
            "pointerup touch id=P2 200,100 b=0",
            "touchend touches=[0@110,100] changed=[1@200,100]",
            "pointerup touch id=P1 110,100 b=0 primary",
            "touchend touches=[] changed=[0@110,100]",
        ]

        # A touch move reports what it made appear, as every action does.
        await ok(client, "touch_start", {"points": [{"x": 670, "y": 340}]})
        grown = await ok(client, "touch_move", {"points": [{"x": 700, "y": 340}], "steps": 2, "durationMs": 40})
        assert grown["target"]["role"] == "generic" and grown["touches"] == [{"id": 0, "x": 700, "y": 340}]
        assert [(a["role"], a["name"]) for a in grown["structure"]["appeared"]] == [("button", "Grown")]
        await ok(client, "touch_end", {})
        assert _pointer_ids(await _events(client)) == []  # the pad saw none of it

        swipe = await ok(client, "gesture_swipe", {"from": {"x": 100, "y": 300}, "to": {"x": 400, "y": 300},
                                                   "durationMs": 150, "steps": 3})
        assert swipe["swipe"]["moves"] == 3 and swipe["swipe"]["durationMs"] >= 150 and swipe["touches"] == []
        assert "touchEmulation" not in swipe
        assert _pointer_ids(await _events(client)) == [
            "pointerdown touch id=P1 100,300 b=1 primary", "touchstart touches=[0@100,300] changed=[0@100,300]",
            "pointermove touch id=P1 200,300 b=1 primary", "touchmove touches=[0@200,300] changed=[0@200,300]",
            "pointermove touch id=P1 300,300 b=1 primary", "touchmove touches=[0@300,300] changed=[0@300,300]",
            "pointermove touch id=P1 400,300 b=1 primary", "touchmove touches=[0@400,300] changed=[0@400,300]",
            "pointerup touch id=P1 400,300 b=0 primary", "touchend touches=[] changed=[0@400,300]",
        ]

        # Two real touch points, either side of the centre, spreading to twice their distance.
        pinch = await ok(client, "gesture_pinch", {"center": {"x": 300, "y": 200}, "scale": 2, "steps": 2,
                                                   "durationMs": 100})
        assert pinch["pinch"]["startDistance"] == 150 and pinch["pinch"]["endDistance"] == 300
        assert _pointer_ids(await _events(client)) == [
            "pointerdown touch id=P1 225,200 b=1 primary",
            "touchstart touches=[0@225,200] changed=[0@225,200]",
            "pointerdown touch id=P2 375,200 b=1",
            "touchstart touches=[0@225,200 1@375,200] changed=[1@375,200]",
            "pointermove touch id=P2 412.5,200 b=1",
            "pointermove touch id=P1 187.5,200 b=1 primary",
            "touchmove touches=[0@187.5,200 1@412.5,200] changed=[0@187.5,200 1@412.5,200]",
            "pointermove touch id=P2 450,200 b=1",
            "pointermove touch id=P1 150,200 b=1 primary",
            "touchmove touches=[0@150,200 1@450,200] changed=[0@150,200 1@450,200]",
            "pointerup touch id=P1 150,200 b=0 primary",
            "touchend touches=[1@450,200] changed=[0@150,200]",
            "pointerup touch id=P2 450,200 b=0",
            "touchend touches=[] changed=[1@450,200]",
        ]
        # Pinching in by ref: the fingers close on the element's centre.
        snap = (await ok(client, "snapshot"))["snapshot"]
        pad = re.search(r'application "pad" \[ref=(e\d+)\]', snap)
        assert pad is not None
        closing = await ok(client, "gesture_pinch", {"center": {"ref": pad.group(1)}, "scale": 0.5, "steps": 1,
                                                     "durationMs": 0})
        assert closing["pinch"]["center"] == {"x": 300, "y": 200}
        assert (closing["pinch"]["startDistance"], closing["pinch"]["endDistance"]) == (300, 150)
        assert [line.split(" touches")[0] for line in await _events(client) if line.startswith("touch")] == \
            ["touchstart", "touchstart", "touchmove", "touchend", "touchend"]


async def test_a_dialog_opened_by_a_press_leaves_the_button_and_the_finger_down(tmp_path: Path,
                                                                               pages_url: str) -> None:
    async with browx_server(tmp_path / "ws", "eval") as client:
        await ok(client, "navigate", {"url": f"{pages_url}/input_dialogs.html"})
        pressed = await ok(client, "mouse_down", {"selector": "#press"})
        assert pressed["settled"]["by"] == "dialog" and pressed["dialog"]["message"] == "Really delete?"
        assert pressed["target"]["name"] == "Hold to delete"
        await ok(client, "handle_dialog", {"accept": True})
        # The press reached the page: the tab knows the button is down, and where.
        released = await ok(client, "mouse_up", {})
        assert released["pointer"] == {"x": 100, "y": 50, "buttons": []} and "warnings" not in released

        touched = await ok(client, "touch_start", {"points": [{"x": 20, "y": 30}]})
        assert touched["settled"]["by"] == "dialog" and touched["target"]["name"] == "Hold to delete"
        await ok(client, "handle_dialog", {"accept": True})
        lifted = await ok(client, "touch_end", {})
        assert lifted["touches"] == []
        assert await _events(client) == ["pointerdown mouse 100,50 b=1", "pointerup mouse 100,50 b=0",
                                         "pointerdown touch 20,30 b=1", "pointerup touch 20,30 b=0"]
