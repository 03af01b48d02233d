"""Frames: a tab's frames, refs into them, and agent calls and captures that reach them.

- :mod:`.refs`: how a ref into a frame is spelled (``f2e5``), and one snapshot stitched
  from many (pure);
- :mod:`.book`: a tab's frames and their ``fN`` ids (plain data);
- :mod:`.tree`: what a tab's frames are, how to reach each one's page agent, and
  ``frames_list``;
- :mod:`.calls`: page-agent calls routed into a frame, and snapshots with their frames
  stitched in;
- :mod:`.visual`: frames in the visual tree: each frame's capture, hung under its
  ``<iframe>``.
"""
