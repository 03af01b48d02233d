"""Command line: ``browx-actors serve`` runs the MCP server (stdio, or Streamable HTTP
with ``--port``); ``browx-actors daemon`` runs the reference host daemon for the
operator channel and live view.

Flags mirror the environment variables, the way agent-host users know from Playwright
MCP; a flag wins over its variable, and both over ``--config``'s file (``config_file``).
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
from collections.abc import Sequence

import trio

from .config import ALL_CAPABILITIES, RuntimeConfig, package_version, parse_cdp_headers, parse_cdp_timeout
from .config_file import (
    KEYS,
    absent,
    effective_values,
    given_flags,
    layered_environment,
    printable,
    read_config_file,
    sources,
)
from .credentials import RedactingFormatter
from .daemon import cli as daemon_cli
from .origins import parse_origin_patterns
from .secret_book import every_secret
from .secret_book.logs import mask_handlers
from .server.http_gate import DEFAULT_IDLE_TIMEOUT, HttpOptions

#: The session defaults' flags: (flag, metavar or None for a switch, help). Each is
#: open_session's argument of the same name, as Playwright MCP spells its flag.
SESSION_DEFAULT_FLAGS = (
    ("--device", "NAME", "a Playwright device, e.g. 'iPhone 15' (docs/tools.md lists them)"),
    ("--viewport-size", "WxH", "viewport in CSS pixels, e.g. 1280x720"),
    ("--user-agent", "UA", "user agent"),
    ("--locale", "LOCALE", "BCP 47 locale, e.g. en-GB"),
    ("--timezone", "TZ", "IANA time zone, e.g. Europe/Paris"),
    ("--color-scheme", "SCHEME", "light, dark or no-preference"),
    ("--ignore-https-errors", None, "accept invalid TLS certificates"),
    ("--block-service-workers", None, "make serviceWorker.register resolve to nothing"),
    ("--grant-permissions", "LIST", "comma list of permissions granted at start (emulate's names)"),
    ("--storage-state", "FILE", "workspace storage-state file loaded at start"),
    ("--init-script", "FILE", "workspace .js file run in every new document"),
    ("--user-data-dir", "DIR", "workspace folder of a persistent profile (one session at a time)"),
    ("--proxy-server", "URL", "proxy, http://host:port or socks5://host:port (credentials: "
     "BROWX_PROXY_USERNAME, BROWX_PROXY_PASSWORD)"),
    ("--proxy-bypass", "HOSTS", "comma list of hosts the proxy is bypassed for"),
)


def _session_default_flags(args: argparse.Namespace, env: dict[str, str]) -> None:
    """A session default's flag, given, wins over its variable and the file: it goes
    into the environment the config is read from, under its variable."""
    for key in KEYS:
        if key.flag in {flag for flag, _, _ in SESSION_DEFAULT_FLAGS} and key.env and key.dest:
            given = getattr(args, key.dest)
            if not absent(given):
                env[key.env] = "on" if given is True else str(given)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="browx-actors",
        description="Browser and app automation for AI agents over MCP (stdio or Streamable HTTP), as "
        "supervised Trio actors.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {package_version()}")
    commands = parser.add_subparsers(dest="command", required=True)
    serve = commands.add_parser(
        "serve",
        help="run the MCP server on stdin/stdout, or over HTTP with --port",
        description="Run the MCP server on stdin/stdout until the client goes away, or over Streamable HTTP "
        "(--port) until a signal.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="capabilities: " + ", ".join(sorted(ALL_CAPABILITIES))
        + "\n(read, navigation, action and human are on by default)",
    )
    serve.add_argument("--config", metavar="FILE",
                       help="a .toml or .json file with a key for every flag and variable (README: Configuration "
                       "file); a flag or a variable wins over it")
    serve.add_argument("--print-config", action="store_true",
                       help="print the configuration in effect as JSON, secrets masked, and exit")
    serve.add_argument("--caps", metavar="LIST",
                       help="comma list of capabilities to enable (env BROWX_CAPABILITIES)")
    serve.add_argument("--workspace", metavar="DIR",
                       help="root for every file the server reads or writes (env BROWX_WORKSPACE, default ./.browx)")
    serve.add_argument("--executable-path", metavar="PATH",
                       help="Chromium executable (env BROWX_CHROMIUM, default: chromium on PATH)")
    serve.add_argument("--firefox-path", metavar="PATH",
                       help="Firefox executable for engine firefox (env BROWX_FIREFOX, default: firefox-esr or "
                       "firefox on PATH)")
    serve.add_argument("--cdp-endpoint", metavar="URL",
                       help="attach to a running browser's CDP endpoint instead of launching (env BROWX_ATTACH_CDP)")
    serve.add_argument("--cdp-header", action="append", default=[], metavar="'NAME: VALUE'",
                       help="a header every lookup and socket to the attached browser carries, such as a fleet's "
                       "Authorization (repeatable; env BROWX_CDP_HEADERS, one per line)")
    serve.add_argument("--allowed-origins", metavar="PATTERNS",
                       help="origins the browsers may reach, ';'-separated: https://host[:port], host, *.host "
                       "(env BROWX_ALLOWED_ORIGINS); anything else is refused in navigate and blocked in the browser")
    serve.add_argument("--blocked-origins", metavar="PATTERNS",
                       help="origins the browsers may not reach, ';'-separated, as --allowed-origins; the block list "
                       "wins (env BROWX_BLOCKED_ORIGINS)")
    serve.add_argument("--policy", metavar="FILE",
                       help="the operator's policy file (TOML or JSON): confirm rules, dialog and permission "
                       "policies no tool call can lift (env BROWX_POLICY; docs/security.md)")
    serve.add_argument("--cdp-timeout", metavar="S",
                       help="seconds each step of reaching an attached browser may take: its /json/version, its "
                       "socket, Playwright's connection (env BROWX_CDP_TIMEOUT, default 30)")
    serve.add_argument("--action-input", choices=("auto", "playwright"),
                       help="auto: the session's own input for elements that are ready, Playwright for "
                       "the rest; playwright: Playwright for every action (env BROWX_ACTION_INPUT, default auto)")
    serve.add_argument("--page-recording", choices=("on", "off"),
                       help="keep the pages' console and network records for console_read / network_read "
                       "(env BROWX_PAGE_RECORDING, default on)")
    serve.add_argument("--headed", action="store_true", help="show the browser window (for debugging)")
    defaults = serve.add_argument_group(
        "session defaults", "open_session's arguments for every chromium and firefox session the server opens, "
        "unless the call gives its own (README: Session defaults; each has a BROWX_ variable and a config key)")
    for flag, metavar, what in SESSION_DEFAULT_FLAGS:
        if metavar is None:
            defaults.add_argument(flag, action="store_true", help=what)
        else:
            defaults.add_argument(flag, metavar=metavar, help=what)
    serve.add_argument("--port", type=int, metavar="N",
                       help="serve MCP over Streamable HTTP at http://HOST:N/mcp instead of stdio (0: any free port)")
    serve.add_argument("--host",
                       help="address to listen on with --port (default 127.0.0.1; any other needs a token)")
    serve.add_argument("--auth-token", metavar="TOKEN",
                       help="bearer token every HTTP request must carry (env BROWX_AUTH_TOKEN; 16+ characters)")
    serve.add_argument("--idle-timeout", type=float, metavar="S",
                       help="end an HTTP client's MCP session and close its browser sessions after S seconds "
                       f"with no request (default {DEFAULT_IDLE_TIMEOUT:g})")
    serve.add_argument("--allowed-origin", action="append", default=[], metavar="ORIGIN",
                       help="a browser origin allowed to call the HTTP server besides loopback ones (repeatable)")
    serve.add_argument("--log-level", help="stderr log level (default WARNING)")
    daemon_cli.add_arguments(commands.add_parser(
        "daemon", help="run the reference host daemon (prompts on this terminal, live views to files)",
        description=daemon_cli.DESCRIPTION))
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.command == "daemon":
        return daemon_cli.run(args)
    # Flags without a default of their own (None, [] or False when absent) so that a
    # given one is told from an absent one, and the config file fills the rest.
    try:
        file_values = read_config_file(args.config) if args.config else {}
        env = layered_environment(file_values, os.environ)

        def pick(flag: object, key: str, default: object) -> object:
            return file_values.get(key, default) if absent(flag) else flag

        for flag, variable in (("allowed_origins", "BROWX_ALLOWED_ORIGINS"),
                               ("blocked_origins", "BROWX_BLOCKED_ORIGINS")):
            given = getattr(args, flag)
            if given is not None:  # a flag wins over the variable and the file; refused here under its own name
                parse_origin_patterns(given, source="--" + flag.replace("_", "-"))
                env[variable] = given
        if args.policy is not None:  # a flag wins over the variable and the file
            env["BROWX_POLICY"] = args.policy
        _session_default_flags(args, env)
        rest = {
            "logLevel": pick(args.log_level, "logLevel", "WARNING"),
            "http.port": pick(args.port, "http.port", None),
            "http.host": pick(args.host, "http.host", "127.0.0.1"),
            "http.authToken": args.auth_token or env.get("BROWX_AUTH_TOKEN") or None,
            "http.idleTimeout": float(pick(args.idle_timeout, "http.idleTimeout", DEFAULT_IDLE_TIMEOUT)),  # type: ignore[arg-type]
            "http.allowedOrigins": list(pick(args.allowed_origin, "http.allowedOrigins", [])),  # type: ignore[call-overload]
        }
        config = RuntimeConfig.from_env(
            env, capabilities=args.caps, workspace=args.workspace, chromium=args.executable_path,
            firefox=args.firefox_path,
            attach_cdp=args.cdp_endpoint, headless=not pick(args.headed, "headed", False),
            action_input=args.action_input,
            cdp_headers=parse_cdp_headers(args.cdp_header) if args.cdp_header else None,
            cdp_timeout=None if args.cdp_timeout is None else parse_cdp_timeout(args.cdp_timeout),
            page_recording=None if args.page_recording is None else args.page_recording == "on",
        )
        if config.policy.confirm.rules:  # their tool names, against the catalog (only then worth its import)
            from .tools import ALL as ALL_TOOLS

            config.policy.check_tools(frozenset(tool.name for tool in ALL_TOOLS))
        if config.session_defaults:  # what they name is checked by open_session's own rules
            from .runtime.opening import check_session_defaults

            check_session_defaults(config.session_defaults)
        http = None if rest["http.port"] is None else HttpOptions(
            port=rest["http.port"], host=rest["http.host"], token=rest["http.authToken"],
            idle_timeout=rest["http.idleTimeout"], allowed_origins=tuple(rest["http.allowedOrigins"]))
    except ValueError as err:
        print(f"browx-actors: {err}", file=sys.stderr)
        return 2
    if args.print_config:
        origin = sources(given_flags(args), os.environ, file_values)
        print(json.dumps(printable(effective_values(config, rest), origin), indent=2))
        return 0
    logging.basicConfig(level=str(rest["logLevel"]).upper(), stream=sys.stderr,
                        format="%(asctime)s %(name)s %(levelname)s %(message)s")
    # Libraries log the URLs they connect to (a fleet's ?token=): redacted as a result is.
    for handler in logging.getLogger().handlers:
        handler.setFormatter(RedactingFormatter(handler.formatter))
    # A log line may quote what a call held (a failed selector in a traceback): every
    # line is masked with every session's registered secrets, in every spelling.
    mask_handlers(logging.getLogger(), every_secret)
    from .server.main import serve

    trio.run(serve, config, http)
    # Everything the server owned is gone by now (browser, profile, driver, records
    # flushed); what is left is the interpreter tearing down a large heap, which took
    # over a second on a busy host, and a client that closed stdin kills the server
    # after two. So the process leaves at once.
    logging.shutdown()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)


if __name__ == "__main__":
    sys.exit(main())
