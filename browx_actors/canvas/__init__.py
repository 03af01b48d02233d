"""Canvas-app automation (capability ``canvas``; ``canvas_diff`` rides ``read``).

Pixels, gestures, transform math and adapter dispatch for apps that paint into a
``<canvas>`` instead of laying out DOM:

- :mod:`.capture`: the page-side capture function and its Trio side (raw CDP);
- :mod:`.cache`: the per-session, bounded store of captures behind ``captureId``;
- :mod:`.diff`: pixel/region deltas over RGBA buffers (numpy, pure);
- :mod:`.gestures`: ``gesture_chain``'s execution (its program is checked by
  ``tools/canvas.py`` before anything runs);
- :mod:`.transform`: world/screen affine math (pure) and the discovery probe;
- :mod:`.adapters`: the entry-point registry of canvas-app adapters and ``canvas_query``.

The tools are declared in ``tools/canvas.py``. The session tools' handlers
(``canvas_capture`` in :mod:`.capture`, ``gesture_chain`` in :mod:`.gestures`) are in the
chromium engine's table; the runtime tools' (``canvas_query`` in :mod:`.adapters`, the
rest in :mod:`.handlers`) in the runtime's.
"""
