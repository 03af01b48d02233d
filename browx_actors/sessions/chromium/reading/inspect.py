"""``inspect``: one element's box, computed styles, attributes and accessibility properties.

"What colour is this button, is it really disabled, where is it": an agent otherwise
writes three ``eval_js`` calls (and the diagnostics recorder files them as
``computed-style`` patterns). ``inspect {ref | selector, styles?}`` answers in one call:
the element's state as actions report it, its box in viewport CSS pixels, the computed
value of each style asked for (CSS names or camelCase; custom properties too), its
attributes (at most 50, long values cut), and the accessibility properties the browser
itself computed (``Accessibility.getPartialAXTree``: role, name, description and
properties such as focusable, invalid, expanded), which can differ from what the
markup seems to say.
"""

from __future__ import annotations

import contextlib
import json
from typing import TYPE_CHECKING

from ....cdp import CdpError, CdpFailure
from ....errors import ToolError
from ....jsonsafe import JsonValue
from ....tools import Reply
from ....tools.reading import InspectArgs
from ..agent.calls import agent_call
from ..agent.pageagent import AGENT_KEY
from ..input.target import target_of

if TYPE_CHECKING:
    from ..session import ChromiumSession

__all__ = ["MAX_STYLES", "accessibility_of", "inspect"]

MAX_STYLES = 50
_GROUP = "browx-inspect"


async def accessibility_of(session: ChromiumSession, ref: str) -> dict[str, object] | None:
    """The browser's accessibility node for the element behind ``ref`` (None: it has none)."""
    cdp = session.cdp
    try:
        found = await cdp.send("Runtime.evaluate", {
            "expression": f"window[{AGENT_KEY!r}].resolve({json.dumps(ref)})", "objectGroup": _GROUP,
        })
        object_id = found["result"].get("objectId")
        if object_id is None:
            return None
        tree = await cdp.send("Accessibility.getPartialAXTree", {"objectId": object_id, "fetchRelatives": False})
    except CdpError as err:
        raise ToolError("page-error", f"reading the accessibility node: {err.message}") from err
    finally:
        with contextlib.suppress(CdpFailure):  # a document that is gone took its objects with it
            await cdp.send("Runtime.releaseObjectGroup", {"objectGroup": _GROUP})
    nodes = tree.get("nodes") or []
    if not nodes:
        return None
    node = nodes[0]

    def value(key: str) -> JsonValue:
        field = node.get(key)
        return field.get("value") if isinstance(field, dict) else None

    out: dict[str, object] = {"role": value("role"), "name": value("name"), "ignored": bool(node.get("ignored"))}
    if value("description"):
        out["description"] = value("description")
    if value("value") not in (None, ""):
        out["value"] = value("value")
    out["properties"] = {p["name"]: p.get("value", {}).get("value") for p in node.get("properties", [])
                         if isinstance(p, dict) and "name" in p}
    return out


async def inspect(session: ChromiumSession, args: InspectArgs) -> Reply:
    reply = Reply(warnings=[])
    target = await target_of(session, args, reply, mark=False)
    assert target is not None
    found = await agent_call(session, "inspect", {"ref": target["ref"], "styles": args.styles or []})
    reply.fields.update(
        ref=target["ref"], target=found["target"], box=found["box"], inViewport=found["inViewport"],
        styles=found["styles"], attributes=found["attributes"], attributeCount=found["attributeCount"],
        accessibility=await accessibility_of(session, target["ref"]),
    )
    if found["attributeCount"] > len(found["attributes"]):
        reply.warn(f"the element has {found['attributeCount']} attributes; the first "
                   f"{len(found['attributes'])} are listed")
    return reply


