"""Where a frame shows in its tab (``frame_view``): offsets and clips through nested frames."""

from __future__ import annotations

import math

from browx_actors.sessions.chromium.frame_view import FrameView, OwnerBox, frame_view


def box(x: float, y: float, w: float, h: float, vw: float = 1280, vh: float = 720) -> OwnerBox:
    return OwnerBox(x, y, w, h, vw, vh)


def test_the_top_document_shows_everywhere() -> None:
    view = frame_view([])
    assert view == FrameView() and view.to_tab(3, 4) == (3, 4)
    assert view.shows(-1e9, 1e9) and view.left == -math.inf


def test_a_frame_shows_through_its_iframe_content_box_inside_the_viewport() -> None:
    view = frame_view([box(10, 20, 400, 200)])
    assert view.to_tab(5, 5) == (15, 25)
    assert (view.left, view.top, view.right, view.bottom) == (10, 20, 410, 220)
    assert view.shows(10, 20) and view.shows(409.5, 219.5)
    assert not view.shows(410, 100) and not view.shows(100, 220)  # right and bottom edges are outside


def test_an_iframe_partly_below_the_fold_is_cut_by_the_top_viewport() -> None:
    view = frame_view([box(0, 600, 400, 300, vh=720)])
    assert view.bottom == 720 and view.shows(10, 719) and not view.shows(10, 800)


def test_a_nested_frame_is_cut_by_every_frame_above_it() -> None:
    # The page_frames layout: an iframe at (436, 113.88) of 420x200; inside it, a nested
    # iframe at (10, 139.81) of its own 420x200 viewport, 300x120 big.
    outer = box(438, 115.88, 420, 200)
    inner = box(10, 139.81, 300, 120, vw=420, vh=200)
    view = frame_view([outer, inner])
    assert view.to_tab(0, 0) == (448, 255.69)
    # The nested frame's content box runs to 375.69, but the outer frame shows only to 315.88.
    assert view.bottom == 315.88 and view.top == 255.69
    send = view.to_tab(226.78 + 23.5, 66.81 + 10.5)  # a button 77 px down the nested frame
    assert not view.shows(*send)
    assert view.shows(*view.to_tab(20, 20))


def test_a_frame_scrolled_wholly_out_of_its_parent_shows_nowhere() -> None:
    view = frame_view([box(0, 0, 400, 200), box(0, 500, 300, 100, vw=400, vh=200)])
    assert view.top >= view.bottom and not view.shows(*view.to_tab(10, 10))


def test_owner_boxes_read_the_agent_answer() -> None:
    assert OwnerBox.from_json({"ref": "e3", "x": 1, "y": 2.5, "w": 30, "h": 40, "vw": 800, "vh": 600}) == \
        OwnerBox(1.0, 2.5, 30.0, 40.0, 800.0, 600.0)
