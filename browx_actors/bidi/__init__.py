"""Raw WebDriver BiDi over trio-websocket: the counterpart of :mod:`browx_actors.cdp` for Firefox.

- :mod:`.protocol`: the errors a command can end with, and the defaults;
- :mod:`.connection`: one websocket to a BiDi endpoint: commands with ids and deadlines,
  events handed to listeners in arrival order, loss that fails every waiter at once;
- :mod:`.launcher`: Debian's ``firefox-esr`` started headless with its BiDi endpoint, in
  a private profile, and stopped with its whole process family.
"""

from .connection import BidiConnection, open_bidi_connection
from .launcher import FirefoxError, FirefoxNotFound, FirefoxProcess, FirefoxStartupError, find_firefox, launch_firefox
from .protocol import BidiConnectionLost, BidiError, BidiFailure, BidiTimeout

__all__ = [
    "BidiConnection",
    "BidiConnectionLost",
    "BidiError",
    "BidiFailure",
    "BidiTimeout",
    "FirefoxError",
    "FirefoxNotFound",
    "FirefoxProcess",
    "FirefoxStartupError",
    "find_firefox",
    "launch_firefox",
    "open_bidi_connection",
]
