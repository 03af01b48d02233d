"""The runtime: the supervision tree, and the tools that are about it.

- :mod:`.tree`: :class:`~.tree.Runtime`, the root supervisor and its children, and the
  context every runtime tool's handler gets;
- :mod:`.factory`: how each engine's session actor is built;
- :mod:`.status`: the tree as ``runtime_status`` reports it;
- :mod:`.handlers`: open_session, close_session, list_sessions, register_secret,
  runtime_status; :mod:`.batch`: ``tool.batch``.
"""
