"""Confirmation rules: which calls a person must approve before they run. Pure, no I/O.

A rule names what it matches; every field it gives must match, so fields narrow:

- ``tools``: tool names (``["click", "press"]``);
- ``on``: a kind of act, which brings its own tools and test: ``submit`` (a click or
  double click on a control that submits a form, or Enter pressed in a form's field),
  ``upload`` (``upload_file``), ``eval`` (``eval_js``, ``poll_eval``: scripts the agent
  wrote), ``off-allow-list`` (``navigate`` or ``new_tab`` to an origin the allow list
  leaves out: asked about instead of refused, and a yes lets the session reach that
  origin; the block list is never asked about), ``download`` (a download the page
  began: asked about once its bytes arrived, before the file reaches the workspace;
  chromium);
- ``role`` and ``name``: patterns (Python regular expressions, case-insensitive,
  searched) over the target's role and accessible name, as ``snapshot`` shows them:
  ``name = "Pay|Delete|Place order"``;
- ``origins``: origin patterns (as ``--allowed-origins`` takes them) over the page the
  call acts on.

A rule that needs to know the target (``role``, ``name``, ``on = "submit"``) and
cannot (the element could not be described, a native screen) matches: when in doubt, a
person is asked. That errs on the side the operator chose the rule for.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

import attrs

from ..origins import OriginPolicy, OriginRule, parse_origin_patterns

__all__ = ["DOWNLOAD", "KINDS", "TARGETED", "CallFacts", "ConfirmPolicy", "ConfirmRule", "rule_from"]

#: The act a download rule is matched as: no tool's name, since no call asks for one.
DOWNLOAD = "download"
#: What ``on`` may name, and the tools each kind covers.
KINDS: Mapping[str, frozenset[str]] = {
    "submit": frozenset({"click", "double_click", "press"}),
    "upload": frozenset({"upload_file"}),
    "eval": frozenset({"eval_js", "poll_eval"}),
    "off-allow-list": frozenset({"navigate", "new_tab"}),
    "download": frozenset({DOWNLOAD}),
}
#: Tools that act on one element named by ``ref`` or ``selector``: what ``role`` and
#: ``name`` are matched against (another tool has no target, so such a rule skips it).
TARGETED = frozenset({
    "click", "double_click", "hover", "fill", "press", "select", "choose_option", "upload_file", "drag",
    "scroll",
})
_FIELDS = ("tools", "on", "role", "name", "origins")


@attrs.frozen
class CallFacts:
    """What a rule is matched against: the call, and what the session knows of its target.

    ``described`` is False when the target could not be described; ``role``, ``name``
    and ``submits`` are then unknown, not empty.
    """

    tool: str
    origin: str | None = None
    described: bool = True
    role: str | None = None
    name: str | None = None
    submits: bool = False
    #: The call would load an origin the allow list leaves out (``on = "off-allow-list"``).
    off_list: bool = False


@attrs.frozen
class ConfirmRule:
    """One rule (see the module notes); ``text`` is how a prompt and an error name it."""

    text: str
    tools: frozenset[str] | None = None
    on: str | None = None
    role: re.Pattern[str] | None = None
    name: re.Pattern[str] | None = None
    origins: tuple[OriginRule, ...] = ()

    @property
    def needs_target(self) -> bool:
        return self.role is not None or self.name is not None or self.on == "submit"

    def covers(self, tool: str) -> bool:
        """Could this rule match a call of ``tool``, whatever its target and page?"""
        if self.tools is not None and tool not in self.tools:
            return False
        if self.on is not None and tool not in KINDS[self.on]:
            return False
        return not ((self.role is not None or self.name is not None) and tool not in TARGETED)

    def matches(self, facts: CallFacts) -> bool:
        if not self.covers(facts.tool):
            return False
        if self.origins and not _origin_matches(self.origins, facts.origin):
            return False
        if self.on == "off-allow-list" and not facts.off_list:
            return False
        if not self.needs_target or not facts.described:
            return True
        if self.on == "submit" and not facts.submits:
            return False
        if self.role is not None and not self.role.search(facts.role or ""):
            return False
        return self.name is None or bool(self.name.search(facts.name or ""))


@attrs.frozen
class ConfirmPolicy:
    """Rules, in order; the first that matches a call is the one its prompt names."""

    rules: tuple[ConfirmRule, ...] = ()

    def __add__(self, other: ConfirmPolicy) -> ConfirmPolicy:
        return ConfirmPolicy(self.rules + other.rules)

    def covering(self, tool: str) -> tuple[ConfirmRule, ...]:
        """The rules that could match a call of ``tool``: none, and the call goes on untouched."""
        return tuple(rule for rule in self.rules if rule.covers(tool))

    def needs_target(self, tool: str) -> bool:
        return any(rule.needs_target for rule in self.covering(tool))

    def match(self, facts: CallFacts) -> ConfirmRule | None:
        return next((rule for rule in self.rules if rule.matches(facts)), None)


def rule_from(raw: object, where: str, *, known_tools: frozenset[str] | None = None) -> ConfirmRule:
    """One rule from its JSON/TOML table; ValueError naming ``where`` and the field."""
    if not isinstance(raw, dict):
        raise ValueError(f"{where}: a rule is a table of {', '.join(_FIELDS)}")
    unknown = sorted(set(raw) - set(_FIELDS))
    if unknown:
        raise ValueError(f"{where}.{unknown[0]}: unknown field (a rule takes {', '.join(_FIELDS)})")
    if not raw:
        raise ValueError(f"{where}: an empty rule would match every call; name tools, on, role, name or origins")
    tools = raw.get("tools")
    if tools is not None:
        if isinstance(tools, str):
            tools = [tools]
        if not isinstance(tools, list) or not tools or not all(isinstance(t, str) for t in tools):
            raise ValueError(f"{where}.tools: a list of tool names")
        strange = [] if known_tools is None else [t for t in tools if t not in known_tools]
        if strange:
            raise ValueError(f"{where}.tools: no tool named {strange[0]!r}")
    on = raw.get("on")
    if on is not None and on not in KINDS:
        raise ValueError(f"{where}.on: one of {', '.join(KINDS)}, got {on!r}")
    origins = raw.get("origins")
    if isinstance(origins, list) and all(isinstance(o, str) for o in origins):
        origins = ",".join(origins)
    if origins is not None and not isinstance(origins, str):
        raise ValueError(f"{where}.origins: origin patterns, as a list or a comma list")
    rule = ConfirmRule(
        text=_text(raw), tools=None if tools is None else frozenset(tools), on=on,
        role=_pattern(raw.get("role"), f"{where}.role"), name=_pattern(raw.get("name"), f"{where}.name"),
        origins=parse_origin_patterns(origins, source=f"{where}.origins") if origins else (),
    )
    if rule.tools is not None and not any(rule.covers(tool) for tool in rule.tools):
        raise ValueError(f"{where}: matches no call (its tools have no target for role/name, or are not of "
                         f"kind {on!r})")
    return rule


def _pattern(value: object, where: str) -> re.Pattern[str] | None:
    if value is None:
        return None
    if not isinstance(value, str) or not value:
        raise ValueError(f"{where}: a non-empty regular expression")
    try:
        return re.compile(value, re.IGNORECASE)
    except re.error as err:
        raise ValueError(f"{where}: not a regular expression ({err})") from err


def _text(raw: Mapping[str, object]) -> str:
    """The rule as a person reads it in a prompt: ``click name~/Delete/ on https://shop``."""
    parts = []
    tools = raw.get("tools")
    if tools is not None:
        parts.append("|".join(tools) if isinstance(tools, list) else str(tools))
    if raw.get("on") is not None:
        parts.append(f"on {raw['on']}")
    for key in ("role", "name"):
        if raw.get(key) is not None:
            parts.append(f"{key}~/{raw[key]}/")
    origins = raw.get("origins")
    if origins:
        parts.append("at " + (",".join(origins) if isinstance(origins, list) else str(origins)))
    return " ".join(parts)


def _origin_matches(rules: tuple[OriginRule, ...], origin: str | None) -> bool:
    if origin is None:
        return True  # the page is unknown: ask (see the module notes)
    return OriginPolicy(allowed=rules).refusal(origin) is None and _is_web(origin)


def _is_web(origin: str) -> bool:
    return origin.split(":", 1)[0] in ("http", "https", "ws", "wss")
