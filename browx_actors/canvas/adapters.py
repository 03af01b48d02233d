"""Canvas-app adapters: plugins found through Python entry points, and ``canvas_query``.

An adapter knows one app's internals (scene graph, camera, selection) and answers
questions about them without a vision call. It is a separate distribution that
declares an entry point in the group ``browx_actors.canvas_adapters``; the entry
point's name is the adapter's namespace and its object is a :class:`CanvasAdapter`
(or a zero-argument callable returning one)::

    [project.entry-points."browx_actors.canvas_adapters"]
    demo = "browx_canvas_demo:ADAPTER"

``canvas_query({adapter, op, args})`` looks up ``<adapter>.<op>`` and forwards
``args``. Each op declares its own capability and its own parameters, and both are
enforced by the dispatch path itself: the tool declares a :class:`~browx_actors.tools.Delegation`
(the op's qualified name, capability and parameters), so a denial reads, and is
counted, like any other, and the op's arguments are checked like a tool's. Having
``canvas`` on is therefore not enough to run an op that declared ``eval``.
The op's handler runs inside the session actor, like every session tool, with the
session (``session.page``, ``session.pw``, ``session.cdp``, ``session.agent``) and its
checked arguments.

The registry is per runtime: discovered from the installed entry points on first use,
or given explicitly with :func:`use_registry` (an embedding program, or a test that
passes its own entry points to :func:`discover_adapters`).
"""

from __future__ import annotations

import weakref
from collections.abc import Awaitable, Callable, Iterable, Mapping
from importlib import metadata
from typing import Any

import attrs

from ..errors import Code, ToolError, register_codes
from ..jsonsafe import JsonObject
from ..tools import Delegation, Param, Reply
from ..tools.canvas import CanvasQueryArgs
from ..tools.context import RuntimeContext
from ..tools.contract import SESSION_CALL_TIMEOUT
from ..tools.rules import JsonArgs

__all__ = [
    "ENTRY_POINT_GROUP",
    "AdapterOp",
    "AdapterRegistry",
    "CanvasAdapter",
    "canvas_query",
    "discover_adapters",
    "no_adapter_message",
    "registry_for",
    "use_registry",
]

ENTRY_POINT_GROUP = "browx_actors.canvas_adapters"

#: ``handler(session, args)``. ``Any`` for the session: an op takes the session class of the
#: engine it drives (``ChromiumSession``), and the registry holds the ops of every engine.
OpHandler = Callable[[Any, JsonObject], Awaitable[JsonObject]]


@attrs.frozen
class AdapterOp:
    """One operation: ``handler(session, args)`` runs inside the session actor."""

    name: str
    capability: str
    description: str
    handler: OpHandler
    params: tuple[Param, ...] = ()


@attrs.frozen
class CanvasAdapter:
    description: str
    ops: tuple[AdapterOp, ...]
    #: Error codes the adapter's ops answer with beyond the server's own (see
    #: :mod:`browx_actors.errors`); registered when the adapter loads.
    codes: tuple[Code, ...] = ()

    def op(self, name: str) -> AdapterOp | None:
        return next((o for o in self.ops if o.name == name), None)


@attrs.frozen
class AdapterRegistry:
    """Loaded adapters by namespace, and the entry points that failed to load (with why)."""

    adapters: Mapping[str, CanvasAdapter] = attrs.field(factory=dict)
    failed: Mapping[str, str] = attrs.field(factory=dict)

    def describe(self) -> list[JsonObject]:
        return [{"adapter": name, "description": adapter.description,
                 "ops": [{"op": o.name, "capability": o.capability, "description": o.description}
                         for o in adapter.ops]}
                for name, adapter in sorted(self.adapters.items())]


