"""``upload_file`` on firefox: files from the workspace into a file input, by ``input.setFiles``.

Each path goes through the workspace chokepoint (chromium's
:func:`~...chromium.input.files.workspace_files`: inside the workspace, a regular file).
The target must be the ``<input type=file>`` itself: BiDi sets files on that element
(it is handed over by its shared id, which the sandbox's answer carries). A styled
"Choose file" button in front of a hidden input is refused naming the input to use,
where chromium would catch the file chooser the click opens.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import TYPE_CHECKING

from ....bidi import BidiError
from ....errors import ToolError
from ....jsonsafe import JsonObject
from ....tools import Reply
from ....tools.actions import UploadFileArgs
from ...chromium.agent.pageagent import AGENT_KEY
from ...chromium.input.brief import brief
from ...chromium.input.files import workspace_files
from ...chromium.input.target import check_found
from ..sandbox import SANDBOX
from .actions import aim_at
from .settle import Mark, settle

if TYPE_CHECKING:
    from ..session import FirefoxSession

__all__ = ["upload_file"]

#: ``(ref, selector)`` -> the element, as a node BiDi hands back by shared id.
_ELEMENT = f"""(ref, selector) => ref ? window[{AGENT_KEY!r}].resolve(ref) : document.querySelector(selector)"""


async def _element(session: FirefoxSession, args: UploadFileArgs) -> JsonObject:
    answer = await session.bidi.send("script.callFunction", {
        "functionDeclaration": _ELEMENT, "target": {"context": session.tab.context, "sandbox": SANDBOX},
        "arguments": [{"type": "string", "value": args.ref} if args.ref else {"type": "null"},
                      {"type": "string", "value": args.selector} if args.selector else {"type": "null"}],
        "awaitPromise": False, "serializationOptions": {"maxDomDepth": 0}}, timeout=session.left())
    node = answer.get("result") or {}
    if answer.get("type") != "success" or node.get("type") != "node":
        raise ToolError("stale-element", "the file input is no longer on the page; take a new snapshot")
    value = node.get("value") or {}
    attributes = value.get("attributes") or {}
    if value.get("localName") != "input" or str(attributes.get("type", "")).lower() != "file":
        what = value.get("localName") or "node"
        raise ToolError("bad-arg", f"the target is a <{what}>, not an <input type=file>: firefox sets files on the "
                        "input itself; find it with snapshot or find (it may be hidden behind a styled button)",
                        field="ref" if args.ref else "selector")
    return {"sharedId": node["sharedId"], "multiple": "multiple" in attributes}


async def upload_file(session: FirefoxSession, args: UploadFileArgs) -> Reply:
    files = [str(p) for p in workspace_files(session.workspace, args.paths)]
    started = time.perf_counter()
    reply = Reply(warnings=[])
    mark = Mark.now(session)
    found = await aim_at(session, args)
    described = check_found(args, found, reply)
    element = await _element(session, args)
    if len(files) > 1 and not element["multiple"]:
        raise ToolError("bad-arg", f"the input takes one file, not {len(files)}", field="paths")
    try:
        await session.bidi.send("input.setFiles", {"context": session.tab.context,
                                                   "element": {"sharedId": element["sharedId"]}, "files": files},
                                timeout=session.left())
    except BidiError as err:
        raise ToolError("action-failed", f"Firefox did not take the files: {err.message or err.error}") from err
    fields = await settle(session, mark, described, started)
    reply.fields.update(brief(fields))
    reply["files"] = [Path(f).name for f in files]
    return reply
