"""The page as a whole: navigation, captures, scripts, storage and the session's settings.

- :mod:`.handlers`: navigate, go_back, go_forward, screenshot, screenshot_region,
  set_viewport, emulate, eval_js, wait_for;
- :mod:`.storage`: cookies, localStorage and sessionStorage, storage state files;
- :mod:`.emulation`: the session's emulation state, on every tab;
- :mod:`.downloads`: the records of what the pages downloaded, and safe file names;
- :mod:`.saves`: each download saved into the workspace, and a call's new ones listed;
- :mod:`.pdf`: ``pdf_save``;
- :mod:`.canvas`: ``canvas_capture``, and the world/screen probe of the canvas tools.
"""