def discover_adapters(entry_points: Iterable[metadata.EntryPoint] | None = None) -> AdapterRegistry:
    """Load adapters from ``entry_points`` (default: the installed ones in our group).

    An entry point that fails to import, or does not give a :class:`CanvasAdapter`, is
    recorded in ``failed`` rather than breaking the others.
    """
    if entry_points is None:
        entry_points = metadata.entry_points(group=ENTRY_POINT_GROUP)
    adapters: dict[str, CanvasAdapter] = {}
    failed: dict[str, str] = {}
    for ep in entry_points:
        try:
            loaded = ep.load()
            adapter = loaded if isinstance(loaded, CanvasAdapter) else loaded()
            if not isinstance(adapter, CanvasAdapter):
                raise TypeError(f"{ep.value} gave {type(adapter).__name__}, not a CanvasAdapter")
            register_codes(*adapter.codes)
        except Exception as err:  # a broken plugin must not take the others down
            failed[ep.name] = f"{type(err).__name__}: {err}"
            continue
        adapters[ep.name] = adapter
    return AdapterRegistry(adapters, failed)


_REGISTRIES: weakref.WeakKeyDictionary[object, AdapterRegistry] = weakref.WeakKeyDictionary()


def use_registry(runtime: object, registry: AdapterRegistry) -> None:
    """Make ``runtime``'s ``canvas_query`` dispatch to ``registry``."""
    _REGISTRIES[runtime] = registry


def registry_for(runtime: object) -> AdapterRegistry:
    registry = _REGISTRIES.get(runtime)
    if registry is None:
        registry = _REGISTRIES[runtime] = discover_adapters()
    return registry


def no_adapter_message(adapter: str, registered: list[str]) -> str:
    """What ``no-adapter`` tells the agent it can do: call a namespace this server has,
    or have one registered the way this server finds adapters (an entry point in
    :data:`ENTRY_POINT_GROUP`). It names no package to install: which distribution
    provides an app's adapter is the operator's choice, not something the server knows."""
    have = ", ".join(registered) if registered else "none"
    return (f"no canvas adapter registered for {adapter} (registered namespaces: {have}); pass a registered "
            f"namespace, or have an adapter registered as a Python entry point named {adapter!r} in the group "
            f"{ENTRY_POINT_GROUP} and the server restarted")


def _lookup(registry: AdapterRegistry, adapter: str, op: str) -> AdapterOp:
    found = registry.adapters.get(adapter)
    if found is None:
        if adapter in registry.failed:
            raise ToolError("adapter-unavailable",
                            f"canvas adapter {adapter!r} is installed but failed to load: "
                            f"{registry.failed[adapter]}",
                            requestedAdapter=adapter, requestedOp=op)
        raise ToolError("no-adapter", no_adapter_message(adapter, sorted(registry.adapters)),
                        requestedAdapter=adapter, requestedOp=op, registeredAdapters=sorted(registry.adapters))
    handler = found.op(op)
    if handler is None:
        raise ToolError("unknown-op", f"canvas adapter {adapter!r} has no op {op!r} (ops: "
                        f"{', '.join(o.name for o in found.ops)})",
                        requestedAdapter=adapter, requestedOp=op)
    return handler


def delegation(runtime: RuntimeContext, args: JsonArgs) -> Delegation:
    """The adapter op a call reaches: the dispatch gates its capability and checks its args.

    It runs before the handler, on the checked arguments by JSON name.
    """
    adapter, op_name = args["adapter"], args["op"]
    op = _lookup(registry_for(runtime), adapter, op_name)
    return Delegation(f"{adapter}.{op_name}", op.capability, op.params, field="args")


async def canvas_query(runtime: RuntimeContext, args: CanvasQueryArgs) -> Reply:
    """Look the op up again (the dispatch already gated and checked it) and run it in the session
    with the op's own arguments (checked by the dispatch against the op's parameters)."""
    adapter, op_name = args.adapter, args.op
    op = _lookup(registry_for(runtime), adapter, op_name)
    qualified = f"{adapter}.{op_name}"
    # The dispatch has put the op's checked arguments there: an object, never None.
    result = await runtime.call_session(args.session, f"canvas_query:{qualified}", op.handler, args.args or {},
                                        timeout=SESSION_CALL_TIMEOUT)
    if not isinstance(result, dict):
        raise ToolError("adapter-failed", f"{qualified} returned {type(result).__name__}, not an object")
    return Reply.of(adapter=adapter, op=op_name, **result)
