"""What the native engines (android-app, ios-app) share: the session, and every tool's logic.

- :mod:`.session`: :class:`~.session.NativeSession`, the session actor both engines
  subclass (the device lease, a fresh hierarchy read per call, the ref book);
- :mod:`.platform`: what an engine plugs in (a hierarchy source, an input driver, an
  app lifecycle) and the budget every device command takes its timeout from;
- :mod:`.refs`: element keys (test-id-anchored or path-keyed), the session's ref book,
  and :class:`~.refs.Hierarchy`, one read of a tree with its indexes;
- :mod:`.selectors`: the native selector vocabulary, parsed and resolved;
- :mod:`.target`: finding what an action acts on, in the read made for it;
- :mod:`.snapshot`: snapshot text with refs, and the thin-on-test-ids warning;
- :mod:`.find`: ``find`` with selector hints, and ``text_search``;
- :mod:`.reading`: snapshot, find, text_search and verify_*;
- :mod:`.actions`: click, fill, press, scroll, navigate, go_back;
- :mod:`.gestures`: gesture_swipe, the raw touches, gesture_pinch, screenshot_region;
- :mod:`.capture`: screenshots, cropped and scaled;
- :mod:`.feedback`: find_feedback;
- :mod:`.named`: name_ref, list_named_refs;
- :mod:`.lifecycle`: the app_* tools;
- :mod:`.visual`: the ``ui.*`` tools' provider over the hierarchy;
- :mod:`.refusals`: why a native engine refuses a tool, in words an agent can act on;
- :mod:`.table`: the table lines both engines share.

The tree both platforms' hierarchies become (``NativeNode``) is
:mod:`browx_actors.devices.nodes`'s.
"""
