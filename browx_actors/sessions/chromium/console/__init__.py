"""The console: what the session's tabs log, and ``console_read``.

- :mod:`.text`: console events as the console shows them (pure);
- :mod:`.sampler`: a page that floods its console, sampled in the page itself;
- :mod:`.handlers`: console_read.
"""
