"""The firefox engine's page tools.

- :mod:`.navigation`: navigate, go_back, go_forward and the tabs;
- :mod:`.handlers`: screenshots, eval_js, the viewport and dialogs;
- :mod:`.emulation`: emulate and pdf_save;
- :mod:`.downloads`: downloads saved into the workspace, and downloads_list;
- :mod:`.waits`: wait_for and poll_eval.
"""
