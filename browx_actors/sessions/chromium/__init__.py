"""The chromium engine: one session actor per isolated browser context, and its tools.

- :mod:`.session`: :class:`ChromiumSession`, the actor (context, tabs, raw CDP), with
  :mod:`.options`: how it is set up; :mod:`.losses`: what a failed call lost (the page,
  the browser, a renderer); :mod:`.warmup`: Playwright's selectors warmed while the
  agent reads;
- :mod:`.pageagent` and ``agent/``: the script in the page that gives snapshots,
  refs, lookups and aiming in one round trip;
- :mod:`.actions` (with :mod:`.target`, :mod:`.input`, :mod:`.input_send`,
  :mod:`.settle`): click, hover, fill, press, select, scroll;
- :mod:`.dialog_tools` (with :mod:`.dialogs`): handle_dialog, set_dialog_policy;
- :mod:`.pointer`, :mod:`.touch`, :mod:`.drag` (with :mod:`.touch_input`,
  :mod:`.drag_input`, :mod:`.motion`, :mod:`.playback`, :mod:`.input_state`): the
  mouse, touch and drag primitives and gestures;
- :mod:`.forms`: fill_form, choose_option;
- :mod:`.named_refs` (with :mod:`.ref_names`): name_ref, list_named_refs;
- :mod:`.feedback`, :mod:`.inspect`: find_feedback, inspect;
- :mod:`.page`: navigation, screenshots, viewport, eval, waits; :mod:`.poll`: poll_eval;
- :mod:`.reading`: snapshot, find, text_search, verify_*;
- :mod:`.tabs` (with :mod:`.tabset`, :mod:`.tab_lifecycle`): list_tabs, select_tab, new_tab,
  close_tab, and how a page becomes a tab, gets wired, is replaced and forgotten;
- :mod:`.wiring`, :mod:`.page_events` (with :mod:`.console_text`, :mod:`.network_log`,
  :mod:`.redact`): each tab's command and event sessions, and what the session records
  from them: console, requests, the counters an action's settle reads;
- :mod:`.console`, :mod:`.network`: console_read, network_read, network_body;
- :mod:`.routes` (with :mod:`.route_rules`): route, unroute, route_queue;
- :mod:`.frames` (with :mod:`.frame_refs`): frames_list, frame refs (``f2e5``);
- :mod:`.storage`: cookies, page storage, storage state files;
- :mod:`.files` (with :mod:`.downloads`), :mod:`.pdf`: upload_file, downloads, pdf_save;
- :mod:`.emulation`: emulate;
- :mod:`.attached`: a session attached to a browser elsewhere (``cdpEndpoint``);
- :mod:`.visual` (with :mod:`.dom_provider`): the ``ui.*`` visual-tree tools, declared
  there with this engine's handlers (``TOOLS`` of their own: they are every engine's);
- :mod:`.driver`, :mod:`.aiobridge`, :mod:`.portal`: Playwright on its asyncio thread,
  driven from Trio, and the way back.

:mod:`.table` is the engine's table: every session tool, mapped to its handler here or
to a named refusal.
"""
