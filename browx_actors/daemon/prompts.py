"""The daemon's terminal side of ``await_human``: a prompt as the operator reads it, and
what they type as the line that answers it. Pure: tested without a socket or a terminal.

The terminal answers the oldest open prompt first (:class:`PromptBook`); ``!abort
[reason]`` refuses any prompt; everything the server relays is shown with control
characters escaped (:func:`printable`), so a page cannot drive the operator's terminal
through a prompt's text.
"""

from __future__ import annotations

from collections.abc import Mapping

from ..jsonsafe import JsonObject, JsonValue

__all__ = ["AnswerError", "PromptBook", "describe_prompt", "parse_answer", "printable"]


class AnswerError(ValueError):
    """What the operator typed does not answer the prompt; the message says what would."""


_HOW = {
    "acknowledge": "press Enter (or type a note)",
    "confirm": "answer y or n",
    "choose": "answer with the number of a choice",
    "input": "type the text",
}


def describe_prompt(prompt: Mapping[str, JsonValue]) -> str:
    """A prompt as the terminal shows it: session, kind, text, numbered choices, ticket."""
    kind = prompt.get("kind")
    text = str(prompt.get("prompt")).replace("\n", "\n    ")  # a prompt cannot pose as a line of ours
    lines = [f"[{prompt.get('session')}] {kind} (ticket {prompt.get('ticket')}): {text}"]
    for index, choice in enumerate(prompt.get("choices") or ()):
        lines.append(f"  {index}) {choice}")
    lines.append(f"  {_HOW.get(str(kind), 'type an answer')}; !abort [reason] refuses")
    return "\n".join(lines)


def printable(text: str) -> str:
    """Text with control characters escaped: nothing the server relays can drive the terminal."""
    return "".join(c if c.isprintable() or c == "\n" else f"\\x{ord(c):02x}" for c in text)


def parse_answer(prompt: Mapping[str, JsonValue], text: str) -> tuple[str, JsonObject]:
    """The line type and fields that answer ``prompt`` with what the operator typed."""
    ticket = prompt.get("ticket")
    typed = text.strip()
    if typed == "!abort" or typed.startswith("!abort "):
        return "human.abort", {"ticket": ticket, "reason": typed[len("!abort"):].strip()}
    kind = prompt.get("kind")
    value: bool | int | str | None
    if kind == "confirm":
        answers = {"y": True, "yes": True, "true": True, "n": False, "no": False, "false": False}
        if typed.lower() not in answers:
            raise AnswerError("answer y or n")
        value = answers[typed.lower()]
    elif kind == "choose":
        count = len(prompt.get("choices") or ())
        if not typed.isdigit() or int(typed) >= count:
            raise AnswerError(f"answer a number from 0 to {count - 1}")
        value = int(typed)
    elif kind == "input":
        value = text  # exactly as typed
    else:
        value = typed or None
    return "human.done", {"ticket": ticket, "value": value}


class PromptBook:
    """The prompts open on one connection, oldest first; the terminal answers the oldest."""

    def __init__(self) -> None:
        self._open: dict[str, Mapping[str, JsonValue]] = {}

    @property
    def current(self) -> Mapping[str, JsonValue] | None:
        return next(iter(self._open.values()), None)

    def add(self, prompt: Mapping[str, JsonValue]) -> bool:
        """Open a prompt; True if it is the one the terminal answers now."""
        ticket = prompt.get("ticket")
        if isinstance(ticket, str):
            self._open[ticket] = prompt
        return self.current is prompt

    def end(self, ticket: object) -> bool:
        """Close a prompt; True if it was the one the terminal was answering."""
        was_current = self.current
        if not isinstance(ticket, str) or self._open.pop(ticket, None) is None:
            return False
        return was_current is not None and was_current.get("ticket") == ticket

    def answer(self, text: str) -> tuple[str, JsonObject]:
        prompt = self.current
        if prompt is None:
            raise AnswerError("no prompt is waiting")
        return parse_answer(prompt, text)
