"""The runtime: the supervision tree, and the tools that are about it.

- :mod:`.tree`: :class:`~.tree.Runtime`, the root supervisor and its children, and the
  context every runtime tool's handler gets;
- :mod:`.factory`: how each engine's session actor is built, and each engine's table;
- :mod:`.status`: the tree as ``runtime_status`` reports it, and why a session ended;
- :mod:`.table`: the runtime's table, every runtime tool and its handler;
- :mod:`.handlers`: open_session, close_session, list_sessions, register_secret,
  runtime_status;
- :mod:`.batch`: ``tool.batch``;
- :mod:`.canvas`: canvas_diff, canvas_world_to_screen and canvas_screen_to_world.
"""
