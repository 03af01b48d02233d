"""What a browser session opens with: the call's arguments over the server's defaults.

The server's defaults (``--device``, ``--viewport-size``, ... : ``RuntimeConfig.session_defaults``)
are open_session's own arguments by their JSON names, so one pure rule layers them
(:func:`~browx_actors.sessions.context_options.layered`) and everything after reads the
result as if the call had given it: paths resolve against the workspace, a proxy's
password is registered as a secret, firefox refuses what it cannot set. Three things
differ for a default: a session attached with ``cdpEndpoint`` takes none (it works in
the browser's own context), one attached with ``bidiEndpoint`` no profile folder, and a
default firefox cannot set is left out and named in the answer's ``notApplied`` rather
than refusing every firefox session the server opens.

:func:`check_session_defaults` runs the defaults through open_session's own parameter
checks and rules at start, so a typo in ``--device`` fails there, naming the flag.
"""

from __future__ import annotations

from collections.abc import Mapping

from ..config import RuntimeConfig
from ..config_file import KEYS
from ..errors import ToolError
from ..jsonsafe import JsonObject, JsonValue
from ..secret_book import SecretBook
from ..sessions.context_options import firefox_refusals, layered, merge, refuse_on_firefox
from ..sessions.device_descriptors import descriptors, pick
from ..tools import validate_args
from ..tools.sessions import BROWSER_ENGINES, OPEN_SESSION

__all__ = ["PROXY_SECRET", "check_session_defaults", "register_proxy_password", "session_options"]

#: The name a proxy's password is registered under, so results and logs mask it as
#: they mask any registered secret (the answer itself shows it as ``***``).
PROXY_SECRET = "PROXY_PASSWORD"

#: A default's JSON field -> its config key, where the two are spelled apart.
_KEY_OF_FIELD = {"viewport": "viewportSize", "permissions": "grantPermissions", "proxy": "proxyServer",
                 "proxy.server": "proxyServer", "proxy.bypass": "proxyBypass", "proxy.username": "proxyUsername",
                 "proxy.password": "proxyPassword"}


def lookup_device(name: str) -> JsonObject:
    return pick(name, descriptors())


def session_options(config: RuntimeConfig, engine: str, call: Mapping[str, JsonValue]) -> tuple[JsonObject, list[str]]:
    """The options a browser session of ``engine`` opens with (by JSON name, as
    open_session answers them), and the server's defaults left out for this engine."""
    if engine not in BROWSER_ENGINES:
        return {}, []
    defaults: JsonObject = {} if call.get("cdpEndpoint") else dict(config.session_defaults)
    not_applied: list[str] = []
    if call.get("bidiEndpoint") and defaults.pop("userDataDir", None) is not None:  # the attached Firefox's own
        not_applied.append("userDataDir")
    # A profile folder keeps its own storage, so the two never go together: a default of
    # one yields to the call's other (else the refusal names what the caller never sent).
    for given, default in (("userDataDir", "storageState"), ("storageState", "userDataDir")):
        if call.get(given) and defaults.pop(default, None) is not None:
            not_applied.append(default)
    if engine == "firefox":
        for refusal in firefox_refusals(merge(layered(call, defaults), lookup_device)):
            field = str(refusal.details.get("field", "")).partition(".")[0]
            if field in defaults and call.get(field) is None:
                del defaults[field]
                not_applied.append(field)
    options = merge(layered(call, defaults), lookup_device)
    if engine == "firefox":
        refuse_on_firefox(options)
    return options, sorted(not_applied)


def register_proxy_password(secrets: SecretBook, session: str, options: Mapping[str, JsonValue]) -> None:
    """The proxy's password (the call's or the server's) as the session's secret."""
    proxy = options.get("proxy")
    password = proxy.get("password") if isinstance(proxy, dict) else None
    if isinstance(password, str) and len(password) >= 3:  # shorter would mask unrelated text everywhere
        secrets.register(session, PROXY_SECRET, password)


def check_session_defaults(defaults: Mapping[str, JsonValue]) -> None:
    """open_session's own checks on the server's defaults; a ValueError naming the flag,
    variable and key of the first one refused."""
    try:
        args = validate_args(OPEN_SESSION.params, {"session": "default", **defaults})
        for rule in OPEN_SESSION.rules:
            rule.check(args)
        if isinstance(args.get("device"), str):
            lookup_device(str(args["device"]))
    except ToolError as err:
        field = str(err.details.get("field", ""))
        name = _KEY_OF_FIELD.get(field, _KEY_OF_FIELD.get(field.partition(".")[0], field))
        key = next((k for k in KEYS if k.name == name), None)
        where = name if key is None else f"{key.flag or key.env} ({key.env}, config key {key.name})"
        raise ValueError(f"the session default {where}: {err.message}") from None
