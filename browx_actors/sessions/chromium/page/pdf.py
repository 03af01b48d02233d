"""``pdf_save``: the current page printed to PDF, into the workspace.

``Page.printToPDF`` over the tab's command session, as the browser prints it with
print media styles: a paper format (Letter, A4...), orientation, backgrounds, scale and
page ranges. Headless Chromium prints; a headed browser has no print surface for CDP,
and the tool says so.
"""

from __future__ import annotations

import base64
import re
import time
import zlib
from typing import TYPE_CHECKING

from ....cdp import CdpError
from ....errors import ToolError
from ....jsonsafe import JsonObject
from ....tools import Reply
from ....tools.page import PdfSaveArgs
from ....workspace import file_to_write, save_file

if TYPE_CHECKING:
    from ..session import ChromiumSession

__all__ = ["PAPER", "count_pages", "default_path", "pdf_save"]

#: Paper formats: (width, height) in inches, portrait.
PAPER: dict[str, tuple[float, float]] = {
    "Letter": (8.5, 11), "Legal": (8.5, 14), "Tabloid": (11, 17), "Ledger": (17, 11),
    "A0": (33.1, 46.8), "A1": (23.4, 33.1), "A2": (16.54, 23.4), "A3": (11.7, 16.54),
    "A4": (8.27, 11.7), "A5": (5.83, 8.27), "A6": (4.13, 5.83),
}

_PAGE_OBJECT = re.compile(rb"/Type\s*/Page(?![a-zA-Z])")


#: A compressed object stream: its dictionary (naming /ObjStm and /FlateDecode) and its data.
_OBJECT_STREAM = re.compile(rb"<<(?:(?!>>).)*?/Type\s*/ObjStm(?:(?!>>).)*?>>\s*stream\r?\n(.*?)endstream", re.S)


def count_pages(pdf: bytes) -> int:
    """Pages in a PDF: its ``/Type /Page`` objects, one a page, whether written plainly
    (Chromium) or packed in compressed object streams (cairo, which Firefox prints with)."""
    count = len(_PAGE_OBJECT.findall(pdf))
    for stream in _OBJECT_STREAM.finditer(pdf):
        try:
            count += len(_PAGE_OBJECT.findall(zlib.decompress(stream.group(1))))
        except zlib.error:
            continue  # not deflated as its dictionary says: not counted rather than guessed
    return count


def default_path(session_id: str, now: float) -> str:
    stamp = time.strftime("%Y%m%d-%H%M%S", time.gmtime(now))
    safe = re.sub(r"[^A-Za-z0-9_.-]", "_", session_id)[:64] or "session"
    return f"pdf/{safe}-{stamp}-{int(now * 1000) % 1000:03d}.pdf"


async def pdf_save(session: ChromiumSession, args: PdfSaveArgs) -> Reply:
    # The chokepoint for files a tool writes: inside the workspace, a file (not ".", "out/"
    # or a folder), a name the OS can hold, never in diagnostics/.
    target = file_to_write(session.workspace, args.path or default_path(session.session_id, time.time()))
    width, height = PAPER[args.format]
    params: JsonObject = {"paperWidth": width, "paperHeight": height, "landscape": args.landscape,
                              "printBackground": args.print_background, "scale": args.scale,
                              "preferCSSPageSize": False}
    if args.page_ranges:
        params["pageRanges"] = args.page_ranges.replace(" ", "")
    try:
        printed = await session.cdp.send("Page.printToPDF", params, timeout=120)
    except CdpError as err:
        if "not implemented" in err.message.lower():
            raise ToolError("not-supported", "this browser cannot print to PDF over CDP (a headed Chromium has no "
                            "print surface for it; run headless)", engine=session.engine) from err
        if "range" in err.message.lower():
            raise ToolError("bad-arg", f"pageRanges: {err.message}", field="pageRanges") from err
        raise
    data = base64.b64decode(printed["data"])
    await save_file(target, data)
    return Reply.of(path=str(target), byteLength=len(data), pages=count_pages(data), format=args.format,
                    landscape=args.landscape)


