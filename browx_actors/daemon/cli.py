"""``browx-actors daemon``: the reference daemon on this terminal.

    browx-actors daemon --socket PATH --token T [--frames DIR] [--view SESSION ...]

The operator types answers to prompts on stdin; frames go to ``DIR/<session>/latest.jpg``
(and numbered files with ``--numbered``); each stream's level changes and delivered
frame rate are printed as they happen.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from pathlib import Path

import trio

from .link import DaemonError, claim_socket_path, run_daemon

__all__ = ["DESCRIPTION", "add_arguments", "build_parser", "main", "run"]


DESCRIPTION = ("The reference host daemon: answers await_human prompts from this terminal and receives live "
               "views on the operator socket.")


def add_arguments(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
    """The daemon's flags, on ``parser`` (its own, or the ``daemon`` subcommand of ``browx-actors``)."""
    parser.add_argument("--socket", required=True, metavar="PATH", help="Unix socket to listen on "
                        "(the server's BROWX_OPERATOR_SOCKET)")
    parser.add_argument("--token", metavar="T", help="the hello token (default: env BROWX_OPERATOR_TOKEN)")
    parser.add_argument("--frames", metavar="DIR", type=Path, help="write DIR/<session>/latest.jpg")
    parser.add_argument("--numbered", action="store_true", help="also keep every frame as <seq>.jpg")
    parser.add_argument("--view", metavar="SESSION", action="extend", nargs="+", default=[],
                        help="ask for a live view of these sessions once linked")
    parser.add_argument("--max-fps", type=float, help="view.start maxFps (server default 5)")
    parser.add_argument("--max-width", type=int, help="view.start maxWidth (server default 960)")
    parser.add_argument("--quality", type=int, help="view.start quality (server default 60)")
    parser.add_argument("--ack-delay", type=float, default=0.0, metavar="S",
                        help="ack each frame S seconds late (to watch the stream step down)")
    parser.add_argument("--report-every", type=float, default=5.0, metavar="S",
                        help="print delivered fps every S seconds (default 5)")
    return parser


def build_parser() -> argparse.ArgumentParser:
    return add_arguments(argparse.ArgumentParser(prog="browx-actors daemon", description=DESCRIPTION))


def main(argv: Sequence[str] | None = None) -> int:
    return run(build_parser().parse_args(argv))


def run(args: argparse.Namespace) -> int:
    """Run the daemon on this terminal until Ctrl-C; the exit status."""
    token = args.token or os.environ.get("BROWX_OPERATOR_TOKEN")
    if not token:
        print("browx-actors daemon: give --token or set BROWX_OPERATOR_TOKEN", file=sys.stderr)
        return 2
    options = {name: value for name, value in
               (("maxFps", args.max_fps), ("maxWidth", args.max_width), ("quality", args.quality))
               if value is not None}

    async def daemon_on_this_terminal() -> None:
        send, receive = trio.open_memory_channel[str](16)
        async with trio.open_nursery() as nursery:
            nursery.start_soon(_read_stdin, send)
            await run_daemon(args.socket, token, frames_dir=args.frames, views=args.view,
                             ack_delay=args.ack_delay, numbered=args.numbered, view_options=options,
                             terminal=receive, report_every=args.report_every)

    try:
        claim_socket_path(args.socket)
    except DaemonError as exc:
        print(f"browx-actors daemon: {exc}", file=sys.stderr)
        return 1
    interrupted = False
    try:
        trio.run(daemon_on_this_terminal)
    except* KeyboardInterrupt:  # Ctrl-C: Trio hands it out of the nurseries in a group
        interrupted = True
    return 130 if interrupted else 0


async def _read_stdin(send: trio.MemorySendChannel[str]) -> None:
    async with send:
        while line := await trio.to_thread.run_sync(sys.stdin.readline, abandon_on_cancel=True):
            await send.send(line.rstrip("\n"))
