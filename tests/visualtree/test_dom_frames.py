"""A page's frames in its visual tree (``sessions/chromium/frames/visual.py``), without a browser.

What the browser would answer (the tab's frames, each ``<iframe>``'s node and box, each
frame agent's capture) is scripted here in place of the three calls that ask it, so
the assembly's rules are checked one by one: ids and boxes, hidden holders, the shared
node limit, a frame that cannot be read, a parent whose document changed. The same
flows run against real frames in ``test_e2e_frames.py``.
"""

from __future__ import annotations

import json
from types import SimpleNamespace
from typing import Any

import pytest
import trio

from browx_actors.errors import ToolError
from browx_actors.sessions.chromium.frames import visual as visual_frames
from browx_actors.sessions.chromium.frames.book import Frame
from browx_actors.sessions.chromium.frames.visual import (
    DomScope,
    Placement,
    graft,
    holds_frames,
    read_frames,
    split_node_id,
)

Node = dict[str, Any]


def element(node_id: str, tag: str, *kids: Node, box: list[float] | None = None, **extra: Any) -> Node:
    node: Node = {"id": node_id, "tag": tag, "role": "container", **extra}
    if box is not None:
        node["b"] = box
    if kids:
        node["kids"] = list(kids)
    return node


def answer(document: str, root: Node) -> dict[str, Any]:
    count = sum(1 for _ in _nodes(root))
    return {"document": document, "root": root, "count": count, "omitted": 0}


def _nodes(node: Node) -> Any:
    yield node
    for kid in node.get("kids", ()):
        yield from _nodes(kid)


def frame(frame_id: str, short: str | None, parent: str | None) -> Frame:
    return Frame(frame_id, short, f"http://127.0.0.1/{frame_id}.html", "", "http://127.0.0.1", parent, None,  # type: ignore[arg-type]
                 parent is None, False)


class Browser:
    """The answers read_frames asks for, by frame id; what it asked; how many of its
    questions were out at once, at most."""

    def __init__(self, frames: list[Frame], owners: dict[str, Any], captures: dict[str, Any]) -> None:
        self.frames, self.owners, self.captures = frames, owners, captures
        self.asked: list[tuple[str, Any]] = []
        self.out = self.most_out = 0

    async def frame_tree(self, session: Any, tab: Any) -> list[Frame]:
        return self.frames

    async def owner_of(self, session: Any, frames: Any, of: Frame, declaration: str) -> Any:
        assert declaration == visual_frames.VISUAL_OWNER
        await self._round_trip()
        return self.owners.get(of.frame_id)

    async def _round_trip(self) -> None:
        self.out += 1
        self.most_out = max(self.most_out, self.out)
        await trio.lowlevel.checkpoint()  # the others asked at once are sent meanwhile
        self.out -= 1

    async def agent_in_frame(self, session: Any, of: Frame, method: str, arg: Any) -> Any:
        assert method == "visualTree"
        self.asked.append((of.frame_id, arg))
        await self._round_trip()
        found = self.captures[of.frame_id]
        if isinstance(found, Exception):
            raise found
        return json.dumps(found)


@pytest.fixture
def session() -> Any:
    return SimpleNamespace(tabs=SimpleNamespace(current=object()))


def install(monkeypatch: pytest.MonkeyPatch, browser: Browser) -> None:
    for name in ("frame_tree", "owner_of", "agent_in_frame"):
        monkeypatch.setattr(visual_frames, name, getattr(browser, name))


def owner(document: str, node_id: str, x: float, y: float) -> dict[str, Any]:
    return {"node": {"document": document, "id": node_id}, "x": x, "y": y, "sx": 1, "sy": 1}


def page() -> dict[str, Any]:
    """A top document with two iframes; the second frame holds a third."""
    return answer("top-doc", element("n1", "html", element(
        "n2", "body",
        element("n3", "iframe", box=[10, 20, 304, 154]),
        element("n4", "iframe", box=[10, 200, 304, 154]),
    )))


def inner(document: str, *, nested: bool = False) -> dict[str, Any]:
    kids = [element("n3", "button", box=[5, 6, 50, 20], acts=["tap"])]
    if nested:
        kids.append(element("n4", "iframe", box=[0, 40, 200, 100]))
    return answer(document, element("n1", "html", element("n2", "body", *kids, box=[0, 0, 300, 150]),
                                    box=[0, 0, 300, 150]))


