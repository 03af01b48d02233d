"""Devices and their toolchains: what the native engines read from and send to a device.

- :mod:`.nodes`: the platform-neutral NativeNode tree every hierarchy is parsed into (a
  leaf: the native engines and the visual tree read it, and it reads nothing);
- :mod:`.device_info`: what a device is, as ``device_list`` and a session report it;
- :mod:`.leases`: the DeviceRegistry supervisor and its leases, one owner per device;
- :mod:`.toolchain`: the operator's ``emulator`` and ``xcrun simctl``, found and run;
- :mod:`.handlers`: the device lifecycle tools' handlers (``device_list``,
  ``device_boot``, ``device_shutdown``).

Android:

- :mod:`.adb`: the adb server, reached with adbutils from worker threads;
- :mod:`.adb_commands`: the shell commands the android-app engine sends, built and quoted;
- :mod:`.adb_output`: parsers for what the adb server and those commands print;
- :mod:`.choice`: which Android device a session drives;
- :mod:`.emulator`: booting and stopping Android emulators;
- :mod:`.uiautomator`: ``uiautomator dump`` output parsed into the NativeNode tree;
- :mod:`.uiautomator_scan`: the fast reader of the dump AOSP writes, with expat behind it.

iOS:

- :mod:`.wda_client`: a thin WebDriverAgent client over httpx;
- :mod:`.wda_source`: WebDriverAgent's JSON source tree into NativeNode;
- :mod:`.wda_actions`: a pinch about any point as W3C touch actions for WDA;
- :mod:`.simctl`: what ``xcrun simctl`` prints, and which simulator a session uses.
"""
