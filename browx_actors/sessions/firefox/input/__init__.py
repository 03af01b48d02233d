"""The firefox engine's actions: trusted input through ``input.performActions``.

- :mod:`.actions`: click, double_click, hover, fill, press, select, scroll, and the one
  path every action takes (aim, readiness, input);
- :mod:`.settle`: what an action set off, waited for and gathered in chromium's shape;
- :mod:`.pointer`: the mouse as primitives, and drag;
- :mod:`.forms`: fill_form and choose_option;
- :mod:`.files`: upload_file.
"""
