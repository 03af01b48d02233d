"""The human helper's pure rules and its waiting logic, without a browser or a socket.

Prompts, answers, the context book and the result shape are plain functions; the
desk's timeouts are cancel scopes, so they run under
``trio.testing.MockClock(autojump_threshold=0)`` (the ``autojump_clock`` fixture):
five minutes or an hour pass in no real time, and the tests read the clock to prove
exactly when a prompt was denied.
"""

from __future__ import annotations

import json
from typing import Any

import attrs
import pytest
import trio
from hypothesis import given
from hypothesis import strategies as st

from browx_actors.errors import ToolError
from browx_actors.human import await_human
from browx_actors.human.contexts import ContextBook, is_extension_origin
from browx_actors.human.desk import PromptDesk
from browx_actors.human.prompts import (
    DEFAULT_TIMEOUT_MS,
    KINDS,
    MAX_TIMEOUT_MS,
    Aborted,
    Accepted,
    BindingCall,
    Dropped,
    Outcome,
    PromptSpec,
    check_answer,
    ending_of,
    format_prompt,
    new_ticket,
    new_world_name,
    parse_binding_payload,
    parse_request,
    result_envelope,
)
from browx_actors.human.scripts import MAIN_HELPER, world_helper
from browx_actors.kernel.actor import Later
from browx_actors.tools.human import AWAIT_HUMAN, AwaitHumanArgs

CHOOSE = PromptSpec("choose", "Which account?", ("alice", "bob", "carol"))
SPECS = {
    "acknowledge": PromptSpec("acknowledge", "Solve the captcha"),
    "confirm": PromptSpec("confirm", "Submit?"),
    "choose": CHOOSE,
    "input": PromptSpec("input", "The code from the SMS?"),
}


# -- requests -------------------------------------------------------------------------


def _request(**given: Any) -> PromptSpec:
    """The spec the handler builds from ``await_human``'s arguments (defaults filled in)."""
    args = AwaitHumanArgs(**given)
    return parse_request(args.kind, args.prompt, args.choices, args.timeout_ms)


def test_request_defaults_and_the_timeout_cap() -> None:
    spec = _request(prompt="Go on?")
    assert spec == PromptSpec("acknowledge", "Go on?", None, DEFAULT_TIMEOUT_MS)
    assert DEFAULT_TIMEOUT_MS == 300_000 and MAX_TIMEOUT_MS == 3_600_000
    assert _request(prompt="x", timeout_ms=10**12).timeout_ms == MAX_TIMEOUT_MS
    assert _request(prompt="x", timeout_ms=1500).timeout_s == 1.5
    assert _request(prompt="x", kind="choose", choices=["a", "b"]).choices == ("a", "b")


@pytest.mark.parametrize(
    ("args", "field"),
    [
        ({"prompt": "x", "kind": "vote"}, "kind"),
        ({"prompt": "  "}, "prompt"),
        ({"prompt": "x" * 8001}, "prompt"),
        ({"prompt": "x", "kind": "choose"}, "choices"),
        ({"prompt": "x", "kind": "choose", "choices": ["only"]}, "choices"),
        ({"prompt": "x", "kind": "choose", "choices": ["a", ""]}, "choices"),
        ({"prompt": "x", "kind": "confirm", "choices": ["a", "b"]}, "choices"),
    ],
)
def test_bad_requests_name_the_field(args: dict[str, Any], field: str) -> None:
    with pytest.raises(ToolError) as caught:
        _request(**args)
    assert caught.value.code == "bad-arg" and caught.value.details["field"] == field


def test_the_rule_refuses_what_the_handler_refuses() -> None:
    """The dispatch's rule reads the checked JSON; it refuses through the same checks."""
    (rule,) = AWAIT_HUMAN.rules
    rule.check({"kind": "choose", "prompt": "x", "choices": ["a", "b"], "timeoutMs": 5000, "session": "default"})
    with pytest.raises(ToolError) as caught:
        rule.check({"kind": "choose", "prompt": "x", "choices": ["only"], "timeoutMs": 5000, "session": "default"})
    assert caught.value.details["field"] == "choices"


