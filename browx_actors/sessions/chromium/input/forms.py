"""Forms in one call: fill_form, and choose_option for dropdowns and comboboxes.

``fill_form {fields: [{ref | selector, value}]}`` sets each field by what it is: text
fields, text areas and editable regions are filled (``value`` a string); checkboxes,
switches and radios are clicked when their state differs from ``value`` (true / false,
or ``"on"`` / ``"off"`` and the like), through their visible label when the control
itself is hidden (the styled checkbox pattern); a ``<select>`` gets the option whose
value or label is ``value`` (a list for a multiple select). Each field is acted on the
way the single tools act (the session's own input when it is ready, Playwright
otherwise); the page is marked once and settled once, after the last field, so the
result reports every change the form made.

``choose_option {ref | selector, option}`` is for dropdowns that are not a ``<select>``
(which it also takes): it clicks the trigger, waits for an option with that accessible
name in the popup the trigger controls (``aria-controls`` / ``aria-owns``), or on the
page, types the name into an editable combobox that shows none, clicks the option,
and checks the choice took, by what the widget shows (``chosen.verifiedBy``): the trigger
shows its name (``value``), the option is selected (``selected``), a chip beside the
trigger shows it (``chip``), or the ``<select>`` the widget was built after has it
selected (``select``). A choice that did not take is ``verification-failed``, never a
quiet success.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ....errors import ToolError
from ....jsonsafe import JsonObject
from ....tools import Reply
from ....tools.actions import ChooseOptionArgs, FillFormArgs
from ....tools.targets import Element, Target
from ..agent.calls import agent_call
from ..reading.poll import poll_until
from .actions import ACTION_TIMEOUT_MS, clicking, filling, perform, run_steps
from .selects import selecting
from .target import target_of

if TYPE_CHECKING:
    from ..session import ChromiumSession

__all__ = ["MAX_FIELDS", "choose_option", "field_kind", "fill_form", "wanted_checked"]

MAX_FIELDS = 100
#: Roles whose field is set by clicking it into the wanted state.
CHECKABLE = frozenset({"checkbox", "radio", "switch", "menuitemcheckbox", "menuitemradio"})
_ON = frozenset({"true", "on", "yes", "checked", "1"})
_OFF = frozenset({"false", "off", "no", "unchecked", "0"})
#: Roles an agent can type an option's name into.
_EDITABLE = frozenset({"combobox", "textbox", "searchbox"})
_OPTION_POLL_S = 0.05
_VERIFY_TIMEOUT_S = 2.0
#: How long an editable combobox's options get to show after the click before the
#: option's name is typed into it.
_TYPE_AFTER_S = 0.5


def field_kind(target: JsonObject) -> str:
    """How a field is set: ``select``, ``check`` or ``text``."""
    if target.get("tag") == "select":
        return "select"
    if target.get("role") in CHECKABLE:
        return "check"
    return "text"


def wanted_checked(value: object, where: str) -> bool:
    """The state a checkbox ``value`` asks for."""
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lower() in _ON | _OFF:
        return value.strip().lower() in _ON
    raise ToolError("bad-arg", f"{where}: a checkbox, switch or radio takes true or false, got {value!r}",
                    field=where)


async def _set_checked(session: ChromiumSession, index: int, element: Element, target: JsonObject,
                       want: bool, reply: Reply) -> str:
    """Click the control into ``want`` (through its visible label when the control
    itself cannot take a click, as aim finds: a styled checkbox hides its input); the
    input used."""
    where = f"fields[{index}].value"
    if target.get("role") in ("radio", "menuitemradio") and not want:
        raise ToolError("bad-arg", f"{where}: a radio is unchecked by checking another one", field=where)
    if target.get("checked") is want:
        return "unchanged"
    direct, _ = clicking(element)

    # Any: an Act's page and locator (see actions.Act). On a label (aim's ``via``),
    # Playwright checks the control it labels.
    async def act(page: Any, locator: Any) -> None:
        await locator.set_checked(want, timeout=ACTION_TIMEOUT_MS)

    _, used = await perform(session, "fill_form", element, act, reply, mode="click", direct=direct, mark=False)
    state = await agent_call(session, "describe", target["ref"])
    if state.get("checked") is not want:
        raise ToolError("action-failed", f"fields[{index}]: the {target.get('role')} {target.get('name')!r} did not "
                        f"become {'checked' if want else 'unchecked'}", field=f"fields[{index}]")
    return used


async def fill_form(session: ChromiumSession, args: FillFormArgs) -> Reply:
    done: list[dict[str, object]] = []
    #: The field being set, and its target once found.
    at: tuple[int, JsonObject | None] = (0, None)

    async def steps(reply: Reply) -> tuple[JsonObject | None, str]:
        nonlocal at
        # Listed as they are done, so a dialog that opens under a field leaves the result
        # saying which fields were set before it.
        reply["fields"] = done
        inputs: set[str] = set()
        target: JsonObject | None = None
        for i, field in enumerate(args.fields):
            at = (i, None)
            reply.fields.pop("target", None)  # until this field is found
            target = await target_of(session, Target(ref=field.get("ref"), selector=field.get("selector")), reply,
                                     mark=i == 0)
            assert target is not None
            at = (i, target)
            reply.fields["target"] = target
            found = Target(ref=target["ref"])
            kind, value = field_kind(target), field["value"]
            if kind == "select":
                values = value if isinstance(value, list) else [str(value).lower() if isinstance(value, bool)
                                                                else value]
                _, used = await perform(session, "fill_form", found,
                                        selecting(values, f"fields[{i}].value"), reply, mark=False)
            elif kind == "check":
                used = await _set_checked(session, i, found, target,
                                          wanted_checked(value, f"fields[{i}].value"), reply)
            else:
                if not isinstance(value, str):
                    raise ToolError("bad-arg", f"fields[{i}].value: the {target.get('role')} "
                                    f"{target.get('name')!r} takes text, got {value!r}", field=f"fields[{i}].value")
                direct, act = filling(value)
                _, used = await perform(session, "fill_form", found, act, reply, mode="fill", direct=direct,
                                        mark=False)
            inputs.add(used)
            done.append({"ref": target["ref"], "role": target.get("role"), "name": target.get("name"),
                         "kind": kind, "input": used})
        acted = sorted(inputs - {"unchanged"})
        return target, "+".join(acted) if acted else "none"

    def report(reply: Reply, interrupted: bool) -> None:
        if not interrupted:
            return
        (i, target), last = at, len(args.fields) - 1
        entry = {"field": i, "input": "interrupted"}
        if target is not None:
            entry.update(ref=target["ref"], role=target.get("role"), name=target.get("name"))
        done.append(entry)
        rest = "" if i == last else f"; fields[{last}] was not set" if i + 1 == last else \
            f"; fields[{i + 1}] to fields[{last}] were not set"
        reply.warn(f"the dialog opened while fields[{i}] was being set, so fill_form stopped there{rest}: after "
                   "handle_dialog, check that field and fill_form the rest")

    return await run_steps(session, "fill_form", steps, report=report)


# -- choose_option --------------------------------------------------------------------


async def _find_option(session: ChromiumSession, trigger: str, option: str, exact: bool,
                       timeout_s: float) -> JsonObject:
    async def probe() -> tuple[bool, JsonObject]:
        found = await agent_call(session, "findOption", {"trigger": trigger, "name": option, "exact": exact})
        return found["count"] > 0, found

    result = await poll_until(probe, interval_s=_OPTION_POLL_S, timeout_s=timeout_s)
    assert result.value is not None
    return result.value


async def choose_option(session: ChromiumSession, args: ChooseOptionArgs) -> Reply:
    async def steps(reply: Reply) -> tuple[JsonObject | None, str]:
        target = await target_of(session, args, reply)
        assert target is not None
        trigger = target["ref"]
        if target.get("tag") == "select":
            _, used = await perform(session, "choose_option", Target(ref=trigger),
                                    selecting([args.option], "option"), reply, mark=False)
            state = await agent_call(session, "describe", trigger)
            reply["chosen"] = {"ref": trigger, "name": state.get("value"), "verifiedBy": "select"}
            return target, used
        direct, act = clicking(Target(ref=trigger))
        _, used = await perform(session, "choose_option", Target(ref=trigger), act, reply, mode="click",
                                direct=direct, mark=False)
        timeout_s = args.timeout_ms / 1000
        editable = target.get("role") in _EDITABLE and target.get("tag") in ("input", "textarea")
        # An editable combobox may show nothing until it is typed into: it gets a moment.
        first_look = min(timeout_s, _TYPE_AFTER_S) if editable else timeout_s
        found = await _find_option(session, trigger, args.option, args.exact, first_look)
        if not found["count"] and editable:
            direct, act = filling(args.option)
            await perform(session, "choose_option", Target(ref=trigger), act, reply, mode="fill", direct=direct,
                          mark=False)
            reply["typed"] = args.option
            found = await _find_option(session, trigger, args.option, args.exact, timeout_s)
        if not found["count"]:
            raise ToolError("target-not-found", f"no option named {args.option!r} showed after opening "
                            f"{target.get('role')} {target.get('name')!r} (looked in the {found['scope']}; "
                            f"{found['total']} options there)", option=args.option,
                            candidates=found["candidates"])
        if found["count"] > 1:
            reply.warn(f"{found['count']} options match {args.option!r}; chose the first, {found['name']!r}")
        direct, act = clicking(Target(ref=found["ref"]))
        _, used_option = await perform(session, "choose_option", Target(ref=found["ref"]), act, reply,
                                       mode="click", direct=direct, mark=False)

        async def chosen() -> tuple[bool, JsonObject]:
            verdict = await agent_call(session, "optionChosen", {
                "trigger": trigger, "option": found["ref"], "name": found["name"], "typed": "typed" in reply.fields,
            })
            return bool(verdict["chosen"]), verdict

        verdict = await poll_until(chosen, interval_s=_OPTION_POLL_S, timeout_s=_VERIFY_TIMEOUT_S)
        assert verdict.value is not None
        if not verdict.met:
            raise ToolError("verification-failed", f"clicked option {found['name']!r}, but the {target.get('role')} "
                            f"shows {verdict.value['actual']!r} and the option is not selected",
                            expected=found["name"], actual=verdict.value["actual"])
        reply["chosen"] = {"ref": found["ref"], "name": found["name"], "verifiedBy": verdict.value["by"]}
        return target, used if used == used_option else f"{used}+{used_option}"

    return await run_steps(session, "choose_option", steps)


