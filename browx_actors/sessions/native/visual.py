"""The ``ui.*`` tools on android-app and ios-app: the session's hierarchy read and its
visual actions, as a :class:`~browx_actors.visualtree.native_provider.NativeProvider`.

A capture is one fresh hierarchy read (``uiautomator dump`` on Android, WDA's
``/source`` on iOS), the very read every other native tool makes; the visual tree's
node ids are places in that tree (``root.0.3``). An action reads the screen afresh, as
every native action does, finds the node at the captured place and checks that it is
still the captured node (same class, role, automation id and label: a toggled checkbox
is, another control moved into the slot is not, and that is ``stale_node_reference``),
then takes the path the engine's own tools take, and answers as they answer:

- ``tap`` and ``toggle`` are ``click`` on the node (disabled refused, the tap at the
  centre of its on-screen part); ``focus`` is the same tap, offered on text fields
  only, where a tap is how a field gets focus;
- ``setValue`` is ``fill`` (tap, empty the field, type; registered secrets typed as
  their aliases, as fill types them);
- ``typeText`` is a tap that focuses the field, the caret moved to the end on Android
  (a tap puts it where the finger lands; iOS puts it at the end of a field it focuses),
  then the text typed.

``unfocus`` has no primitive on either platform and is refused naming the provider.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal, cast

from ...devices.nodes import NativeNode
from ...tools import Reply
from ...visualtree.model import Action, RawNode
from ...visualtree.native_provider import NativeAction, NativeProvider, moved, native_path, same_node
from ...visualtree.snapshots import Capture
from .actions import fill_located, literal_text, tap_located
from .target import Located

if TYPE_CHECKING:
    from .session import NativeSession

__all__ = ["provider"]

#: The tier an action's ``target.matchedBy`` names: the node came from a reference.
MATCHED_BY = "reference"


async def _located(session: NativeSession, shot: Capture, node: RawNode) -> Located:
    """The captured node in a fresh read, or ``stale_node_reference`` when its place holds another."""
    hierarchy = await session.read()
    fresh = hierarchy.at(native_path(node.id))
    if fresh is None or not same_node(fresh, node):
        raise moved(shot, node)
    return Located(fresh, hierarchy, session.refs.ref_for(hierarchy, fresh), MATCHED_BY)


def _primitives(session: NativeSession) -> dict[Action, NativeAction]:
    async def tap(shot: Capture, node: RawNode, value: str | None) -> Reply:
        return await tap_located(session, await _located(session, shot, node))

    async def set_value(shot: Capture, node: RawNode, value: str | None) -> Reply:
        assert value is not None, "the declaration's rule gives setValue a value"
        return await fill_located(session, await _located(session, shot, node), value)

    async def type_text(shot: Capture, node: RawNode, value: str | None) -> Reply:
        assert value is not None, "the declaration's rule gives typeText a value"
        reply = await tap_located(session, await _located(session, shot, node))
        text = literal_text(session, value, reply)
        if session.platform == "android":
            await session.input.press_key("KEYCODE_MOVE_END")
        if text:
            await session.input.type_text(text)
        reply.fields["typed"] = len(text)
        return reply

    return {"tap": tap, "toggle": tap, "focus": tap, "setValue": set_value, "typeText": type_text}


async def _root(session: NativeSession) -> NativeNode:
    return (await session.read()).root


def provider(session: NativeSession) -> NativeProvider:
    """The session's provider: its hierarchy read and its primitives."""
    assert session.platform in ("android", "ios"), "only the android-app and ios-app engines are wired"
    platform = cast(Literal["android", "ios"], session.platform)
    return NativeProvider(platform, lambda: _root(session), _primitives(session))
