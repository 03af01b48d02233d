"""The OperatorChannel actor: the server's link to the host daemon on a Unix socket.

With the operator-channel capability on, the runtime runs one of these (after the
recorder, before the browser pool). It dials ``BROWX_OPERATOR_SOCKET`` and keeps
dialling with a capped backoff, because the daemon is the operator's process and may
start, restart or vanish at any time; none of that may crash the runtime.

Trust: the daemon proves itself first. Until its first line is
``{"v":1,"type":"hello","token":...}`` with ``BROWX_OPERATOR_TOKEN`` (compared with
``hmac.compare_digest``), nothing it says is read and nothing is sent to it; a wrong
hello (or none within the hello timeout) closes the connection.

Prompts: ``await_human`` in a session asks this actor (:class:`OperatorPrompt`); the
prompt goes to the daemon as ``human.prompt`` and only its ``human.done`` or
``human.abort`` ends it. A prompt waits (within its own timeout) for a link if there
is none. When a link drops, every prompt delivered on it ends at once as unanswered
(``operator-channel-down``): the daemon that showed it is gone and a redial resumes
nothing. Every prompt delivered on a link that is still up gets exactly one
``human.ended`` line when it ends.

Lines: garbage is answered with an ``error`` line and skipped; a line over 64 KiB is
answered with ``line-too-long`` and drops the link.
Each line is the boundary of what the daemon can break: a failure while handling one
(a bug meeting input nobody foresaw) is logged, answered with an ``internal`` error
line, and the link reads on. Whatever else goes wrong, the runtime runs this actor
under a supervisor of its own, so the worst a misbehaving daemon can cost is its link.
The protocol is written down in ``docs/operator-channel.md``.

Live view: with the live-view capability on, ``view.start``, ``view.stop`` and
``frame.ack`` are parsed here and cast, in the order they came, to the stream
supervisor (:mod:`browx_actors.streams.supervisor`). Each ``view.start`` gets an
:class:`~browx_actors.streams.outlet.Outlet` whose writer runs in the link's nursery:
every line of a link, prompts and frames alike, goes through the link's one writer
(:meth:`.link.Link.send`), so a frame's parts go out together and nothing lands between
them. When a link drops, its outlets go with it and the stream supervisor hears
:class:`~browx_actors.streams.messages.ChannelDown`.
"""

from __future__ import annotations

import contextlib
import functools
import itertools
import logging
from collections.abc import Callable

import attrs
import trio

from ..errors import ToolError
from ..jsonsafe import JsonObject
from ..kernel.actor import Actor, Later
from ..kernel.actor_ref import ActorRef, ActorUnavailable
from ..operator_wire import (
    MAX_LINE,
    LineBuffer,
    LineTooLong,
    Message,
    Oversized,
    WireError,
    encode,
    error_line,
    is_valid_hello,
    parse_line,
)
from ..streams.messages import AckFrame, ChannelDown, StartView, StopView
from ..streams.outlet import Outlet
from ..streams.request import ViewRefused, parse_frame_ack, parse_view_start, parse_view_stop, view_error_line
from .desk import OpenPrompt, PromptDesk
from .link import Link, read_line
from .prompts import (
    Aborted,
    Accepted,
    Outcome,
    PromptSpec,
    format_ending,
    format_prompt,
    prompt_line,
)
from .stderr import emit

__all__ = ["CancelPrompt", "OperatorChannel", "OperatorPrompt", "OperatorStatus", "redial_delay"]

log = logging.getLogger("browx_actors.operator")

_VIEW_TYPES = ("view.start", "view.stop", "frame.ack")
#: Link generations, unique in the process (a restarted channel never reuses one), so a
#: stream bound to an old link can never be taken for one of a new link.
_GENERATIONS = itertools.count(1)


@attrs.frozen
class OperatorPrompt:
    """Ask the daemon; the reply is the prompt's :class:`~.prompts.Outcome`."""

    session: str
    spec: PromptSpec


@attrs.frozen
class CancelPrompt:
    """The asking session went away: end its open prompt (cast, no reply)."""

    session: str


@attrs.frozen
class OperatorStatus:
    """Reply: ``{connected, dials, links, drops, refused, pending}``."""


def redial_delay(failures: int) -> float:
    """Seconds before the next dial after ``failures`` failed ones: 50 ms doubling to 5 s."""
    return min(5.0, 0.05 * 2.0 ** min(failures, 10))


