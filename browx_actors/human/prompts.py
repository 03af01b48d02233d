"""What a human prompt is, and which answers count: pure rules, no I/O.

``await_human`` has two ways to a human (the DevTools console in the session's isolated
world, and the host daemon on the operator socket) but one contract: the same kinds,
the same timeout default and cap, the same per-kind checks on an answer and the same
result shape. Keeping those rules here, free of Trio and CDP, lets both channels share
them and lets the tests state them without a browser or a socket.

An answer is *dropped*, never raised: a mistyped ``__browx.choose("1", t)`` in a console
or a daemon bug must not fail the agent's call, only leave the prompt waiting. The
:class:`Dropped` value says why, so the channel can tell the human.
"""

from __future__ import annotations

import json
import secrets

import attrs

from ..jsonsafe import JsonObject, JsonValue
from ..operator_wire import encode
from ..tools.human import DEFAULT_TIMEOUT_MS, KINDS, MAX_TIMEOUT_MS, PromptSpec, parse_request

__all__ = [
    "ANSWER_METHODS",
    "DEFAULT_TIMEOUT_MS",
    "KINDS",
    "MAX_INPUT_CHARS",
    "MAX_TIMEOUT_MS",
    "Aborted",
    "Accepted",
    "BindingCall",
    "Dropped",
    "Outcome",
    "PromptSpec",
    "check_answer",
    "ending_of",
    "format_ending",
    "format_prompt",
    "new_binding_name",
    "new_ticket",
    "new_world_name",
    "parse_binding_payload",
    "parse_request",
    "prompt_line",
    "result_envelope",
]

MAX_INPUT_CHARS = 32_768
#: A binding payload bigger than this is not an answer anyone typed; it is dropped unread.
MAX_PAYLOAD_CHARS = 256 * 1024

#: The methods of the isolated-world helper that carry an answer (``signal`` and
#: ``done`` do not: they are notes, not answers).
ANSWER_METHODS = ("proceed", "confirm", "choose", "input", "respond", "abort")

#: The DevTools call that answers each kind, for the prompt text and drop reasons.
_HOW = {
    "acknowledge": '__browx.proceed("{t}")',
    "confirm": '__browx.confirm(true, "{t}")  or  __browx.confirm(false, "{t}")',
    "choose": '__browx.choose(<index>, "{t}")',
    "input": '__browx.input("typed text", "{t}")',
}
#: Which kind each typed method answers (``respond`` answers any kind).
_METHOD_KIND = {"proceed": "acknowledge", "confirm": "confirm", "choose": "choose", "input": "input"}


# -- names ----------------------------------------------------------------------------


def new_world_name() -> str:
    """``browxai-<random>``: unguessable, so no extension or script can name it."""
    return f"browxai-{secrets.token_hex(6)}"


def new_binding_name() -> str:
    """The CDP binding's name; it exists only in the world, random for the same reason."""
    return f"browxai_{secrets.token_hex(8)}"


def new_ticket() -> str:
    """A short ticket a human can type: six hex digits, fresh for every prompt."""
    return secrets.token_hex(3)


# -- answers --------------------------------------------------------------------------


@attrs.frozen
class Accepted:
    value: JsonValue


@attrs.frozen
class Aborted:
    """The human (or the daemon) said no: the prompt ends with value null."""

    reason: str


@attrs.frozen
class Dropped:
    """The answer does not count; the prompt keeps waiting. ``code`` is stable."""

    code: str
    reason: str


def check_value(spec: PromptSpec, value: JsonValue) -> Accepted | Dropped:
    """Is ``value`` what ``spec.kind`` needs? (boolean / index / string / anything)."""
    kind = spec.kind
    if kind == "acknowledge":
        return Accepted(value)
    if kind == "confirm":
        if isinstance(value, bool):
            return Accepted(value)
        return Dropped("bad-value", f"confirm needs true or false, got {_describe(value)}")
    if kind == "choose":
        count = len(spec.choices or ())
        if isinstance(value, int) and not isinstance(value, bool) and 0 <= value < count:
            return Accepted(value)
        return Dropped("bad-value", f"choose needs an index from 0 to {count - 1}, got {_describe(value)}")
    if kind == "input":
        if isinstance(value, str) and len(value) <= MAX_INPUT_CHARS:
            return Accepted(value)
        if isinstance(value, str):
            return Dropped("bad-value", f"input is longer than {MAX_INPUT_CHARS} characters")
        return Dropped("bad-value", f"input needs a string, got {_describe(value)}")
    return Dropped("bad-value", f"{kind} prompts cannot be answered")


def check_answer(spec: PromptSpec, method: str, value: JsonValue) -> Accepted | Aborted | Dropped:
    """Judge one answer (its ticket already matched) for a prompt of ``spec.kind``.

    ``respond`` (DevTools) and ``done`` (the daemon) answer any kind with a value that
    kind needs; the typed methods answer only their own kind.
    """
    if method == "abort":
        return Aborted(value if isinstance(value, str) else "")
    if method in ("respond", "done"):
        return check_value(spec, value)
    expected = _METHOD_KIND.get(method)
    if expected is None:
        return Dropped("bad-method", f"{method} does not answer a prompt")
    if expected != spec.kind:
        how = _HOW.get(spec.kind, "").format(t="<ticket>")
        return Dropped("wrong-kind", f"{method} answers {expected} prompts; this one is {spec.kind}"
                       + (f": use {how}" if how else ""))
    return check_value(spec, value)


