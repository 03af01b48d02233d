"""The operator's human-in-the-loop policies: confirmation hooks, dialog and permission
policies, and who may change them.

The origin policy (``origins.py``) keeps a session's pages away from places; these keep
a person between the agent and an act that cannot be taken back. Each is plain data
read from the operator's policy file (``--policy``) or set by a tool the operator
enabled, and each is decided by pure functions here; the dispatch asks the person
(``server/confirm.py``) and the engines answer dialogs and permission requests.

- :mod:`.confirm`: the rules that route a call through ``await_human {kind: confirm}``.
- :mod:`.permissions`: allow, deny or ask-human per permission.
- :mod:`.file`: the policy file, read and checked at start.
- :mod:`.book`: what is in force for each session, and what a tool may not lift.
"""