class OperatorChannel(Actor):
    def __init__(
        self,
        socket_path: str,
        token: str,
        *,
        live_view: bool = False,
        streams: Callable[[], ActorRef | None] | None = None,
        hello_timeout: float = 10.0,
        write_timeout: float = 10.0,
    ) -> None:
        super().__init__("operator-channel")
        self.socket_path = socket_path
        self._token = token
        self.live_view = live_view
        #: The stream supervisor's current ref (live-view on), looked up at each use.
        self._streams = streams or (lambda: None)
        self.hello_timeout = hello_timeout
        self.write_timeout = write_timeout
        self.desk = PromptDesk(aborted_code="operator-aborted")
        self._link: Link | None = None
        self._link_changed = trio.Event()
        self.links = 0
        self.dials = 0
        self.drops = 0
        self.refused = 0

    # -- the actor --------------------------------------------------------------------

    async def on_start(self) -> None:
        self.nursery.start_soon(self._dial_forever)

    async def handle(self, msg: object) -> object:
        if isinstance(msg, OperatorPrompt):
            prompt = self.desk.open(msg.session, msg.spec)
            try:
                line = prompt_line(msg.session, prompt.ticket, msg.spec)
            except LineTooLong as exc:
                self.desk.close(prompt)
                raise ToolError("bad-arg", f"the prompt is too long for the operator channel: {exc}",
                                field="prompt") from None
            return Later.of(self._ask, prompt, line)
        if isinstance(msg, CancelPrompt):
            for prompt in self.desk.prompts():
                if prompt.session == msg.session:
                    self.desk.end(prompt, Outcome(code="cancelled", error="the asking session went away"))
            return None
        if isinstance(msg, OperatorStatus):
            return {
                "connected": self._link is not None, "dials": self.dials, "links": self.links,
                "drops": self.drops, "refused": self.refused, "pending": len(self.desk.prompts()),
            }
        raise TypeError(f"{self.name} has no handler for {type(msg).__name__}")

    # -- prompts ----------------------------------------------------------------------

    async def _ask(self, prompt: OpenPrompt, line: bytes) -> Outcome:
        emit(format_prompt(prompt.session, prompt.ticket, prompt.spec, world=None, operator=self.socket_path))
        outcome = await self.desk.wait(prompt, functools.partial(self._deliver, line=line))
        emit(format_ending(prompt.ticket, prompt.spec, outcome))
        link = prompt.delivered_on
        if isinstance(link, Link) and not link.dead:
            await link.send(encode("human.ended", ticket=prompt.ticket, reason=_ending_reason(outcome)))
        return outcome

    async def _deliver(self, prompt: OpenPrompt, *, line: bytes) -> None:
        """Hand the prompt to the daemon, waiting (within the prompt's deadline) for a link."""
        while True:
            link = self._link
            if link is None or link.dead:
                await self._link_changed.wait()
                continue
            prompt.delivered_on = link
            await link.send(line)
            if link.dead:
                # The link dropped while (or before) we wrote: the prompt may have been
                # shown, and the redial will not resume it.
                self.desk.end(prompt, _dropped_outcome())
            return

    # -- the link ---------------------------------------------------------------------

    async def _dial_forever(self) -> None:
        failures = 0
        while True:
            self.dials += 1
            try:
                stream = await trio.open_unix_socket(self.socket_path)
            except OSError as exc:
                log.debug("operator socket %s: dial failed: %r", self.socket_path, exc)
                failures += 1
            else:
                if await self._run_link(stream):
                    failures = 0
                else:
                    failures += 1
            await trio.sleep(redial_delay(failures))

    async def _run_link(self, stream: trio.SocketStream) -> bool:
        """Run one connection; True if the daemon authenticated on it."""
        lines = LineBuffer(MAX_LINE)
        async with stream:
            hello: bytes | Oversized | None = None
            with trio.move_on_after(self.hello_timeout):
                hello = await read_line(stream, lines)
            parsed = parse_line(hello) if isinstance(hello, bytes) else hello
            if not is_valid_hello(parsed, self._token):
                self.refused += 1
                log.warning("operator socket %s: the daemon's first line was not a valid hello; closing",
                            self.socket_path)
                with trio.move_on_after(1):
                    with contextlib.suppress(trio.BrokenResourceError, trio.ClosedResourceError, OSError):
                        await stream.send_all(
                            error_line("bad-hello", "the first line must be the hello with the right token"))
                return False
            self.links += 1
            link = Link(stream, next(_GENERATIONS), self.write_timeout)
            reason = "the link was dropped"
            with link.scope:
                async with trio.open_nursery() as nursery:
                    link.nursery = nursery
                    self._set_link(link)
                    if await link.send(encode("ready", server="browx-actors")):
                        reason = await self._read_loop(link, stream, lines)
                    nursery.cancel_scope.cancel()
            self._lost(link, reason)
            await self._views_down(link)
            return True

    async def _read_loop(self, link: Link, stream: trio.SocketStream, lines: LineBuffer) -> str:
        while True:
            try:
                item = await read_line(stream, lines)
            except (trio.BrokenResourceError, trio.ClosedResourceError, OSError) as exc:
                return f"read failed: {exc!r}"
            if item is None:
                return "the daemon closed the socket"
            if isinstance(item, Oversized):
                await link.send(error_line("line-too-long", f"a line is limited to {MAX_LINE} bytes; "
                                           "dropping the connection"))
                return "the daemon sent a line over 64 KiB"
            parsed = parse_line(item)
            try:
                await self._on_line(link, parsed)
            except Exception:
                log.exception("operator link %d: a daemon line could not be handled", link.generation)
                await link.send(error_line("internal", "the server could not handle that line; it was skipped"))

    def _set_link(self, link: Link) -> None:
        self._link = link
        self._link_changed.set()
        self._link_changed = trio.Event()
        log.info("operator socket %s: daemon authenticated (link %d)", self.socket_path, link.generation)

    def _lost(self, link: Link, reason: str) -> None:
        link.dead = True
        self.drops += 1
        if self._link is link:
            self._link = None
        log.warning("operator socket %s: link %d dropped: %s", self.socket_path, link.generation, reason)
        for prompt in self.desk.prompts():
            if prompt.delivered_on is link:
                self.desk.end(prompt, _dropped_outcome())

    async def _on_line(self, link: Link, parsed: Message | WireError) -> None:
        if isinstance(parsed, WireError):
            await link.send(error_line(parsed.code, parsed.message))
            return
        kind, body = parsed.type, parsed.body
        if kind in ("human.done", "human.abort"):
            ticket = body.get("ticket")
            if kind == "human.done":
                verdict = self.desk.offer(ticket, "done", body.get("value"))
            else:
                reason = body.get("reason")
                verdict = self.desk.offer(ticket, "abort", reason if isinstance(reason, str) else "")
            if not isinstance(verdict, (Accepted, Aborted)):
                await link.send(error_line(verdict.code, verdict.reason,
                                           ticket=ticket if isinstance(ticket, str) and len(ticket) <= 64 else None))
            return
        if kind in _VIEW_TYPES:
            await self._on_view_line(link, kind, body)
            return
        if kind == "hello":
            await link.send(error_line("bad-message", "already authenticated on this connection"))
            return
        await link.send(error_line("unknown-type", "this server does not handle that message type"))


    # -- live view ----------------------------------------------------------------------

    async def _on_view_line(self, link: Link, kind: str, body: JsonObject) -> None:
        """Parse a view line and cast it to the stream supervisor; refusals go straight back."""
        if not self.live_view:
            await link.send(view_error_line("view-disabled", "the live-view capability is off",
                                            session=body.get("session")))
            return
        outlet: Outlet | None = None
        message: StartView | StopView | AckFrame
        try:
            if kind == "view.start":
                request = parse_view_start(body)
                assert link.nursery is not None
                outlet = Outlet(link.send, link.generation)
                link.nursery.start_soon(outlet.run)
                message = StartView(request, outlet)
            elif kind == "view.stop":
                message = StopView(parse_view_stop(body), link.generation)
            else:
                ack = parse_frame_ack(body)
                message = AckFrame(ack.session, ack.seq, link.generation)
        except ViewRefused as refused:
            await link.send(refused.line())
            return
        streams = self._streams()
        try:
            if streams is None:
                raise ActorUnavailable("streams", "is not running")
            await streams.cast(message)
        except ActorUnavailable:
            if outlet is not None:
                outlet.send_line(view_error_line("view-failed", "the stream supervisor is not running",
                                                 session=body.get("session")))
                outlet.close()

    async def _views_down(self, link: Link) -> None:
        """Tell the stream supervisor that ``link`` dropped: its views end, none resumes."""
        streams = self._streams() if self.live_view else None
        if streams is None:
            return
        with trio.CancelScope(shield=True), trio.move_on_after(1), contextlib.suppress(ActorUnavailable):
            await streams.cast(ChannelDown(link.generation))


def _dropped_outcome() -> Outcome:
    return Outcome(code="operator-channel-down",
                   error="the operator socket dropped before an answer came; the prompt ended unanswered")


def _ending_reason(outcome: Outcome) -> str:
    if outcome.timed_out:
        return "timeout"
    if outcome.code == "operator-aborted":
        return "aborted"
    if outcome.code is not None:
        return outcome.code
    return "answered"
