"""The operator's platform tools, found where they are installed and run as processes:
the Android emulator (``emulator``) and Xcode's ``xcrun simctl``.

browx never bundles or installs either. The emulator is ``emulator`` on PATH, else
``$ANDROID_HOME/emulator/emulator`` or ``$ANDROID_SDK_ROOT/emulator/emulator``; simctl is
``xcrun simctl`` with ``xcrun`` on PATH. A tool that is not there is an absent toolchain
(None here; an empty list in ``device_list``), never an error by itself.

Processes run with ``trio.run_process`` under a deadline, so a hung tool fails its call
instead of the server.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from collections.abc import Mapping, Sequence
from pathlib import Path

import attrs
import trio

from ..errors import ToolError
from .simctl import Simulator, parse_simulators, simctl_error

__all__ = ["Simctl", "ToolOutput", "emulator_binary", "list_avds", "run_tool", "xcrun_binary"]

_AVD_NAME = re.compile(r"^[A-Za-z0-9._-]+$")


@attrs.frozen
class ToolOutput:
    exit_code: int
    stdout: str
    stderr: str


def emulator_binary(environ: Mapping[str, str] | None = None) -> str | None:
    env = os.environ if environ is None else environ
    found = shutil.which("emulator", path=env.get("PATH"))
    if found:
        return found
    for root in (env.get("ANDROID_HOME"), env.get("ANDROID_SDK_ROOT")):
        if root:
            candidate = Path(root) / "emulator" / "emulator"
            if candidate.is_file() and os.access(candidate, os.X_OK):
                return str(candidate)
    return None


def xcrun_binary(environ: Mapping[str, str] | None = None) -> str | None:
    env = os.environ if environ is None else environ
    return shutil.which("xcrun", path=env.get("PATH"))


async def run_tool(argv: Sequence[str], *, timeout: float, what: str) -> ToolOutput:
    """Run a platform tool to its end within ``timeout`` seconds."""
    try:
        with trio.fail_after(timeout):
            done = await trio.run_process(list(argv), check=False, capture_stdout=True, capture_stderr=True,
                                          stdin=subprocess.DEVNULL)
    except trio.TooSlowError:
        raise ToolError("timeout", f"{what} did not finish within {timeout:g} s") from None
    except OSError as error:
        raise ToolError("unavailable", f"{what} could not run: {error}", component=argv[0]) from None
    return ToolOutput(done.returncode, done.stdout.decode("utf-8", "replace"),
                      done.stderr.decode("utf-8", "replace"))


async def list_avds(emulator: str, *, timeout: float = 30.0) -> list[str]:
    """The AVDs defined on this machine (``emulator -list-avds``; its log lines skipped)."""
    output = await run_tool([emulator, "-list-avds"], timeout=timeout, what="emulator -list-avds")
    return [line.strip() for line in output.stdout.splitlines() if _AVD_NAME.match(line.strip())]


class Simctl:
    """``xcrun simctl`` subcommands, each answering simctl's output or its ToolError."""

    def __init__(self, xcrun: str) -> None:
        self.xcrun = xcrun

    async def run(self, *args: str, timeout: float, check: bool = True) -> ToolOutput:
        """simctl's output; a non-zero exit raises its error in simctl's words (unless ``check`` is off)."""
        output = await run_tool([self.xcrun, "simctl", *args], timeout=timeout, what=f"simctl {args[0]}")
        if check and output.exit_code != 0:
            raise simctl_error(args[0], output.exit_code, output.stderr)
        return output

    async def simulators(self, *, timeout: float) -> list[Simulator]:
        return parse_simulators((await self.run("list", "devices", "--json", timeout=timeout)).stdout)
