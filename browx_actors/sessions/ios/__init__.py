"""The ios-app engine: an app on an iOS Simulator, through WebDriverAgent and simctl.

- :mod:`.session`: :class:`~.session.IosSession`, the session actor (simulator choice,
  lease, boot, install, the WDA session);
- :mod:`.input`: the WDA hierarchy source and input driver;
- :mod:`.apps`: the app lifecycle over simctl;
- :mod:`.capture`: its screenshots;
- :mod:`.table`: the engine's table.

The selectors, refs, snapshot and the tools' logic are the native core's
(``sessions/native/``), shared with android-app.
"""

from .session import IosSession

__all__ = ["IosSession"]