def three_frames() -> list[Frame]:
    return [frame("T", None, None), frame("A", "f1", "T"), frame("B", "f2", "T"), frame("C", "f3", "B")]


async def test_frames_hang_under_their_iframes_with_ids_and_boxes_in_the_tab(monkeypatch: pytest.MonkeyPatch,
                                                                            session: Any) -> None:
    browser = Browser(three_frames(),
                      {"A": owner("top-doc", "n3", 12, 22), "B": owner("top-doc", "n4", 12, 202),
                       "C": owner("doc-b", "n4", 0, 40)},
                      {"A": inner("doc-a"), "B": inner("doc-b", nested=True), "C": inner("doc-c")})
    install(monkeypatch, browser)
    top = page()
    framed = await read_frames(session, top, limit=1000, properties=True)

    body = framed.root["kids"][0]
    first, second = body["kids"]
    [document_a] = first["kids"]
    assert document_a["id"] == "f1n1" and document_a["b"] == [12, 22, 300, 150]
    button_a = document_a["kids"][0]["kids"][0]
    assert button_a["id"] == "f1n3" and button_a["b"] == [17, 28, 50, 20]
    nested_iframe = second["kids"][0]["kids"][0]["kids"][1]
    assert nested_iframe["id"] == "f2n4"
    button_c = nested_iframe["kids"][0]["kids"][0]["kids"][0]
    # Offsets add up through the frames: 12 + 0 + 5, 202 + 40 + 6.
    assert button_c["id"] == "f3n3" and button_c["b"] == [17, 248, 50, 20]
    assert framed.scope == DomScope("top-doc", (("f1", "doc-a"), ("f2", "doc-b"), ("f3", "doc-c")))
    assert framed.scope.document_of(None) == "top-doc" and framed.scope.document_of("f3") == "doc-c"
    assert framed.scope.document_of("f9") is None
    assert framed.omitted == 0 and framed.warnings == ()
    # A and B (the top's frames) are asked at once for what the top left of the limit,
    # then C (B's) for what all three left (the top has 4 nodes, A 3, B 4).
    assert dict(browser.asked) == {"A": {"properties": True, "limit": 996}, "B": {"properties": True, "limit": 996},
                                   "C": {"properties": True, "limit": 989}}
    assert browser.most_out == 2
    # What was read, where it went, is in the fingerprint's text: a frame moved is a new capture.
    assert "f3@(12.0, 242.0, 1.0, 1.0, False):" in framed.read and "doc-c" in framed.read


async def test_a_frame_under_a_hidden_iframe_is_hidden_all_the_way_down(monkeypatch: pytest.MonkeyPatch,
                                                                      session: Any) -> None:
    top = page()
    top["root"]["kids"][0]["kids"][1]["hid"] = 1  # the second iframe is not visible
    browser = Browser(three_frames(),
                      {"A": owner("top-doc", "n3", 12, 22), "B": owner("top-doc", "n4", 12, 202),
                       "C": owner("doc-b", "n4", 0, 40)},
                      {"A": inner("doc-a"), "B": inner("doc-b", nested=True), "C": inner("doc-c")})
    install(monkeypatch, browser)
    framed = await read_frames(session, top, limit=1000, properties=False)
    nodes = list(_nodes(framed.root))
    hidden = {node["id"][:2] for node in nodes if node.get("hid")}
    shown = {node["id"][:2] for node in nodes if not node.get("hid")}
    assert hidden == {"n4", "f2", "f3"} and "f1" in shown


