"""The page as a whole: navigation, captures, scripts, storage and the session's settings.

- :mod:`.handlers`: navigate, go_back, go_forward, screenshot, screenshot_region,
  set_viewport, eval_js, wait_for;
- :mod:`.storage`: cookies, localStorage and sessionStorage, storage state files;
- :mod:`.emulation`: ``emulate``;
- :mod:`.downloads`: what the pages downloaded, saved into the workspace;
- :mod:`.pdf`: ``pdf_save``;
- :mod:`.canvas`: ``canvas_capture``, and the world/screen probe of the canvas tools.
"""
