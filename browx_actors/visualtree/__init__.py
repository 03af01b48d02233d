"""The compact v2 visual tree: one platform-neutral payload over every engine.

Each engine hands over its hierarchy through one small :class:`~.model.Provider`, so a
new engine is one provider and everything below is written once:

- :mod:`.model`: the raw node a provider hands over, the neutral roles and actions, and
  the ``Provider`` protocol.
- :mod:`.colors`: CSS and Android colours normalised to ``#AARRGGBB``.
- :mod:`.snapshots`: captures, their revisions and ``snapshotId``, node references and
  the staleness rule (``stale_node_reference``).
- :mod:`.payload`: a capture as the compact v2 payload (``ui.get_visual_tree``) or as an
  inspection of one node (``ui.inspect_node``), with ``maxDepth`` / ``maxNodes`` /
  ``rootNodeId`` truncation.
- :mod:`.query`: node selection (``ui.query_nodes``) and the ``ui.wait`` conditions.
- :mod:`.native_provider`: the android-app and ios-app hierarchy (``NativeNode``) as raw
  nodes.

All of it is pure: the session actors do the I/O and the clock reads, and pass the
results in.
"""
