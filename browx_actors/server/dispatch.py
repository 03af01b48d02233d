"""The one dispatch path every tool call takes, from MCP or from the library.

``Dispatcher.dispatch(name, args)`` does, in this order and nowhere else:

1. look the tool up (``unknown-tool`` otherwise), and check its capability against
   both gates: the server's set and the client's set must both allow it
   (``capability-denied`` naming it; denials are counted), so a tool ``tools/list``
   leaves out is refused as such whatever its arguments;
2. validate the arguments against the tool's declared parameters (``bad-arg`` naming
   the field), then its declared rules between them, and make the ``session`` the
   calling client's own (over HTTP: ``clients.py``);
3. check the gates for any capability the argument values add (``open_session`` of a
   native engine needs ``native-device``); a forwarded call (``canvas_query``) also has
   its inner operation's capability gated and its arguments validated; and the
   operator's origin policy for a URL the call loads (``origin-blocked`` naming the
   origin and the rule; one only the allow list leaves out goes to step 5 when a confirm
   rule asks about it), and the policy locks (``policy-locked``: a tool may not change
   what the operator's policy file set);
4. check the ``after`` request, which every tool takes (``after.py``): each capture's
   arguments against its own tool's declaration, and that tool's capability;
5. ask a person when a confirm rule of the policy matches the call (``confirm.py``):
   it goes on only on their yes;
6. substitute registered secrets into the arguments whose declaration takes them (a
   typed, sent or expected value, a script; never a path, URL or selector), and mask
   them in the ones that leave the server, such as a prompt or a file's name;
7. build the tool's argument class and run its handler: a runtime tool's (from the
   runtime's table) here, a session tool inside its session's actor (which runs what
   its engine's table names for it); a :class:`~browx_actors.errors.ToolError` becomes
   its envelope, any other exception an ``internal`` one, logged as one bounded line
   (``failure_log.py``);
8. run the ``after`` captures, if any, through the same session path, into the
   envelope's ``after`` (whether the call succeeded or failed; never in its place);
9. pass the result through the egress steps (an HTTP client's prefix taken off the ids
   it reads; ``egress.py``: registered secrets masked);
10. hand the call to the recorder (one ``is None`` check when diagnostics is off);
11. return the envelope, plus any images, as a :class:`ToolOutput`.

Steps 1 to 4 acquire nothing, so a bad call is refused in microseconds, with no
browser started and no session opened (and nothing captured after it); step 5 reaches
the session only for a call a confirm rule covers, and 6 acquires nothing either. No tool
validates, gates, substitutes or masks by itself. ``tool.batch`` sends each of its
calls back through :meth:`Dispatcher.dispatch` (the runtime's ``dispatch``), so every
step above sees every inner call.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Mapping

import attrs

from .. import clients
from ..errors import ToolError
from ..jsonsafe import JsonObject, JsonValue
from ..origins import OriginPolicy
from ..policy.book import PolicyBook
from ..recorder.records import CallRecord
from ..secret_book import SecretBook, mask_deep, substitute_deep
from ..tools import AnyTool, Gates, Runs, ToolOutput, validate_args
from ..tools.after import AFTER, split_after
from ..tools.context import RuntimeContext
from ..tools.navigation import url_to_load
from .after import AfterCapture, check_after, run_after
from .catalog import Catalog
from .confirm import confirmed
from .egress import leaving, outgoing
from .failure_log import failure_line, log_failure

__all__ = ["Dispatcher"]

#: Tools whose ``url`` argument is loaded in a page.
_LOADS_URL = frozenset({"navigate", "new_tab"})

log = logging.getLogger("browx_actors.dispatch")


class Dispatcher:
    """The catalog (tools by name, and the tables), the gates, the secrets and the recorder hook."""

    def __init__(
        self,
        catalog: Catalog,
        *,
        context: RuntimeContext,
        gates: Gates,
        secrets: SecretBook,
        recorder: Callable[[CallRecord], None] | None = None,
        origins: OriginPolicy | None = None,
        policy: PolicyBook | None = None,
    ) -> None:
        self.catalog = catalog
        self.context = context
        self.gates = gates
        self.secrets = secrets
        #: The recorder hook. None keeps the path to a single check.
        self.recorder = recorder
        #: The operator's origin policy, applied to the URLs a call loads (step 3).
        self.origins = origins or OriginPolicy()
        #: The human-in-the-loop policies: the locks (step 3) and the confirm rules (step 6).
        self.policy = policy

    async def dispatch(self, name: str, raw_args: JsonValue) -> ToolOutput:
        started = time.perf_counter()
        client = clients.current()
        session_id = raw_args.get("session", "default") if isinstance(raw_args, dict) else "default"
        images: tuple[tuple[str, bytes], ...] = ()
        recorded_args: JsonValue = raw_args
        after: tuple[AfterCapture, ...] = ()
        ran = False
        try:
            tool = self.catalog.get(name)
            if tool is None:
                raise ToolError("unknown-tool", f"no tool named {name!r}", tool=name)
            # The tool's capability before anything else: a tool tools/list leaves out
            # answers capability-denied, whatever its arguments.
            self.gates.require(tool.capability, tool.name)
            own_args, after_request = split_after(raw_args)
            if after_request is not None:
                # Its shape first, like every argument: a bad value is bad-arg before any gate.
                validate_args((AFTER,), {"after": after_request})
            args = self._checked(tool, own_args)
            if client is not None and "session" in args:  # the calling client's own session
                args["session"] = clients.scoped(str(args["session"]), client)
            off_list = self._within_origins(tool, args)
            if self.policy is not None:
                self.policy.refuse_if_locked(tool.name)
            if after_request is not None:
                after = check_after(after_request, self.catalog.tools, self.gates)
            session_id = args.get("session") or "default"
            recorded_args = args if after_request is None else {**args, "after": after_request}
            if self.policy is not None:
                await confirmed(self.policy, self.context, tool, args, self._masked_text, off_list=off_list)
            args = self._with_secrets(tool, args, str(session_id))
            ran = True
            output = ToolOutput.of(name, await self._run(tool, args))
            envelope, images = output.envelope, output.images
        except ToolError as err:
            envelope = err.to_envelope()
        except Exception as exc:  # a bug in a handler: report it (one bounded line), keep serving
            log_failure(log, f"tool {name}", exc)
            envelope = {"ok": False, "code": "internal", "error": failure_line(exc)}
        if ran and after:
            captured = await run_after(after, str(session_id), self.context, self._run)
            envelope = {**envelope, "after": captured.envelope}
            images += captured.images
        if client is not None:  # the client reads its sessions as it named them
            envelope = clients.unscoped(envelope, client)
        masks = self.secrets.masks()
        out = leaving(envelope, masks)
        envelope = out.data
        if self.recorder is not None:
            self.recorder(CallRecord(
                name, str(session_id), outgoing(recorded_args, masks), envelope,
                (time.perf_counter() - started) * 1000, self.gates.denied_total, time.time(),
            ))
        return ToolOutput(envelope, images, out.text)

    def _checked(self, tool: AnyTool, raw_args: JsonValue) -> JsonObject:
        """Steps 2 and 3: parameters, rules, the capabilities the arguments add, and a
        forwarded call's inner op (the tool's own capability is checked before)."""
        args = validate_args(tool.params, raw_args)
        for rule in tool.rules:
            rule.check(args)
        for capability in tool.needed_capabilities(args)[1:]:
            self.gates.require(capability, tool.name)
        entry = self.catalog.runtime.entry(tool.name) if tool.scope == "runtime" else None
        if isinstance(entry, Runs) and entry.delegate is not None:
            inner = entry.delegate(self.context, args)
            self.gates.require(inner.capability, inner.name)
            try:
                args[inner.field] = validate_args(inner.params, args[inner.field] or {})
            except ToolError as err:
                field = err.details.get("field", "arguments")
                raise ToolError("bad-arg", f"{inner.name}: {err.message}",
                                field=inner.field if field == "arguments" else f"{inner.field}.{field}") from err
        return args

    def _within_origins(self, tool: AnyTool, args: JsonObject) -> str | None:
        """Step 3's policy: a URL a call would load, outside the operator's origin policy,
        is refused before anything is touched (the browsers block the pages' own
        requests). An origin only the allow list leaves out, which a confirm rule has a
        person asked about, is returned instead: step 5 asks."""
        url = args.get("url") if tool.name in _LOADS_URL else None
        if not isinstance(url, str) or not self.origins.active:
            return None
        session = str(args.get("session") or "default")
        policy = self.origins
        if self.policy is not None and self.policy.admitted(session):
            policy = attrs.evolve(policy, admitted=policy.admitted | self.policy.admitted(session))
        loads = url_to_load(url)
        refused = policy.refusal(loads)
        if refused is None:
            return None
        origin, why = refused
        listed_block = OriginPolicy(blocked=policy.blocked).refusal(loads) is not None
        if not listed_block and self.policy is not None and self.policy.asks_off_list(session, tool.name):
            return origin
        raise ToolError("origin-blocked", f"{tool.name} to {origin}: {why}", origin=origin, rule=why, field="url")

    def _masked_text(self, text: str) -> str:
        masked = mask_deep(text, self.secrets.masks())
        return masked if isinstance(masked, str) else text

    def _with_secrets(self, tool: AnyTool, args: JsonObject, session_id: str) -> JsonObject:
        """Step 5, per parameter as declared (``Param.secrets``): keep (the default: a
        path, URL or selector never gets a value), substitute, substitute in each item's
        ``value``, or mask."""
        own = self.secrets.of(session_id)
        masks = self.secrets.masks()
        if not masks:
            return args
        out = dict(args)
        for param in tool.params:
            value = out.get(param.name)
            if value is None or param.secrets == "keep":
                continue
            if param.secrets == "mask":
                out[param.name] = mask_deep(value, masks)
            elif own and param.secrets == "values" and isinstance(value, list):
                out[param.name] = [_item_value_substituted(item, own) for item in value]
            elif own and param.secrets == "substitute":
                out[param.name] = substitute_deep(value, own)
        return out

    async def _run(self, tool: AnyTool, checked: JsonObject) -> object:
        """Step 7: the checked arguments as the tool's argument class, to its handler."""
        args = tool.args.of(checked)
        if tool.scope == "runtime":
            entry = self.catalog.runtime.entry(tool.name)
            assert isinstance(entry, Runs), "the catalog binds every runtime tool"
            return await entry.handler(self.context, args)
        return await self.context.run_tool(checked["session"], tool, args, timeout=tool.timeout_for(args))


def _item_value_substituted(item: JsonValue, own: Mapping[str, str]) -> JsonValue:
    """One ``{ref or selector, value}`` item with secrets substituted in its ``value`` only."""
    if not isinstance(item, dict) or "value" not in item:
        return item
    return {**item, "value": substitute_deep(item["value"], own)}
