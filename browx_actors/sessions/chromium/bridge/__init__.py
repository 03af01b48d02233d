"""Playwright from Trio: its asyncio loop on a thread of its own, and the way back.

- :mod:`.aiobridge`: :class:`~.aiobridge.AsyncioThread`, the asyncio loop Trio ships
  Playwright's coroutines to, cancellation included;
- :mod:`.driver`: :class:`~.driver.PlaywrightDriver`, the one Playwright instance,
  started on first use, and the ``browxref`` selector engine;
- :mod:`.portal`: :class:`~.portal.Portal`, code on the Playwright thread awaiting a
  Trio coroutine.
"""
