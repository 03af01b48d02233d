"""The android-app engine: an app on an Android device or emulator, over an adb server.

- :mod:`.session`: :class:`AndroidSession`, the session actor (device choice and lease);
- :mod:`.input`: the UiAutomator hierarchy source and the ``adb shell input`` driver;
- :mod:`.apps`: the app lifecycle over ``pm`` and ``am``;
- :mod:`.capture`: its screenshots; :mod:`.table`: the engine's table (and chrome-android's, :mod:`.chrome`).

The selectors, refs, snapshot and the tools' logic are the native core's
(``sessions/native/``), shared with ios-app.
"""

from .session import AndroidSession

__all__ = ["AndroidSession"]
