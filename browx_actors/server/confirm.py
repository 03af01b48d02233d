"""The dispatch's confirm step: a call a confirm rule matches waits for a person's yes.

It runs after every check that acquires nothing (a bad call is refused before anyone
is asked) and before the handler, so a call a person refused never touched the page.
What a rule matches on (``policy/confirm.py``) is learned only when a rule could match
the tool at all: the page's origin from the session's own description, the target's
role and name from ``inspect``, the same description an agent reads. A call no rule
covers pays one dictionary lookup.

The question goes through the session's human channel, as ``await_human {kind:
confirm}`` does (the operator daemon, or the DevTools isolated world), naming the call,
its target, the page and the rule. Yes runs the call; no (or an abort) answers
``confirmation-denied``, no answer in time ``confirmation-timeout``, and a session with
no channel ``no-human-channel``: in every case but yes nothing runs.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable

import attrs

from ..errors import ToolError
from ..human.await_human import in_session
from ..human.prompts import ending_of
from ..jsonsafe import JsonObject
from ..origins import OriginPolicy, origin_of
from ..policy.book import PolicyBook
from ..policy.confirm import TARGETED, CallFacts, ConfirmRule
from ..tools import INSPECT, AnyTool
from ..tools.context import RuntimeContext
from ..tools.human import PromptSpec

__all__ = ["confirmed"]

#: Beyond the prompt's own timeout, for the session to answer after it fired.
_CALL_GRACE = 30.0
#: Bounds on learning the facts: a session that cannot describe itself or the target
#: this fast is asked about anyway (a rule matches what it cannot rule out).
_FACTS_TIMEOUT = 15.0
_SUBMIT_INPUTS = frozenset({"submit", "image"})


async def confirmed(book: PolicyBook, context: RuntimeContext, tool: AnyTool, args: JsonObject,
                    mask: Callable[[str], str], *, off_list: str | None = None) -> None:
    """Return when the call may run; raise the refusal when it may not (module notes).
    ``args`` are the call's as the agent sent them (aliases, not secrets), and ``mask``
    masks any registered secret in the question, which leaves the server."""
    session = str(args.get("session") or "default")
    policy = book.confirm_for(session)
    covering = policy.covering(tool.name)
    if not covering:
        return
    facts = await _facts(context, tool, args, session, target=policy.needs_target(tool.name))
    if off_list is not None:  # the page it acts on is the one it would load
        facts = attrs.evolve(facts, origin=off_list, off_list=True)
    rule = policy.match(facts)
    if rule is None:
        if off_list is not None:  # the rule's own narrowing left this origin out: refused as before
            raise ToolError("origin-blocked", f"{tool.name} to {off_list}: not on the allowed origins, and no "
                            "confirm rule asks about it", origin=off_list, field="url")
        return
    spec = PromptSpec("confirm", mask(_question(tool.name, args, facts, rule)), None,
                      book.operator.confirm_timeout_ms)
    ask = functools.partial(in_session, operator=context.operator_ref())
    # The session runs the wait beside its mailbox (``Later``) and answers with its end.
    answer: object = await context.call_session(session, "confirm", ask, spec, timeout=spec.timeout_s + _CALL_GRACE)
    _verdict(answer if isinstance(answer, dict) else {}, tool.name, rule)
    if off_list is not None:  # a person let this session reach the origin: here and in its browser
        book.admit(session, off_list)
        await context.call_session(session, "admit", _admit, off_list, timeout=_FACTS_TIMEOUT)


async def _admit(actor: object, origin: str) -> None:
    """The session's request layer lets ``origin`` through from now on (engines with one)."""
    routes = getattr(actor, "routes", None)
    policy = getattr(routes, "policy", None)
    if isinstance(policy, OriginPolicy):
        routes.policy = policy.admitting(origin)  # type: ignore[union-attr]


