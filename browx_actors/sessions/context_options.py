"""What ``open_session`` asks of a browser context besides its size: a device, a user
agent, a locale, a time zone, a colour scheme, ignoring HTTPS errors, a storage state
to start from, permissions granted from the start, a script for every document,
service workers blocked, a proxy. Pure.

:func:`merge` turns the call's arguments (JSON names) and the device's descriptor into
the options the session starts with, by JSON name: those are what ``open_session``
answers, so the agent sees what the device brought. The device gives the viewport, the
device scale factor, mobile, touch and the user agent; an explicit ``viewport`` or
``userAgent`` wins over the device's. :func:`refuse_on_firefox` refuses, before anything
opens, what WebDriver BiDi on Firefox 153 has no command for, rather than ignore it.
:class:`ContextOptions` is what a session keeps of them, and
:meth:`ContextOptions.playwright` what chromium's ``new_context`` takes.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

import attrs

from ..errors import ToolError
from ..jsonsafe import JsonObject, JsonValue

__all__ = ["DEFAULT_VIEWPORT_JSON", "ContextOptions", "firefox_refusals", "layered", "masked", "merge",
           "refuse_on_firefox"]

DEFAULT_VIEWPORT_JSON: JsonObject = {"width": 1280, "height": 720}
#: Arguments passed through as given (JSON name -> the same name in the options).
_PLAIN = ("userAgent", "locale", "timezone", "colorScheme", "storageState", "initScript", "userDataDir")


def layered(call: Mapping[str, JsonValue], defaults: Mapping[str, JsonValue]) -> JsonObject:
    """The call's arguments over the server's defaults (``--device``, ``--viewport-size``,
    ...), one argument at a time: what the call gives (``false`` included) wins, the
    server's fills what it leaves out. A device the call names brings its own viewport
    and user agent, over the server's: the call asked for that device, and the server's
    size is only a default. Pure; :func:`merge` then reads the device."""
    out: JsonObject = {key: value for key, value in defaults.items() if call.get(key) is None}
    if call.get("device") is not None:
        out.pop("viewport", None)
        out.pop("userAgent", None)
    out.update({key: value for key, value in call.items() if value is not None})
    return out


def merge(args: Mapping[str, JsonValue], lookup: Callable[[str], JsonObject]) -> JsonObject:
    """The context's options by JSON name: the device's (``lookup`` finds it by name),
    then the call's own over them; only what is set."""
    merged: JsonObject = {}
    name = args.get("device")
    if isinstance(name, str):
        device = lookup(name)
        merged["device"] = name
        for key in ("viewport", "deviceScaleFactor", "isMobile", "hasTouch", "userAgent"):
            value = device.get(key)
            if value is not None:  # a copy: the table is shared and cached
                merged[key] = dict(value) if isinstance(value, dict) else value
    merged["viewport"] = args.get("viewport") or merged.get("viewport") or dict(DEFAULT_VIEWPORT_JSON)
    for key in _PLAIN:
        if args.get(key) is not None and not (key == "userDataDir" and args[key] == ""):  # "": none, not the server's
            merged[key] = args[key]
    for flag in ("ignoreHttpsErrors", "blockServiceWorkers"):
        if args.get(flag):
            merged[flag] = True
    proxy = args.get("proxy")
    if isinstance(proxy, dict):
        merged["proxy"] = dict(proxy)
    permissions = args.get("permissions")
    if isinstance(permissions, list) and permissions:
        merged["permissions"] = sorted({str(name) for name in permissions})
    return merged


def refuse_on_firefox(options: Mapping[str, JsonValue]) -> None:
    """The first of :func:`firefox_refusals`, raised."""
    for refusal in firefox_refusals(options):
        raise refusal


def firefox_refusals(options: Mapping[str, JsonValue]) -> list[ToolError]:
    """``not-supported``, each naming its field, for what Firefox 153's WebDriver BiDi
    cannot set on a user context: touch and a mobile viewport (no command for either),
    and prefers-color-scheme (none either). Permissions, which BiDi grants per origin,
    are granted to each origin the session's pages go to (``firefox/origin_grants.py``)."""
    out = []
    needs = [what for key, what in (("isMobile", "a mobile viewport"), ("hasTouch", "touch")) if options.get(key)]
    if needs:
        field = "device" if "device" in options else "isMobile" if options.get("isMobile") else "hasTouch"
        out.append(ToolError("not-supported", f"device {options.get('device')!r} needs {needs[0]}, which WebDriver "
                             "BiDi on Firefox 153 cannot emulate; use a chromium session or a desktop device",
                             field=field, engine="firefox"))
    if options.get("colorScheme") is not None:
        out.append(ToolError("not-supported", "colorScheme: WebDriver BiDi on Firefox 153 has no command for "
                             "prefers-color-scheme; a chromium session emulates it", field="colorScheme",
                             engine="firefox"))
    return out


