"""The one dispatch path every tool call takes, from MCP or from the library.

``Dispatcher.dispatch(name, args)`` does, in this order and nowhere else:

1. look the tool up (``unknown-tool`` otherwise);
2. validate the arguments against the tool's declared parameters (``bad-arg``
   naming the field);
3. check the capability gate: the server's set and the client's set must both allow
   the tool's capability (``capability-denied`` naming it; denials are counted);
4. substitute registered secrets into the arguments;
5. run the handler, turning :class:`ToolError` into its envelope;
6. mask registered secrets in the result;
7. hand the call to the recorder (one boolean check when diagnostics is off);
8. return the envelope, plus any images, as a :class:`ToolOutput`.

No tool validates, gates, substitutes or masks by itself.
"""

from __future__ import annotations

import logging
import time
from collections import Counter
from collections.abc import Awaitable, Callable, Iterable, Mapping
from typing import Any

import attrs

from ..actor import ToolError
from .mcp_stdio import ToolOutput, ToolSpec
from .schema import Param, json_schema, validate_args
from .secrets import mask_deep, substitute_deep

__all__ = ["CallRecord", "Dispatcher", "Tool", "ToolOutput", "session_param"]

log = logging.getLogger("browx_actors.dispatch")

Handler = Callable[[Any, dict[str, Any]], Awaitable[dict[str, Any] | ToolOutput]]


def session_param() -> Param:
    return Param("session", "string", "Session id.", default="default")


@attrs.frozen
class Tool:
    name: str
    capability: str
    description: str
    params: tuple[Param, ...]
    handler: Handler

    def spec(self) -> ToolSpec:
        return ToolSpec(self.name, self.description, json_schema(self.params))


@attrs.frozen
class CallRecord:
    """What the recorder receives for one call: masked arguments and the result.

    ``finished_at`` is the wall clock (epoch seconds) when the call ended; the record's
    start time is ``finished_at - duration_ms / 1000``.
    """

    tool: str
    session_id: str
    args: dict[str, Any]
    envelope: dict[str, Any]
    duration_ms: float
    capability_denials: int
    finished_at: float = 0.0


class Dispatcher:
    """Holds the registry, the two capability gates and the secrets the path masks.

    ``secrets_of(session_id)`` gives the secrets a call may substitute; every
    registered secret of every session is masked out of every result.
    """

    def __init__(
        self,
        tools: Iterable[Tool],
        *,
        context: Any,
        server_capabilities: frozenset[str],
        client_capabilities: frozenset[str],
        secrets_of: Callable[[str], Mapping[str, str]],
        all_secrets: Callable[[], Mapping[str, str]],
    ) -> None:
        self.tools = {t.name: t for t in tools}
        self.context = context
        self.server_capabilities = server_capabilities
        self.client_capabilities = client_capabilities
        self._secrets_of = secrets_of
        self._all_secrets = all_secrets
        self.denials: Counter[str] = Counter()
        #: The recorder hook. None keeps the path to a single boolean check.
        self.recorder: Callable[[CallRecord], None] | None = None

    def specs(self) -> list[ToolSpec]:
        return [t.spec() for t in self.tools.values()]

    def allowed(self, capability: str) -> bool:
        return capability in self.server_capabilities and capability in self.client_capabilities

    def denial(self, capability: str, tool: str) -> ToolError:
        """The refusal for a capability one of the gates withholds (and count it)."""
        self.denials[tool] += 1
        missing = []
        if capability not in self.server_capabilities:
            missing.append("the server (add it to BROWX_CAPABILITIES or --caps)")
        if capability not in self.client_capabilities:
            missing.append("the client (open_runtime(capabilities=...))")
        return ToolError(
            "capability-denied",
            f"{tool} needs the {capability!r} capability, which is not enabled by "
            + " or ".join(missing),
            capability=capability,
        )

    async def dispatch(self, name: str, raw_args: Any) -> ToolOutput:
        started = time.perf_counter()
        tool = self.tools.get(name)
        session_id = raw_args.get("session", "default") if isinstance(raw_args, dict) else "default"
        images: tuple[tuple[str, bytes], ...] = ()
        masked_args: Any = raw_args
        try:
            if tool is None:
                raise ToolError("unknown-tool", f"no tool named {name!r}", tool=name)
            args = validate_args(tool.params, raw_args)
            session_id = args.get("session") or "default"
            if not self.allowed(tool.capability):
                raise self.denial(tool.capability, name)
            masked_args = args
            result = await tool.handler(self.context, substitute_deep(args, self._secrets_of(session_id)))
            if isinstance(result, ToolOutput):
                images = result.images
                result = result.envelope
            envelope = result
        except ToolError as err:
            envelope = err.to_envelope()
        except Exception as exc:  # a bug in a handler: report it, keep serving
            log.exception("tool %s failed", name)
            envelope = {"ok": False, "code": "internal", "error": f"{type(exc).__name__}: {exc}"}
        secrets = self._all_secrets()
        if secrets:
            envelope = mask_deep(envelope, secrets)
        if self.recorder is not None:
            self.recorder(CallRecord(
                name, str(session_id), mask_deep(masked_args, secrets), envelope,
                (time.perf_counter() - started) * 1000, sum(self.denials.values()), time.time(),
            ))
        return ToolOutput(envelope, images)
