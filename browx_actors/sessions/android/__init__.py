"""The android-app engine: an app on an Android device or emulator, over an adb server; and
chrome-android, Chrome on such a device.

- :mod:`.session`: :class:`~.session.AndroidSession`, the session actor (device choice
  and lease);
- :mod:`.input`: the UiAutomator hierarchy source and the ``adb shell input`` driver;
- :mod:`.apps`: the app lifecycle over ``pm`` and ``am``;
- :mod:`.capture`: its screenshots;
- :mod:`.live`: its live view (screencap frames as JPEG);
- :mod:`.chrome`: the chrome-android session, a chromium session attached to Chrome on
  the leased device;
- :mod:`.table`: android-app's table, and chrome-android's.

The selectors, refs, snapshot and the tools' logic are the native core's
(``sessions/native/``), shared with ios-app.
"""

from .session import AndroidSession

__all__ = ["AndroidSession"]