def _describe(value: object) -> str:
    text = json.dumps(value, default=repr)
    return text if len(text) <= 40 else text[:37] + "..."


@attrs.frozen
class BindingCall:
    """One call of the isolated-world helper, as its binding payload carries it."""

    method: str
    ticket: str | None
    value: JsonValue = None


def parse_binding_payload(payload: object) -> BindingCall | Dropped:
    """Decode ``{"m": method, "t": ticket, "v": value}`` from the helper. Never raises."""
    if not isinstance(payload, str) or len(payload) > MAX_PAYLOAD_CHARS:
        return Dropped("bad-payload", "payload missing or too large")
    try:
        data = json.loads(payload)
    except (ValueError, RecursionError):
        return Dropped("bad-payload", "payload is not JSON")
    if not isinstance(data, dict):
        return Dropped("bad-payload", "payload is not an object")
    method = data.get("m")
    if method not in (*ANSWER_METHODS, "signal"):
        return Dropped("bad-method", f"unknown method {_describe(method)}")
    ticket = data.get("t")
    if ticket is not None and not isinstance(ticket, str):
        return Dropped("bad-ticket", "the ticket must be a string")
    return BindingCall(method, ticket, data.get("v"))


# -- the outcome ----------------------------------------------------------------------


@attrs.frozen
class Outcome:
    """How a prompt ended. ``code`` is set (with ``error``) when it ended without an answer."""

    value: JsonValue = None
    timed_out: bool = False
    code: str | None = None
    error: str | None = None


def ending_of(answer: JsonObject) -> str:
    """How a question a policy put to a person ended, from its result envelope: ``answered``
    (``value`` holds the answer), ``aborted``, ``timeout``, or ``no-human-channel``. Each
    policy decides from this what a non-answer means (it fails closed)."""
    code = answer.get("code")
    if code == "no-human-channel":
        return "no-human-channel"
    if answer.get("timedOut"):
        return "timeout"
    return "answered" if code is None else "aborted"


def result_envelope(kind: str, outcome: Outcome) -> JsonObject:
    """The tool result: ``{kind, value, timedOut}``; an error also makes ``ok`` false.

    A timeout is an answer (denied, ``timedOut: true``), so it stays ``ok: true``; an
    abort or a missing channel is not, and its ``error`` starts with its code
    (``operator-aborted: ...``).
    """
    body = {"kind": kind, "value": outcome.value, "timedOut": outcome.timed_out}
    if outcome.code is None:
        return {"ok": True, **body}
    return {"ok": False, "code": outcome.code, "error": f"{outcome.code}: {outcome.error}", **body}


# -- the prompt text ------------------------------------------------------------------


def format_prompt(session: str, ticket: str, spec: PromptSpec, *, world: str | None,
                  operator: str | None = None) -> str:
    """The stderr lines for a prompt: what is asked, and where and how to answer.

    ``world`` names the isolated world to answer from in DevTools; ``operator`` (the
    socket path) says the daemon answers instead and DevTools answers do not count.
    """
    seconds = spec.timeout_ms / 1000
    lines = [(f"[browx] await_human: session {session!r}, ticket {ticket}, kind {spec.kind}, "
              f"times out in {seconds:g} s")]
    lines += [f"[browx]   {line}" for line in spec.prompt.splitlines() or [""]]
    for index, choice in enumerate(spec.choices or ()):
        lines.append(f"[browx]     {index}: {choice}")
    if operator is not None:
        lines.append(f"[browx]   sent to the operator daemon on {operator}; only its answer counts "
                     "(DevTools answers are ignored)")
    elif world is not None:
        how = _HOW[spec.kind].format(t=ticket)
        lines.append(f'[browx]   answer in DevTools: switch the console context from "top" to '
                     f'"{world}", then run  {how}')
    return "\n".join(lines)


def format_ending(ticket: str, spec: PromptSpec, outcome: Outcome) -> str:
    """The stderr line when a prompt ends, so the terminal shows it is over."""
    if outcome.timed_out:
        how = f"timed out after {spec.timeout_ms / 1000:g} s (denied)"
    elif outcome.code is not None:
        how = f"ended without an answer: {outcome.code}: {outcome.error}"
    else:
        how = "answered"
    return f"[browx] await_human ticket {ticket} {how}"


def prompt_line(session: str, ticket: str, spec: PromptSpec) -> bytes:
    return encode(
        "human.prompt", session=session, ticket=ticket, kind=spec.kind, prompt=spec.prompt,
        choices=None if spec.choices is None else list(spec.choices), timeoutMs=spec.timeout_ms,
    )