@attrs.frozen
class ContextOptions:
    """What a browser session's context is made with (beyond its viewport)."""

    device_scale_factor: float | None = None
    is_mobile: bool = False
    has_touch: bool = False
    user_agent: str | None = None
    locale: str | None = None
    timezone: str | None = None
    color_scheme: str | None = None
    ignore_https_errors: bool = False
    #: A workspace-relative storage-state file, loaded at start (read by the session,
    #: through the workspace's chokepoints: this module does no I/O).
    storage_state: str | None = None
    #: Permission names granted to the context's pages from the start.
    permissions: tuple[str, ...] = ()
    #: A workspace-relative JavaScript file run in every new document (read by the session).
    init_script: str | None = None
    #: Service worker registration blocked (Playwright's ``service_workers="block"``).
    block_service_workers: bool = False
    #: The context's proxy, Playwright's keys (server, bypass, username, password); out
    #: of the repr, which a log line could carry, for its password.
    proxy: Mapping[str, str] | None = attrs.field(default=None, repr=lambda p: "<proxy>" if p else "None")
    #: A workspace-relative folder holding a persistent profile (the session's own
    #: browser runs on it: ``chromium/persistent.py``).
    user_data_dir: str | None = None

    @classmethod
    def of(cls, options: Mapping[str, JsonValue]) -> ContextOptions:
        """From :func:`merge`'s options."""
        def text(key: str) -> str | None:
            value = options.get(key)
            return value if isinstance(value, str) else None
        scale = options.get("deviceScaleFactor")
        return cls(device_scale_factor=float(scale) if isinstance(scale, (int, float)) else None,
                   is_mobile=options.get("isMobile") is True, has_touch=options.get("hasTouch") is True,
                   user_agent=text("userAgent"), locale=text("locale"), timezone=text("timezone"),
                   color_scheme=text("colorScheme"), ignore_https_errors=options.get("ignoreHttpsErrors") is True,
                   storage_state=text("storageState"), permissions=tuple(_names(options.get("permissions"))),
                   init_script=text("initScript"), block_service_workers=options.get("blockServiceWorkers") is True,
                   proxy=_proxy(options.get("proxy")), user_data_dir=text("userDataDir"))

    def playwright(self) -> dict[str, object]:
        """Playwright's ``new_context`` keywords for what is set (its defaults for the rest);
        not the storage state, which the session reads from the workspace itself, nor
        the profile folder."""
        kwargs: dict[str, object] = {"is_mobile": self.is_mobile, "has_touch": self.has_touch,
                                     "ignore_https_errors": self.ignore_https_errors}
        for key, value in (("device_scale_factor", self.device_scale_factor), ("user_agent", self.user_agent),
                           ("locale", self.locale), ("timezone_id", self.timezone),
                           ("color_scheme", self.color_scheme)):
            if value is not None:
                kwargs[key] = value
        if self.permissions:
            kwargs["permissions"] = list(self.permissions)
        if self.block_service_workers:
            kwargs["service_workers"] = "block"
        if self.proxy is not None:
            kwargs["proxy"] = dict(self.proxy)
        return kwargs

    def bidi_proxy(self) -> JsonObject | None:
        """``browser.createUserContext``'s ``proxy`` for :attr:`proxy` (its credentials
        answer the proxy's challenges instead: ``firefox/proxy_auth.py``): a manual proxy
        for http and https, or a SOCKS one, with ``bypass``'s hosts as ``noProxy``."""
        if self.proxy is None:
            return None
        scheme, _, address = self.proxy["server"].partition("://")
        out: JsonObject = {"proxyType": "manual"}
        if scheme.startswith("socks"):
            out.update(socksProxy=address, socksVersion=int(scheme[-1]))
        else:
            out.update(httpProxy=address, sslProxy=address)
        bypass = [host.strip() for host in self.proxy.get("bypass", "").split(",") if host.strip()]
        if bypass:
            out["noProxy"] = list(bypass)
        return out


def masked(options: Mapping[str, JsonValue]) -> JsonObject:
    """``options`` as open_session answers them: a proxy's password masked, as a
    registered secret's value is never echoed."""
    out = dict(options)
    proxy = out.get("proxy")
    if isinstance(proxy, dict) and "password" in proxy:
        out["proxy"] = {**proxy, "password": "***"}
    return out


def _proxy(value: JsonValue) -> dict[str, str] | None:
    return {str(k): str(v) for k, v in value.items()} if isinstance(value, dict) and "server" in value else None


def _names(value: JsonValue) -> list[str]:
    return [str(name) for name in value] if isinstance(value, list) else []
