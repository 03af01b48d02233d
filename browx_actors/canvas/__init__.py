"""Canvas-app automation (capability ``canvas``; ``canvas_diff`` rides ``read``).

Pixels, transform math and adapter dispatch for apps that paint into a
``<canvas>`` instead of laying out DOM:

- :mod:`.capture`: the page-side capture function and the chunks it hands out;
- :mod:`.cache`: the per-session, bounded store of captures behind ``captureId``;
- :mod:`.diff`: pixel/region deltas over RGBA buffers (numpy, pure);
- :mod:`.transform`: world/screen affine math (pure) and the discovery probe's script;
- :mod:`.adapters`: the entry-point registry of canvas-app adapters and ``canvas_query``.

The tools are declared in ``tools/canvas.py``. What runs inside a chromium session
(``canvas_capture``, the discovery probe) is ``sessions/chromium/page/canvas.py``, and
``gesture_chain`` is ``sessions/chromium/input/chain.py``; the runtime tools
(``canvas_diff``, the world/screen conversions) are ``runtime/canvas.py``, and
``canvas_query`` is :mod:`.adapters`.
"""
