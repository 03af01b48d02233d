"""The page agent: the script in the page that gives the server snapshots, refs and lookups.

- :mod:`.pageagent`: its source, the call that reaches it, the snippets and argument
  objects that call its methods, its error codes;
- :mod:`.source`: the script, joined at load from the JavaScript modules beside it, in
  their order;
- :mod:`.calls`: calling it from a tool: its refusals as tool errors, and its methods
  that answer with a Promise;
- ``*.js``: the script's modules, one concern each (``prelude.js`` first,
  ``install.js`` last; :data:`~.source.MODULES` gives the order).
"""