async def test_the_node_limit_is_shared_and_a_frame_past_it_counts_as_left_out(monkeypatch: pytest.MonkeyPatch,
                                                                             session: Any) -> None:
    top = page()  # 4 nodes; each frame answer has 3 (4 with the nested iframe)
    browser = Browser(three_frames(),
                      {"A": owner("top-doc", "n3", 12, 22), "B": owner("top-doc", "n4", 12, 202)},
                      {"A": inner("doc-a"), "B": inner("doc-b")})
    install(monkeypatch, browser)
    framed = await read_frames(session, top, limit=7, properties=False)
    first, second = framed.root["kids"][0]["kids"]
    assert first["kids"][0]["id"] == "f1n1"
    # B was asked with A (3 nodes left each), but once A is in it no longer fits: left out whole.
    assert "kids" not in second and second["more"] == 1
    assert framed.omitted == 3 and dict(browser.asked) == {"A": {"properties": False, "limit": 3},
                                                           "B": {"properties": False, "limit": 3}}
    # With nothing left after the top, no frame is asked; each counts as one node left out.
    browser.asked.clear()
    framed = await read_frames(session, page(), limit=4, properties=False)
    assert browser.asked == [] and framed.omitted == 2
    assert [holder["more"] for holder in framed.root["kids"][0]["kids"]] == [1, 1]


async def test_a_frame_that_cannot_be_read_is_named_and_counted(monkeypatch: pytest.MonkeyPatch,
                                                               session: Any) -> None:
    gone = ToolError("stale-element", "frame f2 has no document to reach yet; take a new snapshot")
    browser = Browser(three_frames(),
                      {"A": owner("top-doc", "n3", 12, 22), "B": owner("top-doc", "n4", 12, 202)},
                      {"A": inner("doc-a"), "B": gone})
    install(monkeypatch, browser)
    framed = await read_frames(session, page(), limit=1000, properties=False)
    second = framed.root["kids"][0]["kids"][1]
    assert "kids" not in second and second["more"] == 1
    assert framed.omitted == 0  # not the node limit: the warning says what happened
    [warning] = framed.warnings
    assert warning.startswith("frame f2 (http://127.0.0.1/B.html) could not be read (frame f2 has no document")
    assert framed.scope.frames == (("f1", "doc-a"),)


async def test_a_frame_whose_parent_changed_document_or_has_no_node_is_left_alone(
        monkeypatch: pytest.MonkeyPatch, session: Any) -> None:
    browser = Browser(three_frames(),
                      # A's <iframe> is in a document other than the one captured; B's is
                      # a node the capture does not hold (past the limit, or under an <svg>).
                      {"A": owner("another-doc", "n3", 12, 22), "B": owner("top-doc", "n99", 12, 202)},
                      {})
    install(monkeypatch, browser)
    top = page()
    framed = await read_frames(session, top, limit=1000, properties=False)
    assert framed.root == page()["root"] and browser.asked == [] and framed.warnings == ()


def test_node_ids_and_frame_marks() -> None:
    assert split_node_id("n5") == (None, "n5")
    assert split_node_id("f12n5") == ("f12", "n5")
    assert split_node_id("root.0") == (None, "root.0")
    assert holds_frames('{"id":"n3","tag":"iframe","role":"webview"}')
    assert holds_frames('{"id":"n3","tag":"frame","role":"webview"}')
    # A page's text saying so is escaped in the JSON: no frame there.
    assert not holds_frames(json.dumps({"id": "n1", "tag": "p", "text": '"tag":"iframe"'}, separators=(",", ":")))


def test_graft_qualifies_moves_and_hides() -> None:
    holder = element("n3", "iframe")
    root = element("n1", "html", element("n2", "body", box=[1, 2, 3, 4]))
    graft(holder, root, "f4", Placement(10, 20, hidden=True))
    assert holder["kids"] == [root]
    assert [(node["id"], node.get("b"), node.get("hid")) for node in _nodes(root)] == [
        ("f4n1", None, 1), ("f4n2", [11, 22, 3, 4], 1)]


def test_placements_compose_offsets_and_scales_through_frames() -> None:
    # A frame at half size at (100, 50) of the tab; inside it, an <iframe> at (20, 10) of
    # its viewport, itself at twice the size.
    outer = Placement().inside({"x": 100, "y": 50, "sx": 0.5, "sy": 0.5}, hidden=False)
    inner = outer.inside({"x": 20, "y": 10, "sx": 2, "sy": 2}, hidden=True)
    assert outer == Placement(100, 50, 0.5, 0.5, False)
    assert inner == Placement(110, 55, 1.0, 1.0, True)
    root = element("n1", "html", box=[4, 8, 200, 100])
    graft(element("n3", "iframe"), root, "f2", outer)
    assert root["b"] == [102, 54, 100, 50]
