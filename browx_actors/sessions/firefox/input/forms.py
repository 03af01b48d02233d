"""Forms in one call on firefox: fill_form, and choose_option for dropdowns and comboboxes.

The same contract as chromium's (:mod:`...chromium.input.forms`, whose pure rules this
reuses: how a field is set by what it is, what a checkbox value means): each field is
set the way the single tools set it (text typed over the selected content, a checkbox
or radio clicked into the wanted state, through its label when the control is hidden,
a ``<select>`` given the option by value or label); the page is marked once and
settled once, so the result reports every change the form made. ``choose_option``
clicks the trigger, waits for the option by its accessible name where the trigger's
popup shows it (the page agent's ``findOption``), types the name into an editable
combobox that shows none, clicks the option and checks the choice took
(``optionChosen``): a choice that did not take is ``verification-failed``.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from ....errors import ToolError
from ....jsonsafe import JsonObject
from ....tools import Reply
from ....tools.actions import ChooseOptionArgs, FillFormArgs
from ....tools.targets import Target
from ...chromium.agent.calls import agent_call
from ...chromium.input.brief import brief
from ...chromium.input.forms import field_kind, wanted_checked
from ...chromium.input.target import check_found
from ...chromium.reading.poll import poll_until
from .actions import aim_at, choose, clicked, step, text_into, typed
from .settle import Mark, settle

if TYPE_CHECKING:
    from ..session import FirefoxSession

__all__ = ["choose_option", "fill_form"]

_OPTION_POLL_S = 0.05
_VERIFY_TIMEOUT_S = 2.0
#: How long an editable combobox's options get to show after the click before the name is typed.
_TYPE_AFTER_S = 0.5
_EDITABLE = frozenset({"combobox", "textbox", "searchbox"})


async def _check(session: FirefoxSession, index: int, target: JsonObject, want: bool, reply: Reply) -> str:
    where = f"fields[{index}].value"
    if target.get("role") in ("radio", "menuitemradio") and not want:
        raise ToolError("bad-arg", f"{where}: a radio is unchecked by checking another one", field=where)
    if target.get("checked") is want:
        return "unchanged"
    await step(session, "fill_form", Target(ref=target["ref"]), "click", clicked, reply, mark=False)
    state = await agent_call(session, "describe", target["ref"])
    if state.get("checked") is not want:
        raise ToolError("action-failed", f"fields[{index}]: the {target.get('role')} {target.get('name')!r} did not "
                        f"become {'checked' if want else 'unchecked'}", field=f"fields[{index}]")
    return "bidi"


async def fill_form(session: FirefoxSession, args: FillFormArgs) -> Reply:
    started = time.perf_counter()
    reply = Reply(warnings=[])
    mark = Mark.now(session)
    done: list[dict[str, object]] = []
    target: JsonObject | None = None
    for i, field in enumerate(args.fields):
        element = Target(ref=field.get("ref"), selector=field.get("selector"))
        found = await aim_at(session, element) if i == 0 else await agent_call(
            session, "aim", {"ref": element.ref, "selector": element.selector, "acting": True, "mark": False})
        target = check_found(element, found, reply)
        assert target is not None
        kind, value = field_kind(target), field["value"]
        by_ref = Target(ref=target["ref"])
        if kind == "select":
            values = value if isinstance(value, list) else [str(value).lower() if isinstance(value, bool) else value]
            await choose(session, by_ref, [str(v) for v in values], f"fields[{i}].value")
            used = "script"
        elif kind == "check":
            used = await _check(session, i, target, wanted_checked(value, f"fields[{i}].value"), reply)
        else:
            if not isinstance(value, str):
                raise ToolError("bad-arg", f"fields[{i}].value: the {target.get('role')} {target.get('name')!r} takes "
                                f"text, got {value!r}", field=f"fields[{i}].value")
            _, pasted = await text_into(session, "fill_form", by_ref, value, reply, mark=False)
            used = "paste" if pasted else "bidi"
        done.append({"ref": target["ref"], "role": target.get("role"), "name": target.get("name"), "kind": kind,
                     "input": used})
    fields = await settle(session, mark, target, started)
    reply.fields.update(brief({**fields, "fields": done}))
    return reply


async def _find_option(session: FirefoxSession, trigger: str, option: str, exact: bool, timeout_s: float) -> JsonObject:
    async def probe() -> tuple[bool, JsonObject]:
        found = await agent_call(session, "findOption", {"trigger": trigger, "name": option, "exact": exact})
        return found["count"] > 0, found

    result = await poll_until(probe, interval_s=_OPTION_POLL_S, timeout_s=timeout_s)
    assert result.value is not None
    return result.value


async def choose_option(session: FirefoxSession, args: ChooseOptionArgs) -> Reply:
    started = time.perf_counter()
    reply = Reply(warnings=[])
    mark = Mark.now(session)
    target = check_found(args, await aim_at(session, args), reply)
    assert target is not None
    trigger = target["ref"]
    if target.get("tag") == "select":
        await choose(session, Target(ref=trigger), [args.option], "option")
        state = await agent_call(session, "describe", trigger)
        reply["chosen"] = {"ref": trigger, "name": state.get("value"), "verifiedBy": "select"}
    else:
        await step(session, "choose_option", Target(ref=trigger), "click", clicked, reply, mark=False)
        timeout_s = args.timeout_ms / 1000
        editable = target.get("role") in _EDITABLE and target.get("tag") in ("input", "textarea")
        found = await _find_option(session, trigger, args.option, args.exact,
                                   min(timeout_s, _TYPE_AFTER_S) if editable else timeout_s)
        if not found["count"] and editable:
            await step(session, "choose_option", Target(ref=trigger), "fill", typed(args.option), reply, mark=False)
            reply["typed"] = args.option
            found = await _find_option(session, trigger, args.option, args.exact, timeout_s)
        if not found["count"]:
            raise ToolError("target-not-found", f"no option named {args.option!r} showed after opening "
                            f"{target.get('role')} {target.get('name')!r} (looked in the {found['scope']}; "
                            f"{found['total']} options there)", option=args.option, candidates=found["candidates"])
        if found["count"] > 1:
            reply.warn(f"{found['count']} options match {args.option!r}; chose the first, {found['name']!r}")
        await step(session, "choose_option", Target(ref=found["ref"]), "click", clicked, reply, mark=False)

        async def chosen() -> tuple[bool, JsonObject]:
            verdict = await agent_call(session, "optionChosen",
                                       {"trigger": trigger, "option": found["ref"], "name": found["name"]})
            return bool(verdict["chosen"]), verdict

        verdict = await poll_until(chosen, interval_s=_OPTION_POLL_S, timeout_s=_VERIFY_TIMEOUT_S)
        assert verdict.value is not None
        if not verdict.met:
            raise ToolError("verification-failed", f"clicked option {found['name']!r}, but the {target.get('role')} "
                            f"shows {verdict.value['actual']!r} and the option is not selected",
                            expected=found["name"], actual=verdict.value["actual"])
        reply["chosen"] = {"ref": found["ref"], "name": found["name"], "verifiedBy": verdict.value["by"]}
    fields = await settle(session, mark, target, started)
    chosen_reply = reply.fields.pop("chosen")
    reply.fields.update(brief(fields))
    reply["chosen"] = chosen_reply
    return reply
