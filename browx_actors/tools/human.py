"""``await_human``: the agent waits for a person's answer.

The request is part of the contract: the kinds, the timeout default and cap, the limits
that keep a prompt readable on a terminal and inside one operator line, and what makes a
request valid (:func:`parse_request`), which the dispatch runs as the tool's rule and
the handler runs again to build its :class:`PromptSpec`. How the question reaches a
person (DevTools in the session's isolated world, or the host daemon) is
``browx_actors.human``'s.
"""

from __future__ import annotations

from collections.abc import Sequence

import attrs

from ..errors import ToolError
from .arguments import arguments, param
from .contract import OPENS, SessionArgs, runtime_tool
from .params import MAX_ID
from .rules import Check, JsonArgs

__all__ = ["DEFAULT_TIMEOUT_MS", "KINDS", "MAX_TIMEOUT_MS", "PromptSpec", "clamp_timeout", "parse_request"]

KINDS = ("acknowledge", "confirm", "choose", "input", "pick_element")
DEFAULT_TIMEOUT_MS = 300_000
MAX_TIMEOUT_MS = 3_600_000
#: Limits that keep a prompt readable on a terminal and inside one 64 KiB operator line.
MAX_PROMPT_CHARS = 8_000
MAX_CHOICES = 100
MAX_CHOICE_CHARS = 500


@attrs.frozen
class PromptSpec:
    """One validated ``await_human`` request."""

    kind: str
    prompt: str
    choices: tuple[str, ...] | None = None
    timeout_ms: int = DEFAULT_TIMEOUT_MS

    @property
    def timeout_s(self) -> float:
        return self.timeout_ms / 1000


def clamp_timeout(timeout_ms: int | None) -> int:
    """The default when absent, capped at :data:`MAX_TIMEOUT_MS` (a cap, not a refusal)."""
    if timeout_ms is None:
        return DEFAULT_TIMEOUT_MS
    return max(0, min(int(timeout_ms), MAX_TIMEOUT_MS))


def parse_request(kind: str, prompt: str, choices: Sequence[str] | None = None,
                  timeout_ms: int | None = None) -> PromptSpec:
    """A :class:`PromptSpec` from ``await_human``'s arguments, or ``bad-arg`` naming the field.

    Types are already checked by the dispatch path; this adds what a schema cannot
    say: choices belong to ``choose`` and it needs at least two, sizes stay bounded.
    """
    if kind not in KINDS:
        raise ToolError("bad-arg", f"kind must be one of {', '.join(KINDS)}, got {kind!r}", field="kind")
    if not prompt.strip():
        raise ToolError("bad-arg", "prompt must be a non-empty string", field="prompt")
    if len(prompt) > MAX_PROMPT_CHARS:
        raise ToolError("bad-arg", f"prompt is longer than {MAX_PROMPT_CHARS} characters", field="prompt")
    if kind == "choose":
        return PromptSpec(kind, prompt, _choices(choices), clamp_timeout(timeout_ms))
    if choices:
        raise ToolError("bad-arg", f"choices only apply to kind choose, not {kind}", field="choices")
    return PromptSpec(kind, prompt, None, clamp_timeout(timeout_ms))


def _choices(choices: Sequence[str] | None) -> tuple[str, ...]:
    """A ``choose`` prompt's choices: at least two, each one a line a person can read."""
    if choices is None or len(choices) < 2:
        raise ToolError("bad-arg", "kind choose needs choices: a list of at least two strings", field="choices")
    if len(choices) > MAX_CHOICES:
        raise ToolError("bad-arg", f"at most {MAX_CHOICES} choices", field="choices")
    for item in choices:
        if not item.strip() or len(item) > MAX_CHOICE_CHARS:
            raise ToolError("bad-arg", f"each choice must be a non-empty string of at most "
                            f"{MAX_CHOICE_CHARS} characters", field="choices")
    return tuple(choices)


def _check(args: JsonArgs) -> None:
    # The rule reads the dispatch's checked JSON (defaults filled in), the handler its
    # argument class: both go through the one parse_request.
    parse_request(args["kind"], args["prompt"], args.get("choices"), args["timeoutMs"])


@arguments
class AwaitHumanArgs(SessionArgs):
    """await_human's arguments."""

    kind: str = param("kind", "string", "Answer wanted; pick_element is not yet available.", default="acknowledge",
                      enum=KINDS)
    prompt: str = param("prompt", "string", "", required=True, secrets="mask")
    choices: list[str] | None = param("choices", "array", "The options for kind choose; the answer is an index.",
                                      items="string", secrets="mask")
    timeout_ms: int = param("timeoutMs", "integer", "", default=DEFAULT_TIMEOUT_MS, minimum=0, maximum=MAX_ID)


AWAIT_HUMAN = runtime_tool(
    "await_human", AwaitHumanArgs,
    title="Ask the human", capability="human", hints=OPENS,
    summary="Ask the human a question and wait for their answer.",
    description=(
        "Wait for the human and return their answer as {kind, value, timedOut}. prompt is what to ask the "
        "human; kind, what kind of answer to wait for: acknowledge (default; value is what was passed to "
        "__browx.proceed, often null), confirm (true/false), choose (an index into choices), input (a "
        "string); pick_element is not yet available. The prompt and a short ticket are written to the "
        "server's stderr: the human answers from DevTools in the session's browxai-<random> isolated world, "
        "or, with the operator-channel capability, through the host daemon (operator-aborted when it "
        f"aborts). timeoutMs, how long to wait, defaults to {DEFAULT_TIMEOUT_MS} and is capped at "
        f"{MAX_TIMEOUT_MS}; an unanswered prompt returns timedOut: true. Engines without an isolated world "
        "answer no-human-channel at once. The session's other tools keep working while it waits."
    ),
    rules=(Check(_check, "`choices` (2 or more) go with kind `choose` only; `prompt` is not blank"),),
)
