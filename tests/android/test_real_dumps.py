"""Every real device dump in tests/testdata/android goes through the adb peer as a
device's screen: Debian-protocol adb (adbutils) reads it with ``exec-out uiautomator dump
/dev/tty``, the engine parses and snapshots it, resolves the first tappable element by the
ref the snapshot gave it, and taps its point with ``input tap``, which the device records."""

from __future__ import annotations

from types import SimpleNamespace

import adbutils  # type: ignore[import-untyped]
import pytest

from browx_actors.devices import adb_commands as commands
from browx_actors.devices.uiautomator import parse_dump
from browx_actors.sessions.native.refs import Hierarchy, RefBook, is_interactive
from browx_actors.sessions.native.snapshot import snapshot
from browx_actors.sessions.native.target import locate_in, on_screen, point_of
from fakes.adb_device import FakeAdb, Screen
from fakes.adb_server import serve_adb
from fakes.adb_shop import emulator
from fakes.testdata import TESTDATA

DUMPS = sorted(path.name for path in (TESTDATA / "android").glob("*.xml"))


def test_the_test_data_holds_ten_real_dumps() -> None:
    assert len(DUMPS) >= 10


@pytest.mark.parametrize("name", DUMPS)
def test_a_real_dump_is_read_snapshotted_and_tapped_through_the_adb_peer(name: str) -> None:
    xml = (TESTDATA / "android" / name).read_text(encoding="utf-8")
    device = emulator()
    device.screens["real"] = Screen("real", "com.example.real", "com.example.real.Main", lambda _: xml)
    device.show("real")
    with serve_adb(FakeAdb([device])) as (port, _):
        phone = adbutils.AdbClient(host="127.0.0.1", port=port).device("emulator-5554")
        output = phone.shell(commands.UIAUTOMATOR_DUMP_TTY, encoding=None)
        hierarchy = Hierarchy(parse_dump(output))
        refs = RefBook()
        shot = snapshot(hierarchy, refs)
        assert shot.node_count > 0 and "[ref=e1]" in shot.text
        screen = hierarchy.root.bounds
        tappable = next(node for node in hierarchy.root.walk() if node.visible and is_interactive(node)
                        and node.bounds is not None and not on_screen(node.bounds, screen).empty)
        ref = refs.ref_for(hierarchy, tappable)
        assert f"[ref={ref}]" in shot.text  # the snapshot listed it
        x, y = point_of(locate_in(hierarchy, refs, SimpleNamespace(ref=ref, selector=None)))
        phone.shell(commands.tap_command(x, y))
        assert device.gestures[-1] == f"tap {round(x)} {round(y)}"
