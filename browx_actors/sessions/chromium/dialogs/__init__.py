"""JavaScript dialogs: answered by the agent, never swallowed.

- :mod:`.book`: :class:`~.book.DialogBook`, the session's dialogs (the policy, the open
  one per tab, the auto-answered ones) and the calls they interrupt;
- :mod:`.handlers`: handle_dialog, set_dialog_policy.
"""
