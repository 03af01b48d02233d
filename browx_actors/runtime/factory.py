"""How each engine's session actor is built, from the runtime's config and parts.

The runtime starts a session as a temporary child of its session supervisor; what that
child is depends on the engine alone. Building one is plain wiring (which option of the
config goes where, which of the runtime's children the session asks for), so it lives
here as functions of a :class:`SessionParts` rather than as methods of the runtime,
and the runtime keeps to the tree.

The session is handed *ways to reach* the pool and the device registry, never their
refs: a child the root restarted has a new ref, and the session asks when it needs one.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

import attrs

from ..config import RuntimeConfig
from ..devices.adb import AdbAddress
from ..errors import ToolError
from ..jsonsafe import JsonValue
from ..kernel.actor import Actor
from ..kernel.actor_ref import ActorRef
from ..policy.confirm import ConfirmPolicy
from ..secret_book import SecretBook
from ..sessions.android import AndroidSession
from ..sessions.android import table as android_table
from ..sessions.android.chrome import ChromeAndroidSession
from ..sessions.chromium import table as chromium_table
from ..sessions.chromium.bridge.driver import PlaywrightDriver
from ..sessions.chromium.options import SessionOptions
from ..sessions.chromium.session import ChromiumSession
from ..sessions.context_options import ContextOptions
from ..sessions.firefox import table as firefox_table
from ..sessions.firefox.session import FirefoxSession
from ..sessions.ios import IosSession
from ..sessions.ios import table as ios_table
from ..tools import Table

__all__ = ["CONNECTING_ENGINES", "TABLES", "UNAVAILABLE", "SessionFactory", "SessionParts", "session_factory"]

#: Engines whose sessions connect to their device after they start (``AwaitReady``).
CONNECTING_ENGINES = frozenset({"android-app", "ios-app"})


@attrs.frozen
class SessionParts:
    """What a session actor is built from: the runtime's config and what it shares."""

    config: RuntimeConfig
    driver: PlaywrightDriver
    #: The browser pool's ref, asked for when a session needs it.
    pool: Callable[[], ActorRef]
    #: The device registry's ref, asked for when a native session leases its device.
    registry: Callable[[], ActorRef]
    secrets: SecretBook
    #: The Firefox pool's ref, asked for when a firefox session starts.
    firefox: Callable[[], ActorRef]
    #: The operator channel's link when it is on (else None): where a session asks a
    #: person about a dialog or a permission request.
    operator: Callable[[], ActorRef | None] = lambda: None
    #: The confirm rules in force for a session, by its id (the runtime's policy book).
    confirm: Callable[[str], ConfirmPolicy] = lambda session: ConfirmPolicy()


#: ``factory(parts, session_id, options)``: one engine's session actor.
SessionFactory = Callable[[SessionParts, str, Mapping[str, JsonValue]], Actor]


def new_chromium_session(parts: SessionParts, session_id: str, options: Mapping[str, JsonValue]) -> ChromiumSession:
    config = parts.config
    viewport = options.get("viewport") or {"width": 1280, "height": 720}
    session_options = SessionOptions(viewport=(viewport["width"], viewport["height"]),
                                     direct_input=config.action_input == "auto",
                                     record_page_events=config.page_recording,
                                     cdp_endpoint=options.get("cdpEndpoint"), cdp_headers=config.cdp_headers,
                                     cdp_timeout=config.cdp_timeout, origins=config.origins,
                                     download_max_bytes=config.download_max_bytes,
                                     context=ContextOptions.of(options), executable=config.chromium,
                                     headless=config.headless, policy=config.policy, operator=parts.operator,
                                     confirm=lambda: parts.confirm(session_id))
    return ChromiumSession(session_id, table=TABLES["chromium"], pool=parts.pool, driver=parts.driver,
                           options=session_options, workspace=config.workspace)


