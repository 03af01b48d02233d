"""The compact v2 visual tree: one platform-neutral payload over every engine.

Each engine hands over its hierarchy through one small :class:`~.provider.Provider`, so a
new engine is one provider and everything below is written once:

- :mod:`.model`: the raw node a provider hands over, the neutral roles and actions;
  :mod:`.provider`: the ``Provider`` protocol.
- :mod:`.colors`: CSS and Android colours normalised to ``#AARRGGBB``.
- :mod:`.snapshots`: captures, their revisions and ``snapshotId``, node references and
  the staleness rule (``stale_node_reference``).
- :mod:`.payload`: a capture as the compact v2 payload (``ui.get_visual_tree``) or as an
  inspection of one node (``ui.inspect_node``), with ``maxDepth`` / ``maxNodes`` /
  ``rootNodeId`` truncation.
- :mod:`.query`: node selection (``ui.query_nodes``) and the ``ui.wait`` conditions.
- :mod:`.requests`: the queries, limits and references the ``ui.*`` tools' checked
  arguments become (the tools and their arguments are declared in ``tools/visual.py``).
- :mod:`.operations`: the ``ui.*`` flows over any provider and a session's
  ``SnapshotBook``, so an engine's handler is one line.
- :mod:`.native_provider`: the android-app and ios-app hierarchy (``NativeNode``) as raw
  nodes. The ``dom`` provider is the chromium engine's
  (``sessions/chromium/reading/dom_provider.py``): it needs the engine's page agent.

All of it is pure but :mod:`.operations`, which awaits its provider (the I/O is the
provider's) and reads Trio's clock for ``ui.wait``.
"""
