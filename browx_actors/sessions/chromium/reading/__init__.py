"""Reading the page: the reading tools, named refs, polling, and the visual tree's DOM provider.

- :mod:`.handlers`: snapshot, find, text_search, verify_*;
- :mod:`.inspect`: ``inspect`` (box, computed styles, attributes, accessibility);
- :mod:`.feedback`: ``find_feedback``;
- :mod:`.names`: name_ref, list_named_refs;
- :mod:`.name_book`: the session's named refs and their anchors (pure);
- :mod:`.resolve`: named refs in any tool's arguments, resolved before its handler runs;
- :mod:`.poll`: ``poll_eval``, and :func:`~.poll.poll_until`, the loop other waits use;
- :mod:`.dom_provider`: :class:`~.dom_provider.DomProvider`, the page as the visual
  tree reads it and acts on it.
"""