def test_names_are_random_and_shaped_as_the_spec_says() -> None:
    worlds = {new_world_name() for _ in range(50)}
    assert len(worlds) == 50 and all(w.startswith("browxai-") and len(w) > 12 for w in worlds)
    tickets = {new_ticket() for _ in range(50)}
    assert all(len(t) == 6 for t in tickets) and len(tickets) > 45


# -- answers --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kind", "method", "value", "verdict"),
    [
        ("acknowledge", "proceed", None, Accepted(None)),
        ("acknowledge", "proceed", {"shot": 3}, Accepted({"shot": 3})),
        ("acknowledge", "respond", "ok", Accepted("ok")),
        ("confirm", "confirm", True, Accepted(True)),
        ("confirm", "confirm", False, Accepted(False)),
        ("confirm", "done", False, Accepted(False)),
        ("choose", "choose", 2, Accepted(2)),
        ("input", "input", "123456", Accepted("123456")),
        ("input", "respond", "", Accepted("")),
        ("confirm", "abort", "not me", Aborted("not me")),
    ],
)
def test_answers_that_count(kind: str, method: str, value: Any, verdict: Any) -> None:
    assert check_answer(SPECS[kind], method, value) == verdict


@pytest.mark.parametrize(
    ("kind", "method", "value", "code"),
    [
        ("confirm", "confirm", "yes", "bad-value"),
        ("confirm", "confirm", 1, "bad-value"),
        ("choose", "choose", 3, "bad-value"),
        ("choose", "choose", -1, "bad-value"),
        ("choose", "choose", True, "bad-value"),
        ("choose", "choose", "1", "bad-value"),
        ("input", "input", 42, "bad-value"),
        ("input", "input", "x" * 40_000, "bad-value"),
        ("confirm", "proceed", None, "wrong-kind"),
        ("acknowledge", "choose", 0, "wrong-kind"),
        ("input", "signal", "x", "bad-method"),
    ],
)
def test_answers_that_are_dropped(kind: str, method: str, value: Any, code: str) -> None:
    verdict = check_answer(SPECS[kind], method, value)
    assert isinstance(verdict, Dropped) and verdict.code == code


_json = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
    max_leaves=10,
)


@given(kind=st.sampled_from(sorted(SPECS)), method=st.text(max_size=10) | st.sampled_from(
    ["proceed", "confirm", "choose", "input", "respond", "done", "abort"]), value=_json)
def test_judging_any_answer_never_raises(kind: str, method: str, value: Any) -> None:
    assert isinstance(check_answer(SPECS[kind], method, value), (Accepted, Aborted, Dropped))


@given(st.text(max_size=200) | st.binary(max_size=50) | _json)
def test_decoding_any_binding_payload_never_raises(payload: Any) -> None:
    assert isinstance(parse_binding_payload(payload), (BindingCall, Dropped))


def test_binding_payloads() -> None:
    choose = json.dumps({"m": "choose", "t": "abc123", "v": 1})
    assert parse_binding_payload(choose) == BindingCall("choose", "abc123", 1)
    assert parse_binding_payload(json.dumps({"m": "eval", "t": "a"})).code == "bad-method"
    assert parse_binding_payload(json.dumps({"m": "proceed", "t": 5})).code == "bad-ticket"
    assert parse_binding_payload("x" * 300_000).code == "bad-payload"


def test_result_shapes() -> None:
    assert result_envelope("choose", Outcome(value=0)) == {"ok": True, "kind": "choose", "value": 0, "timedOut": False}
    assert result_envelope("confirm", Outcome(timed_out=True)) == {
        "ok": True, "kind": "confirm", "value": None, "timedOut": True}
    aborted = result_envelope("input", Outcome(code="operator-aborted", error="busy"))
    assert aborted["error"].startswith("operator-aborted") and aborted["value"] is None
    assert aborted["timedOut"] is False and aborted["ok"] is False and aborted["code"] == "operator-aborted"


