"""What an action's result says, each thing once: the pure last step of every action.

The settle (:mod:`.settle`) gathers everything it read: the target before, the element
after, where the page went, what appeared and what was logged. An agent pays for every
character of it, so :func:`brief` keeps only what tells it something:

- ``target``: the element acted on, by ``ref``, ``role`` and ``name``, and its states
  that are not the usual ones (:func:`brief_element`: ``visible`` and ``enabled`` only
  when false, ``focused`` only when true, ``tag`` only for a ``generic`` element, ``text``
  only when it is not the name);
- ``element``: only what the action changed on it (:func:`changes`), not counting the
  focus the action itself gave it; left out when nothing changed;
- ``navigation``: only when the page went somewhere: ``{to}``, and ``sameDocument`` or
  ``reloaded`` when so;
- ``structure``: the nodes that appeared or were removed, only those lists that have
  some, ``truncated`` only when true; left out when nothing changed and after a
  navigation (the new page is read with ``snapshot``);
- ``console`` and ``opened``: only when there is something;
- ``settled``: ``by`` and ``ms`` (the whole call), ``pageMs`` when the page's own
  update was waited for, ``input`` only when it was not the server's own input alone
  (``playwright``; ``fill_form``'s ``cdp+playwright``, or ``none`` when no field needed
  any).

Pure, and tested directly.
"""

from __future__ import annotations

from collections.abc import Mapping

from ....jsonsafe import JsonObject, JsonValue

__all__ = ["brief", "brief_element", "changes"]

#: A state every element is in unless it says otherwise, and the value that says nothing.
_USUAL: Mapping[str, JsonValue] = {"visible": True, "enabled": True, "focused": False}
_MISSING = object()


def brief_element(element: Mapping[str, JsonValue]) -> JsonObject:
    """``element`` (as the page agent describes one) without what goes without saying."""
    out: JsonObject = {}
    for key, value in element.items():
        if _USUAL.get(key, _MISSING) == value:
            continue
        if key == "tag" and element.get("role") != "generic":
            continue
        if key == "text" and (not value or value == element.get("name")):
            continue
        out[key] = value
    return out


def changes(before: Mapping[str, JsonValue] | None, after: Mapping[str, JsonValue] | None) -> JsonObject | None:
    """What differs on the element after the action, by its fields after (a field it no
    longer has is ``None``); the focus the action gave it is not a change worth telling.
    None when nothing changed, or when either side is unknown."""
    if before is None or after is None:
        return None
    out: JsonObject = {}
    for key in (*after, *(k for k in before if k not in after)):
        was, now = before.get(key), after.get(key)
        if was == now or (key == "focused" and now is True):
            continue
        out[key] = now
    return out or None


def _navigation(navigation: Mapping[str, JsonValue] | None, closed: bool) -> JsonObject | None:
    if not navigation or closed:
        return None
    moved = navigation.get("changed") or navigation.get("reloaded")
    if not moved:
        return None
    out: JsonObject = {"to": navigation.get("to")}
    if navigation.get("sameDocument"):
        out["sameDocument"] = True
    if navigation.get("reloaded"):
        out["reloaded"] = True
    return out


def _structure(structure: Mapping[str, JsonValue] | None) -> JsonObject | None:
    if not structure:
        return None
    out: JsonObject = {key: structure[key] for key in ("appeared", "removed") if structure.get(key)}
    if out and structure.get("truncated"):
        out["truncated"] = True
    return out or None


def _settled(settled: Mapping[str, JsonValue] | None) -> JsonObject | None:
    if settled is None:
        return None
    out: JsonObject = {"by": settled.get("by")}
    if settled.get("totalMs") is not None:
        out["ms"] = settled["totalMs"]
    if settled.get("pageMs"):
        out["pageMs"] = settled["pageMs"]
    if settled.get("input") not in (None, "cdp"):
        out["input"] = settled["input"]
    return out


def brief(fields: Mapping[str, JsonValue]) -> JsonObject:
    """An action result's fields, as the agent reads them (see the module notes). Fields
    this does not know (``dialog``, ``pointer``, ``touches``, ``fields``, ...) pass as
    they are."""
    out: JsonObject = {}
    target = fields.get("target")
    element = fields.get("element")
    closed = isinstance(fields.get("settled"), dict) and fields["settled"].get("by") == "tab-closed"
    for key, value in fields.items():
        if key == "action":
            continue  # the tool the agent called
        if key == "target":
            value = brief_element(value) if isinstance(value, dict) else value
        elif key == "element":
            value = changes(target, element) if isinstance(target, dict) and isinstance(element, dict) else None
        elif key == "navigation":
            value = _navigation(value if isinstance(value, dict) else None, closed)
        elif key == "structure":
            value = _structure(value if isinstance(value, dict) else None)
        elif key == "settled":
            value = _settled(value if isinstance(value, dict) else None)
        elif key in ("console", "opened") and not value:
            continue
        if value is None:
            continue
        out[key] = value
    return out
