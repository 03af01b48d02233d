"""Live view: page frames to the host daemon on the operator socket, with acks and step-down.

The pure core, free of Trio and CDP so every size, clamp, window and timeout of the
protocol (``docs/operator-channel.md``) is tested on its own and the actors stay thin:

* :mod:`.request`: a daemon's ``view.start`` (and ``view.stop``, ``frame.ack``) parsed
  into values, with their defaults and clamps; the ``view.started``,
  ``view.stopped`` and ``error`` lines that answer them.
* :mod:`.framing`: one JPEG (as bytes, or as the base64 CDP hands over) into
  ``frame`` lines of parts that each fit the socket's 64 KiB line and decode alone;
  the JPEG's own size from its SOFn marker; and the daemon's way back, parts into
  frames.
* :mod:`.stepdown`: one stream's flow control (one frame in flight, pacing, lost
  frames, stalls) and its step-down level table, driven by explicit times.
* :mod:`.source`: the frame-source protocol an engine implements (the chromium
  screencast is :mod:`browx_actors.sessions.chromium.tabs.screencast`).

The actors, and what joins them to the socket:

* :mod:`.supervisor`: the StreamSupervisor (at most 4 views, replacement, refusals).
* :mod:`.stream`: one LiveViewStream per view, from its source to its outlet.
* :mod:`.outlet`: a stream's lines to the operator link's one writer, one frame at a time.
* :mod:`.messages`: what the channel, the supervisor, the streams and the sessions say.

The reference host daemon that consumes these lines is :mod:`browx_actors.daemon`.
"""
