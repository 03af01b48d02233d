"""The firefox engine's page tools.

- :mod:`.navigation`: navigate, go_back, go_forward and the tabs;
- :mod:`.handlers`: screenshots, eval_js, the viewport and dialogs;
- :mod:`.emulation`: emulate and pdf_save;
- :mod:`.downloads`: downloads saved into the workspace (``downloads_list`` is in :mod:`.handlers`);
- :mod:`.waits`: wait_for and poll_eval.
"""
