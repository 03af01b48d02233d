"""The server side of browx-actors: the protocol layer and the one dispatch path.

- :mod:`.catalog`: every tool's declaration and every table, held against each other at start;
- :mod:`.dispatch`: the one dispatch path every tool call takes;
- :mod:`.after`: the dispatch's ``after`` step;
- :mod:`.failure_log`: how a call that failed as a bug is logged: one bounded line;
- :mod:`.egress`: what every result passes on its way out of the server;
- :mod:`.embed`: ``open_runtime()``, the library entry point;
- :mod:`.mcp_stdio`: MCP over stdio, decoupled from the tools;
- :mod:`.mcp_http`: MCP over Streamable HTTP, one namespace of sessions per client;
  :mod:`.http_gate`: who may reach it (token, Origin, Host);
- :mod:`.stdio_lines`: the JSON-RPC lines in and out of the stdio transport;
- :mod:`.main`: ``browx-actors serve``;
- :mod:`.docs`: ``docs/tools.md`` and ``docs/engines.md``, written from the code.
"""
