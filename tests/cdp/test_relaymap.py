"""The relay's bookkeeping (browx_actors/cdp/relaymap.py): which of the browser's messages
are Playwright's, and how ids and the root session are renamed both ways. The messages
are laid out as Chromium 156 writes them."""

from __future__ import annotations

import json

from browx_actors.cdp.protocol import peek_event
from browx_actors.cdp.relaymap import Forwarded, RelayMap, RelayRefusal

ROOT = "44831C9DAAB01B9D59DA396543FD4B0C"  # the browser session Playwright's root rides
PAGE = "C61CACAB19CD79E32E0E4D2A4594066A"  # a page Playwright's auto-attach announced
OURS = "9500C2C6146CD545F47F19D311B3D5CE"  # a page session of ours


def wire(**fields: object) -> str:
    """A message as Chromium writes it: compact, its keys in the order given."""
    return json.dumps(fields, separators=(",", ":"))


def attached(child: str, parent: str | None, target: str = "T1") -> str:
    params = {"sessionId": child, "targetInfo": {"targetId": target, "type": "page"}, "waitingForDebugger": True}
    if parent is None:
        return wire(method="Target.attachedToTarget", params=params)
    return wire(method="Target.attachedToTarget", params=params, sessionId=parent)


def detached(child: str, parent: str) -> str:
    return wire(method="Target.detachedFromTarget", params={"sessionId": child}, sessionId=parent)


def from_browser(relay: RelayMap, raw: str | bytes) -> str | bytes | None:
    """As the reader offers it: with its peek."""
    return relay.from_browser(raw, peek_event(raw))


def forward(relay: RelayMap, message: dict[str, object], our_id: int) -> dict[str, object]:
    forwarded = relay.command(json.dumps(message), our_id)
    assert isinstance(forwarded, Forwarded) and forwarded.our_id == our_id
    return dict(json.loads(forwarded.text))


def test_playwrights_root_rides_the_browser_session_and_keeps_its_ids() -> None:
    relay = RelayMap(ROOT)
    assert forward(relay, {"id": 1, "method": "Browser.getVersion"}, 41) == {
        "id": 41, "method": "Browser.getVersion", "sessionId": ROOT}
    assert forward(relay, {"id": -9999, "method": "Target.setAutoAttach", "params": {"flatten": True}}, 42) == {
        "id": 42, "method": "Target.setAutoAttach", "params": {"flatten": True}, "sessionId": ROOT}
    assert relay.waiting == 2
    # Answered in the browser's order, each under Playwright's id, as its root's.
    reply = wire(id=42, result={}, sessionId=ROOT)
    assert from_browser(relay, reply) == '{"id":-9999,"result":{}}'
    reply = wire(id=41, result={"product": "Chrome/156"}, sessionId=ROOT)
    assert from_browser(relay, reply) == '{"id":1,"result":{"product":"Chrome/156"}}'
    assert relay.waiting == 0
    assert from_browser(relay, reply) is None  # answered once: a second one is not Playwright's


def test_a_session_announced_on_playwrights_root_is_its_own() -> None:
    relay = RelayMap(ROOT)
    assert from_browser(relay, attached(PAGE, ROOT)) == attached(PAGE, None)
    assert PAGE in relay.sessions
    event = wire(method="Page.lifecycleEvent", params={"name": "load"}, sessionId=PAGE)
    assert from_browser(relay, event) == event  # its own session: as the browser wrote it
    assert forward(relay, {"id": 7, "method": "Runtime.enable", "sessionId": PAGE}, 90) == {
        "id": 90, "method": "Runtime.enable", "sessionId": PAGE}
    error = wire(id=90, error={"code": -32000, "message": "x"}, sessionId=PAGE)
    assert from_browser(relay, error) == wire(id=7, error={"code": -32000, "message": "x"}, sessionId=PAGE)
    # Children of its sessions are its too (an out-of-process frame).
    frame = "63BDA74E2C43354C0A5803C3ADC721C1"
    assert from_browser(relay, attached(frame, PAGE)) == attached(frame, PAGE)
    assert frame in relay.sessions


def test_what_we_opened_and_the_browsers_own_events_stay_ours() -> None:
    relay = RelayMap(ROOT)
    assert from_browser(relay, attached(OURS, None)) is None  # our attach, announced at the socket's root
    assert from_browser(relay, wire(method="Runtime.consoleAPICalled", params={}, sessionId=OURS)) is None
    assert from_browser(relay, '{"method":"Target.targetCreated","params":{"targetInfo":{}}}') is None
    assert from_browser(relay, '{"id":3,"result":{"data":"iVBORw0KGgo="}}') is None  # our screenshot
    assert from_browser(relay, wire(id=4, result={}, sessionId=OURS)) is None
    assert from_browser(relay, attached(PAGE, OURS)) is None  # a frame under our page
    assert relay.sessions == {ROOT}


def test_a_detached_session_is_no_longer_playwrights_nor_its_waiting_commands() -> None:
    relay = RelayMap(ROOT)
    from_browser(relay, attached(PAGE, ROOT))
    forward(relay, {"id": 8, "method": "Page.navigate", "sessionId": PAGE}, 100)
    forward(relay, {"id": 9, "method": "Browser.getVersion"}, 101)
    assert from_browser(relay, detached(PAGE, ROOT)) == wire(
        method="Target.detachedFromTarget", params={"sessionId": PAGE})
    assert PAGE not in relay.sessions and relay.waiting == 1  # the root's command still waits
    assert from_browser(relay, wire(method="Page.frameNavigated", params={}, sessionId=PAGE)) is None


def test_messages_laid_out_otherwise_are_renamed_the_same() -> None:
    relay = RelayMap(ROOT)
    forward(relay, {"id": 5, "method": "Browser.getVersion"}, 60)
    assert json.loads(from_browser(relay, " " + wire(sessionId=ROOT, result={"a": 1}, id=60)) or "") == {
        "id": 5, "result": {"a": 1}}
    reordered = wire(sessionId=ROOT, params={"sessionId": PAGE}, method="Target.attachedToTarget")
    assert json.loads(from_browser(relay, reordered) or "") == {
        "method": "Target.attachedToTarget", "params": {"sessionId": PAGE}}
    assert PAGE in relay.sessions
    assert from_browser(relay, wire(method="Page.loadEventFired", sessionId=PAGE).encode()) is not None
    assert from_browser(relay, "not json") is None and from_browser(relay, "[1]") is None


def test_what_is_not_a_command_is_refused() -> None:
    relay = RelayMap(ROOT)
    assert relay.command("not json", 1) == RelayRefusal(None)
    assert relay.command('{"method":"Browser.getVersion"}', 1) == RelayRefusal(None)  # no id to answer
    refused = relay.command(wire(id=3, params={}, sessionId=PAGE), 1)
    assert isinstance(refused, RelayRefusal) and refused.reply is not None
    assert json.loads(refused.reply) == {
        "id": 3, "error": {"code": -32600, "message": "the relay takes CDP commands only"}, "sessionId": PAGE}
    assert relay.waiting == 0
