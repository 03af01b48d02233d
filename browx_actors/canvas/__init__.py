"""Canvas-app automation (capability ``canvas``; ``canvas_diff`` rides ``read``).

Pixels, gestures, transform math and adapter dispatch for apps that paint into a
``<canvas>`` instead of laying out DOM:

- :mod:`.capture`: the page-side capture function and its Trio side (raw CDP);
- :mod:`.cache`: the per-session, bounded store of captures behind ``captureId``;
- :mod:`.diff`: pixel/region deltas over RGBA buffers (numpy, pure);
- :mod:`.gestures`: ``gesture_chain`` step validation (pure) and execution;
- :mod:`.transform`: world/screen affine math (pure) and the discovery probe;
- :mod:`.adapters`: the entry-point registry of canvas-app adapters and ``canvas_query``.

Each tool is declared beside its handler (``canvas_capture`` in :mod:`.capture`,
``gesture_chain`` in :mod:`.gestures`, ``canvas_query`` in :mod:`.adapters`, the rest in
:mod:`.tools`, which lists them all in ``TOOLS``).
"""