def test_prompt_text_names_the_world_the_ticket_and_the_call() -> None:
    text = format_prompt("default", "a1b2c3", CHOOSE, world="browxai-0123456789ab")
    assert "browxai-0123456789ab" in text and "a1b2c3" in text and '__browx.choose(<index>, "a1b2c3")' in text
    assert "1: bob" in text and all(line.startswith("[browx]") for line in text.splitlines())
    routed = format_prompt("default", "a1b2c3", CHOOSE, world=None, operator="/run/op.sock")
    assert "/run/op.sock" in routed and "DevTools answers are ignored" in routed


def test_helpers_carry_the_binding_only_in_the_world_copy() -> None:
    world = world_helper("browxai_feedface")
    assert '"browxai_feedface"' in world and '{state: "ready"}' in world
    assert "browxai_" not in MAIN_HELPER and '{state: "display-only"}' in MAIN_HELPER


# -- the context book -----------------------------------------------------------------


def _context(ctx_id: int, *, name: str = "browxai-w", kind: str = "isolated",
             origin: str = "http://127.0.0.1:8000", frame: str = "F1") -> dict[str, Any]:
    return {"id": ctx_id, "name": name, "origin": origin,
            "auxData": {"isDefault": kind == "default", "type": kind, "frameId": frame}}


def test_only_live_world_contexts_may_answer() -> None:
    book = ContextBook("browxai-w")
    assert book.created(_context(1)) is not None
    assert book.created(_context(2, name="", kind="default")) is None  # the page's main world
    assert book.created(_context(3, name="browxai-other")) is None  # another session's world
    assert book.created(_context(4, origin="chrome-extension://abcdef")) is None
    assert book.created(_context(5, name="browxai-w", kind="default")) is None
    assert [book.accepts(i) for i in range(1, 6)] == [True, False, False, False, False]
    assert book.for_frame("F1") == 1
    book.destroyed(1)
    assert not book.accepts(1) and book.for_frame("F1") is None
    book.created(_context(6))
    book.cleared()
    assert not book.accepts(6) and len(book) == 0
    assert not book.accepts("6") and not book.accepts(None)


@pytest.mark.parametrize("origin", ["chrome-extension://x", "moz-extension://y", "safari-web-extension://z"])
def test_extension_origins(origin: str) -> None:
    assert is_extension_origin(origin)
    assert not is_extension_origin("https://extension.example")


# -- the desk, on a mock clock --------------------------------------------------------


async def test_an_unanswered_prompt_is_denied_at_the_default_timeout(autojump_clock) -> None:
    desk = PromptDesk()
    prompt = desk.open("default", _request(prompt="Solve it"))
    start = trio.current_time()
    outcome = await desk.wait(prompt)
    assert outcome == Outcome(timed_out=True)
    assert trio.current_time() - start == pytest.approx(300.0)
    late = desk.offer(prompt.ticket, "proceed", None)
    assert isinstance(late, Dropped) and late.code == "unknown-ticket"


async def test_the_timeout_is_capped_at_an_hour(autojump_clock) -> None:
    desk = PromptDesk()
    prompt = desk.open("default", _request(prompt="x", kind="confirm", timeout_ms=10**10))
    start = trio.current_time()
    assert (await desk.wait(prompt)).timed_out
    assert trio.current_time() - start == pytest.approx(3600.0)


async def test_the_right_ticket_answers_and_others_are_dropped(autojump_clock) -> None:
    desk = PromptDesk()
    prompt = desk.open("default", CHOOSE)
    results: list[Outcome] = []

    async def wait() -> None:
        results.append(await desk.wait(prompt))

    async with trio.open_nursery() as nursery:
        nursery.start_soon(wait)
        await trio.sleep(10)
        assert desk.offer(None, "choose", 1).code == "no-ticket"
        assert desk.offer("ffffff" if prompt.ticket != "ffffff" else "eeeeee", "choose", 1).code == "unknown-ticket"
        assert desk.offer(prompt.ticket, "choose", 7).code == "bad-value"
        assert desk.offer(prompt.ticket, "confirm", True).code == "wrong-kind"
        assert not results
        assert desk.offer(prompt.ticket, "choose", 1) == Accepted(1)
        assert desk.offer(prompt.ticket, "choose", 0).code == "unknown-ticket"  # ended already
    assert results == [Outcome(value=1)]
    assert trio.current_time() == pytest.approx(10.0)
    assert desk.prompts() == []


