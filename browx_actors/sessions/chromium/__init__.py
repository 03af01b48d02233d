"""The chromium engine: one session actor per isolated browser context, and its tools.

- :mod:`.session`: :class:`~.session.ChromiumSession`, the actor (its browser context,
  its tabs, a raw CDP session to each);
- :mod:`.table`: the engine's table: every session tool, run by its handler here or
  refused;
- :mod:`.host`: what the session's helpers need of it, named as a Protocol
  (:class:`~.host.SessionHost`), so that they do not import the actor;
- :mod:`.options`: how a session is set up (viewport, input, recording, its browser);
- :mod:`.pool`: the browser pool actor (the Chromium process and its browser-level
  sockets);
- :mod:`.attached`: a session attached to a browser elsewhere (``cdpEndpoint``);
- :mod:`.failures`: what a failed call tells its caller (a selector Playwright cannot
  parse, a timeout);
- :mod:`.losses`: what a failed call lost (the page, the browser, a renderer);
- :mod:`.warmup`: Playwright's selectors warmed while the agent reads;
- :mod:`.bridge`: Playwright on its asyncio thread, driven from Trio, and the way back;
- :mod:`.agent`: the page agent, the script in the page that gives snapshots, refs,
  lookups and aiming in one round trip;
- :mod:`.tabs`: how a page becomes a tab and is wired, what the session records from
  its events, the tab tools and the live view;
- :mod:`.frames`: frames: refs into them (``f2e5``), agent calls routed there, frames
  in the visual tree, ``frames_list``;
- :mod:`.input`: the actions (click, hover, fill, press, select, scroll), the forms,
  the mouse, touch and drag tools, and the trusted input they send;
- :mod:`.dialogs`: JavaScript dialogs, and ``handle_dialog`` and ``set_dialog_policy``;
- :mod:`.reading`: snapshot, find, text_search, verify_*, inspect, find_feedback, named
  refs, poll_eval, and the visual tree's DOM provider;
- :mod:`.console`: ``console_read``, and what the console records and samples;
- :mod:`.network`: ``network_read``, ``network_body``, the request log, routes;
- :mod:`.page`: navigation, screenshots, viewport, eval, waits, storage, emulation,
  downloads, ``pdf_save``, ``canvas_capture``.

The ``ui.*`` tools run the handlers every engine shares (``sessions/visual.py``) over
this engine's provider (:mod:`.reading.dom_provider`).
"""
