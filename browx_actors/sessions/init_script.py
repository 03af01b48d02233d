"""open_session's ``initScript``: a workspace JavaScript file run in every new document
of the session before the page's own scripts, in the page's realm (it is the agent's
script for the page, not the server's: the page agent keeps its own isolated world).

Both engines run it as the body of a function (:func:`as_function`, :func:`as_statement`):
Firefox's ``script.addPreloadScript`` takes a function, and chromium wraps it the same
way so a script behaves alike on both: its top-level declarations are its own, and a
global is made by assigning to ``window`` (or ``globalThis``). The file is read through
the workspace's chokepoints (:func:`read`).
"""

from __future__ import annotations

from pathlib import Path

from ..errors import ToolError
from ..workspace import file_to_read, load_file

__all__ = ["BLOCK_SERVICE_WORKERS", "INIT_SCRIPT_MAX_BYTES", "as_function", "as_statement", "read"]

#: The largest init script read (a page's script, not a bundle of the web).
INIT_SCRIPT_MAX_BYTES = 1 << 20
_FIELD = "initScript"
#: blockServiceWorkers on firefox, where BiDi has no service worker command: what
#: Playwright's ``service_workers="block"`` itself installs on chromium (registration
#: resolves to nothing, with a console warning), as a preload script of the page realm.
BLOCK_SERVICE_WORKERS = ("() => { if (self.ServiceWorkerContainer) ServiceWorkerContainer.prototype.register = "
                         "async () => { console.warn('Service Worker registration blocked by browx "
                         "(blockServiceWorkers)'); }; }")


async def read(root: Path, relative: str) -> str:
    """The script's text; ``bad-arg`` naming initScript for a path outside the workspace,
    a missing file, one past :data:`INIT_SCRIPT_MAX_BYTES` or one that is not UTF-8."""
    source = file_to_read(root, relative, field=_FIELD)
    data = await load_file(source, field=_FIELD, max_bytes=INIT_SCRIPT_MAX_BYTES)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise ToolError("bad-arg", "initScript: the file is not UTF-8 text", field=_FIELD) from None


def as_function(source: str) -> str:
    """The script as a function declaration (BiDi's preload script). The newlines keep a
    last-line ``//`` comment from swallowing the closing brace."""
    return f"() => {{\n{source}\n}}"


def as_statement(source: str) -> str:
    """The script as a statement calling that function (chromium's init script)."""
    return f"({as_function(source)})();\n"
