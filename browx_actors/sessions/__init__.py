"""The sessions: one actor per session, each driving its engine.

- :mod:`.session`: the session actor every engine's session is (message routing, call
  deadlines, the failure boundary of a call);
- :mod:`.messages`: the messages a session actor answers;
- :mod:`.visual`: the ``ui.*`` handlers, the same on every engine;
- ``chromium/``: the web engine (a browser context and its tabs);
- ``native/``: what android-app and ios-app share (a leased device's screen);
- ``android/``: android-app, and chrome-android (chromium on a phone);
- ``ios/``: ios-app.
"""
