"""Protocol-level test peers for the native engines: adb (smart sockets) and WebDriverAgent."""
