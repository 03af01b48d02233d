"""Acting on the page: the actions, the raw input tools, and the trusted input they send.

- :mod:`.actions`: click, hover, fill, press, select, scroll, and the action shape every
  action answers in;
- :mod:`.target`: finding an action's target in one round trip;
- :mod:`.settle`: waiting until an action's effects have settled, and reporting them;
- :mod:`.send`: input written to the current tab, and let go of when a dialog
  interrupts;
- :mod:`.state`: what a tab's input devices are doing (the pointer, the buttons held,
  the fingers down);
- :mod:`.commands`: mouse and key events as raw CDP commands;
- :mod:`.touch_commands`: touch events and touch emulation as raw CDP commands;
- :mod:`.drag_commands`: HTML5 drag and drop as raw CDP commands;
- :mod:`.motion`: the shape of a gesture in time (paths, pacing, a pinch's fingers);
- :mod:`.playback`: a gesture's steps sent at their times;
- :mod:`.pointer`: mouse_down, mouse_move, mouse_up, mouse_wheel, double_click;
- :mod:`.touch`: touch_start, touch_move, touch_end, gesture_swipe, gesture_pinch;
- :mod:`.chain`: ``gesture_chain``, a checked pointer program run in one bridge hop;
- :mod:`.drag`: ``drag``, by mouse or as HTML5 drag and drop;
- :mod:`.forms`: fill_form, choose_option;
- :mod:`.files`: upload_file, downloads_list.
"""
