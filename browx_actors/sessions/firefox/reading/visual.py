"""The visual tree (``ui.*``) on firefox: the chromium engine's ``dom`` provider, with firefox's actions.

The capture is the page agent's ``visualTree``, the same script in the sandbox realm, so
a node tree reads the same on both engines. Actions turn the captured node into a ref
(``visualRef``) and then run this engine's own tools: ``tap`` and ``toggle`` are
``click``, ``setValue`` is ``fill`` (``select`` for a ``<select>``), ``focus`` and
``unfocus`` focus or blur the element in the sandbox, ``typeText`` puts the caret at
the end and types. A page's frames are not read into the tree here (chromium reads them
over CDP); their nodes stand empty and the answer says so.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, ClassVar

from ....bidi import input as keys
from ....errors import ToolError
from ....tools import Reply
from ....tools.actions import ClickArgs, FillArgs, SelectArgs
from ....visualtree.model import RawNode
from ...chromium.agent.calls import agent_call
from ...chromium.input.brief import brief_element
from ...chromium.reading.dom_provider import DomProvider, done_with
from ..input import actions

if TYPE_CHECKING:
    from ..session import FirefoxSession

__all__ = ["FirefoxDomProvider"]

#: ``(agent, {ref, how})``: focus, blur, or focus with the caret at the end of the element's text.
_FOCUS = """(agent, a) => {
  const el = agent.resolve(a.ref);
  if (!el) return false;
  if (a.how === 'blur') { el.blur(); return true; }
  el.focus();
  if (a.how === 'end' && typeof el.setSelectionRange === 'function' && typeof el.value === 'string') {
    try { el.setSelectionRange(el.value.length, el.value.length); } catch (e) { /* a type without a caret */ }
  }
  return true;
}"""


async def _tap(session: FirefoxSession, node: RawNode, ref: str, value: str | None) -> Reply:
    return done_with("click", await actions.click(session, ClickArgs(ref=ref)))


async def _set_value(session: FirefoxSession, node: RawNode, ref: str, value: str | None) -> Reply:
    assert value is not None  # the tool's rules insist
    if node.type_name != "select":
        return done_with("fill", await actions.fill(session, FillArgs(ref=ref, value=value)))
    try:
        return done_with("select", await actions.select(session, SelectArgs(ref=ref, values=[value])))
    except ToolError as err:
        if err.details.get("field") == "values":
            raise ToolError("bad-arg", err.message, field="value") from err
        raise


def _focusing(name: str, how: str) -> Callable[[FirefoxSession, RawNode, str, str | None], Awaitable[Reply]]:
    async def perform(session: FirefoxSession, node: RawNode, ref: str, value: str | None) -> Reply:
        if not await session.in_sandbox(_FOCUS, {"ref": ref, "how": how}):
            raise ToolError("stale-element", f"ref {ref} no longer points at a live element", ref=ref)
        if how == "end" and value:
            await actions.perform_input(session, keys.typing(value))
        described = await agent_call(session, "describe", ref)
        return done_with(name, Reply.of(target=brief_element(described) if isinstance(described, dict) else ref))

    return perform


class FirefoxDomProvider(DomProvider):
    """The ``dom`` provider of a firefox session (see the module notes)."""

    # Any: as the base's (each action takes this engine's session).
    actions: ClassVar[dict[str, Callable[[Any, RawNode, str, str | None], Awaitable[Reply]]]] = {
        "tap": _tap,
        "focus": _focusing("focus", "focus"),
        "unfocus": _focusing("unfocus", "blur"),
        "setValue": _set_value,
        "typeText": _focusing("typeText", "end"),
        "toggle": _tap,
    }
    reads_frames: ClassVar[bool] = False