def new_firefox_session(parts: SessionParts, session_id: str, options: Mapping[str, JsonValue]) -> FirefoxSession:
    viewport = options.get("viewport") or {"width": 1280, "height": 720}
    endpoint = options.get("bidiEndpoint")
    return FirefoxSession(session_id, table=TABLES["firefox"], workspace=parts.config.workspace, pool=parts.firefox,
                          viewport=(viewport["width"], viewport["height"]),
                          endpoint=endpoint if isinstance(endpoint, str) else None,
                          context=ContextOptions.of(options), executable=parts.config.firefox,
                          headless=parts.config.headless,
                          download_max_bytes=parts.config.download_max_bytes, origins=parts.config.origins,
                          dialogs=parts.config.policy.dialogs, confirm=lambda: parts.confirm(session_id))


def new_android_session(parts: SessionParts, session_id: str, options: Mapping[str, JsonValue]) -> AndroidSession:
    native = parts.config.native
    secrets = parts.secrets
    return AndroidSession(session_id, table=TABLES["android-app"], registry=parts.registry,
                          adb=AdbAddress(native.adb_host, native.adb_port), serial=native.android_serial,
                          workspace=parts.config.workspace, secrets=lambda: secrets.of(session_id))


def new_ios_session(parts: SessionParts, session_id: str, options: Mapping[str, JsonValue]) -> IosSession:
    native = parts.config.native
    secrets = parts.secrets
    return IosSession(session_id, table=TABLES["ios-app"], registry=parts.registry, app_id=native.ios_app_id,
                      device=native.ios_device, app_path=native.ios_app_path, wda_url=native.ios_wda_url,
                      workspace=parts.config.workspace, secrets=lambda: secrets.of(session_id))


def new_chrome_android_session(parts: SessionParts, session_id: str,
                               options: Mapping[str, JsonValue]) -> ChromeAndroidSession:
    config = parts.config
    native = config.native
    return ChromeAndroidSession(session_id, table=TABLES["chrome-android"], registry=parts.registry,
                                adb=AdbAddress(native.adb_host, native.adb_port), serial=native.android_serial,
                                pool=parts.pool, driver=parts.driver, workspace=config.workspace,
                                options=SessionOptions(direct_input=config.action_input == "auto",
                                                       download_max_bytes=config.download_max_bytes,
                                                       origins=config.origins))


#: Each engine's table: what it runs for every session tool, or why it refuses it.
TABLES: Mapping[str, Table] = {
    "chromium": chromium_table.TABLE,
    "firefox": firefox_table.TABLE,
    "android-app": android_table.ANDROID_APP,
    "ios-app": ios_table.IOS_APP,
    "chrome-android": android_table.CHROME_ANDROID,
}

#: The engines this build has.
_FACTORIES: dict[str, SessionFactory] = {
    "chromium": new_chromium_session,
    "firefox": new_firefox_session,
    "android-app": new_android_session,
    "ios-app": new_ios_session,
    "chrome-android": new_chrome_android_session,
}


#: Engines the spec names that cannot run here, and what is missing for each.
UNAVAILABLE = {
    "webkit": "WebKit has no headless automation here: Debian's webkit2gtk-driver (WebKitWebDriver 2.50) serves "
              "classic WebDriver only (a session asking for WebDriver BiDi is refused) and its browser, MiniBrowser, "
              "needs an X display this machine does not have; see docs/engines.md. Open a chromium or firefox session",
    "safari": "Safari runs only on macOS, and safaridriver with it; this server is not on macOS. Open a chromium "
              "or firefox session",
}


def session_factory(engine: str) -> SessionFactory:
    """How ``engine``'s session actor is built; ``engine-unavailable`` for one that cannot run here."""
    if engine in UNAVAILABLE:
        raise ToolError("engine-unavailable", UNAVAILABLE[engine], engine=engine)
    factory = _FACTORIES.get(engine)
    if factory is None:
        raise ToolError("unavailable", f"the {engine} engine is not part of this build yet; open a chromium "
                        "session", engine=engine, component="engine")
    return factory
