"""Devices and their toolchains: what the native engines read from and send to a device.

- ``nodes``: the platform-neutral NativeNode tree every hierarchy is parsed into (a leaf:
  the native engines and the visual tree read it, and it reads nothing).

Android:

- ``uiautomator``: ``uiautomator dump`` output parsed into the shared NativeNode tree.
- ``adb_commands``: the shell commands the android-app engine sends over adb, built and
  quoted in one place.
- ``adb_output``: parsers for what the adb server and those commands print.

iOS: ``wda_source`` (WebDriverAgent's source tree into NativeNode), ``wda_client`` and
``simctl``.
"""
