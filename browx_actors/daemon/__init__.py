"""The reference host daemon: what a user runs to try the operator channel and live view.

    browx-actors daemon --socket PATH --token T [--frames DIR] [--view SESSION ...]

It is the other end of ``docs/operator-channel.md``. It listens on the Unix socket
(the server dials), proves itself with the hello, shows each ``human.prompt`` on its
terminal and sends back what the operator types, asks for a view of each ``--view``
session once linked (and again every 2 s while that session is not open, or after it
or its page went away), joins each frame's parts, hands the frame on (``latest.jpg`` in
a folder per session under ``--frames``, written then renamed so a viewer never reads
half a file; numbered files too with ``--numbered``), and only then acks it. It
prints each stream's level changes (a frame of a new width) and its delivered frame
rate every few seconds.

Tests and the chaos and benchmark harness drive it too, so it is scriptable:
``ack_policy`` decides per frame when to ack, or never; ``on_line`` sees every line the
server sends and ``on_frame`` every frame handed on; ``terminal`` is any channel of
typed lines; :meth:`Daemon.send`, :meth:`~Daemon.start_view`, :meth:`~Daemon.stop_view`
and :meth:`~Daemon.drop` act on the live connection, and :meth:`~Daemon.serve` runs one
connection over any Trio stream. The protocol logic (joining parts, reading answers,
the fps meter) is pure and tested directly; the Trio part only moves lines.

The package, along its seams: :mod:`.prompts` (the terminal side of prompts),
:mod:`.views` (ack policies, what each stream delivered, frames on disk), :mod:`.link`
(the socket and one connection at a time) and :mod:`.cli` (the command line).

The socket file is made private (0600): the daemon tells its token to whoever connects.
"""

from .cli import build_parser, main
from .link import Daemon, DaemonError, claim_socket_path, run_daemon
from .prompts import AnswerError, PromptBook, describe_prompt, parse_answer, printable
from .views import AckPolicy, ViewTrack, ack_after, frame_folder, never_ack, write_frame

__all__ = ["AckPolicy", "AnswerError", "Daemon", "DaemonError", "PromptBook", "ViewTrack", "ack_after",
           "build_parser", "claim_socket_path", "describe_prompt", "frame_folder", "main", "never_ack",
           "parse_answer", "printable", "run_daemon", "write_frame"]