def _verdict(answer: JsonObject, tool: str, rule: ConfirmRule) -> None:
    ending = ending_of(answer)
    if ending == "answered" and answer.get("value") is True:
        return
    code = answer.get("code")
    if ending == "no-human-channel":
        raise ToolError("no-human-channel", f"{tool} needs a person's confirmation (rule {rule.text!r}) and the "
                        f"session has no human channel, so it did not run: {answer.get('error')}",
                        tool=tool, rule=rule.text)
    if ending == "timeout":
        raise ToolError("confirmation-timeout", f"{tool} waited for a person's confirmation (rule {rule.text!r}) "
                        "and got no answer in time, so it did not run", tool=tool, rule=rule.text)
    why = f" ({answer['error']})" if code else ""
    raise ToolError("confirmation-denied", f"a person declined {tool} (rule {rule.text!r}){why}, so it did not "
                    "run", tool=tool, rule=rule.text)


async def _facts(context: RuntimeContext, tool: AnyTool, args: JsonObject, session: str, *,
                 target: bool) -> CallFacts:
    origin = await _origin(context, session)  # for the rules' origins, and to tell the person where
    if not target or tool.name not in TARGETED:
        return CallFacts(tool.name, origin)
    if not any(args.get(key) for key in ("ref", "selector")):
        return CallFacts(tool.name, origin, described=False)
    try:
        shown = await context.run_tool(session, INSPECT, INSPECT.args.of(
            {key: args[key] for key in ("session", "ref", "selector") if args.get(key) is not None}),
            timeout=_FACTS_TIMEOUT)
    except ToolError:
        return CallFacts(tool.name, origin, described=False)
    fields = getattr(shown, "fields", shown)
    if not isinstance(fields, dict) or not isinstance(fields.get("target"), dict):
        return CallFacts(tool.name, origin, described=False)
    described = fields["target"]
    attributes = fields.get("attributes")
    attributes = attributes if isinstance(attributes, dict) else {}
    return CallFacts(tool.name, origin, role=str(described.get("role") or ""), name=str(described.get("name") or ""),
                     submits=_submits(tool.name, args, str(described.get("tag") or ""),
                                      str(attributes.get("type") or "").lower()))


def _submits(tool: str, args: JsonObject, tag: str, kind: str) -> bool:
    """Would this act submit a form? A button that is a submit button (``<button>``'s
    default type), a submit or image input, or Enter in a text field. Whether a form
    holds the control is not checked: the rule errs towards asking."""
    if tool == "press":
        return args.get("key") == "Enter" and tag in ("input", "select")
    return (tag == "button" and kind in ("", "submit")) or (tag == "input" and kind in _SUBMIT_INPUTS)


async def _origin(context: RuntimeContext, session: str) -> str | None:
    async def url_of(actor: object, _: None) -> object:
        describe = getattr(actor, "describe", None)
        return None if describe is None else describe().get("url")

    try:
        url = await context.call_session(session, "describe", url_of, None, timeout=_FACTS_TIMEOUT)
    except ToolError:
        return None
    if not isinstance(url, str):
        return None
    return origin_of(url) or url  # not a web page (about:blank): named as it is


def _question(tool: str, args: JsonObject, facts: CallFacts, rule: ConfirmRule) -> str:
    """What the person reads: the call, its target, the page, and why they are asked."""
    target = ""
    if facts.described and (facts.role or facts.name):
        target = f" on {facts.role or 'element'} {facts.name!r}" if facts.name else f" on a {facts.role}"
    elif args.get("ref") or args.get("selector"):
        target = f" on {args.get('ref') or args.get('selector')}"
    detail = {key: args[key] for key in ("key", "text", "value", "url", "path", "paths", "expression")
              if key in args}
    said = f" with {json.dumps(detail, ensure_ascii=False)[:300]}" if detail else ""
    where = f" at {facts.origin}" if facts.origin else ""
    if facts.off_list:
        where += " (off the operator's allowed origins)"
    return (f"The agent wants to {tool}{target}{where}{said}. Allow it? (confirm rule: {rule.text}; session "
            f"{args.get('session') or 'default'!r})")