async def test_one_prompt_per_session_and_abort(autojump_clock) -> None:
    desk = PromptDesk(aborted_code="operator-aborted")
    prompt = desk.open("s1", SPECS["confirm"])
    with pytest.raises(ToolError) as busy:
        desk.open("s1", SPECS["input"])
    assert busy.value.code == "human-busy" and busy.value.details["ticket"] == prompt.ticket
    other = desk.open("s2", SPECS["input"])
    assert other.ticket != prompt.ticket
    assert desk.offer(prompt.ticket, "abort", "wrong account") == Aborted("wrong account")
    outcome = await desk.wait(prompt)
    assert outcome.code == "operator-aborted" and outcome.error == "wrong account"
    assert result_envelope("confirm", outcome)["error"] == "operator-aborted: wrong account"
    desk.end(other, Outcome(code="operator-channel-down", error="dropped"))
    assert (await desk.wait(other)).code == "operator-channel-down"


async def test_delivery_counts_against_the_same_deadline(autojump_clock) -> None:
    desk = PromptDesk()
    prompt = desk.open("default", _request(prompt="x", timeout_ms=5000))

    async def never_delivered(_: Any) -> None:
        await trio.sleep_forever()

    start = trio.current_time()
    assert (await desk.wait(prompt, never_delivered)).timed_out
    assert trio.current_time() - start == pytest.approx(5.0)


async def test_a_cancelled_wait_leaves_no_prompt_behind(autojump_clock) -> None:
    desk = PromptDesk()
    prompt = desk.open("default", SPECS["acknowledge"])
    with trio.move_on_after(1):
        await desk.wait(prompt)
    assert desk.prompts() == [] and desk.open("default", SPECS["acknowledge"]) is not None


# -- the seam in the session ----------------------------------------------------------


@attrs.define
class _Bridgeless:
    """A session of an engine with no isolated world."""

    session_id: str = "native"
    engine: str = "android-app"
    human: Any = None


@attrs.define
class _Bridged:
    session_id: str = "web"
    engine: str = "chromium"
    human: Any = attrs.Factory(lambda: _FakeBridge())


class _FakeBridge:
    async def ask(self, spec: PromptSpec) -> dict[str, Any]:
        return result_envelope(spec.kind, Outcome(value="from the world"))


@pytest.mark.parametrize("kind", [k for k in KINDS if k != "pick_element"])
async def test_no_isolated_world_answers_at_once(kind: str) -> None:
    spec = SPECS[kind]
    result = await await_human.in_session(_Bridgeless(), spec)
    assert result["value"] is None and result["timedOut"] is False and result["kind"] == kind
    assert result["error"].startswith("no-human-channel") and "android-app" in result["error"]


async def test_pick_element_is_not_yet_available() -> None:
    result = await await_human.in_session(_Bridged(), PromptSpec("pick_element", "Which one?"))
    assert result["ok"] is False and "not yet available" in result["error"] and result["value"] is None


async def test_a_bridged_session_waits_in_a_later() -> None:
    later = await await_human.in_session(_Bridged(), SPECS["input"])
    assert isinstance(later, Later)
    assert (await later.fn(*later.args))["value"] == "from the world"


def test_how_a_question_ended() -> None:
    assert ending_of(result_envelope("confirm", Outcome(value=False))) == "answered"
    assert ending_of(result_envelope("confirm", Outcome(timed_out=True))) == "timeout"
    assert ending_of(result_envelope("confirm", Outcome(code="human-aborted", error="no"))) == "aborted"
    assert ending_of(result_envelope("confirm", Outcome(code="no-human-channel", error="-"))) == "no-human-channel"
