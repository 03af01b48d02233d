"""``open_runtime()``: the library entry point, the tree bound to the one dispatch path.

The runtime (``browx_actors/runtime/``) is the supervision tree and knows no tool;
the catalog knows every tool and no tree. This module puts them together: it starts
the tree, builds the :class:`~browx_actors.server.dispatch.Dispatcher` over the catalog
with the runtime as its context, and binds it, so ``Runtime.call_tool`` and the MCP
server take the same path.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterable
from contextlib import asynccontextmanager
from typing import Any

import trio

from ..config import RuntimeConfig, parse_capabilities
from ..kernel.actor_ref import ActorRef
from ..runtime.tree import Runtime
from ..sessions.chromium.bridge.aiobridge import open_asyncio_thread
from ..sessions.chromium.bridge.driver import PlaywrightDriver
from .catalog import Catalog, default_catalog
from .dispatch import Dispatcher

__all__ = ["open_dispatching_runtime", "open_runtime"]


@asynccontextmanager
async def open_runtime(
    *,
    capabilities: Iterable[str] | str | None = None,
    config: RuntimeConfig | None = None,
    catalog: Catalog | None = None,
    # Any: RuntimeConfig.from_env's keyword arguments, passed on as they are.
    **overrides: Any,
) -> AsyncIterator[Runtime]:
    """Run the tree for the duration of the ``async with`` block.

    ``capabilities`` is the client-side gate (default: read, navigation, action,
    human); the server side comes from ``config`` or the environment
    (``BROWX_CAPABILITIES``). A call needs both. ``catalog`` replaces the tools and their
    tables (tests and embedders that want a smaller surface).
    """
    if config is None:
        config = RuntimeConfig.from_env(**overrides)
    async with open_dispatching_runtime(config, parse_capabilities(capabilities), catalog) as (runtime, _):
        yield runtime


@asynccontextmanager
async def open_dispatching_runtime(
    config: RuntimeConfig, client_caps: frozenset[str], catalog: Catalog | None = None,
) -> AsyncIterator[tuple[Runtime, Dispatcher]]:
    """The running tree and its dispatcher (the MCP server needs the tool specs too)."""
    async with open_asyncio_thread() as bridge:
        driver = PlaywrightDriver(bridge)
        try:
            async with trio.open_nursery() as nursery:
                runtime = Runtime(config, client_caps, driver)
                dispatcher = Dispatcher(
                    default_catalog() if catalog is None else catalog, context=runtime, gates=runtime.gates,
                    secrets=runtime.secrets,
                    recorder=runtime.recorder_inbox.submit if runtime.recording else None,
                    origins=config.origins, policy=runtime.policy,
                )
                runtime.bind(dispatcher.dispatch)

                async def run_root(*, task_status: trio.TaskStatus[ActorRef]) -> None:
                    try:
                        await runtime.root.run(task_status=task_status)
                    finally:
                        runtime.stopped.set()

                await nursery.start(run_root)
                try:
                    yield runtime, dispatcher
                finally:
                    await runtime.shutdown()
                    nursery.cancel_scope.cancel()
        finally:
            with trio.CancelScope(shield=True):
                await driver.aclose()
