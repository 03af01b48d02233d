"""What the native engines share: the node tree, refs, selectors and snapshot text.

- ``nodes``: NativeNode and Rect, the platform-neutral tree both hierarchies become.
- ``refs``: element keys (testID-anchored or path-keyed), the session's ref book, and
  Hierarchy, one read of a tree with its indexes.
- ``selectors``: the native selector vocabulary, parsed and resolved (all matches, and the
  tier that matched).
- ``snapshot``: snapshot text with refs, and the thin-on-testIDs warning.
- ``find``: ``find`` with selector hints, and ``text_search``.
"""
