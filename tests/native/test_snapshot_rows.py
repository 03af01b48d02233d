"""A tappable row with a label of its own keeps, in the snapshot, what the screen shows
inside it: the texts its label does not say follow the label on the row's line, so the
snapshot says what ``text_search`` finds. On real dumps (tests/testdata/android) and on
an iOS Settings screen as WebDriverAgent's JSON source describes one; long names are cut
at a break, not mid-word."""

from __future__ import annotations

from browx_actors.devices.uiautomator import parse_dump
from browx_actors.devices.wda_source import parse_source
from browx_actors.sessions.native.find import text_search
from browx_actors.sessions.native.refs import Hierarchy, RefBook
from browx_actors.sessions.native.snapshot import clip_words, shown_text, snapshot
from fakes.testdata import testdata as data_file
from fakes.wda_shop import Element


def android(name: str) -> Hierarchy:
    return Hierarchy(parse_dump(data_file("android", name).read_bytes()))


def line_of(text: str, start: str) -> str:
    return next(line.strip() for line in text.splitlines() if line.strip().startswith(start))


def test_a_react_native_pressable_keeps_its_label_and_shows_the_texts_inside_it() -> None:
    hierarchy = android("openweather-react-native-window_dump.xml")
    refs = RefBook()
    text = snapshot(hierarchy, refs).text
    day = line_of(text, 'button "Navigate to a specific day: 01 Apr"')
    assert day.endswith(": Tue Apr 01, 58 / 40 °F")
    # What text_search finds is on a snapshot line, under the same ref.
    (match,) = text_search(hierarchy, refs, "58 / 40 °F").matches
    assert f"[ref={match.ref}]" in day


def test_texts_the_label_already_says_and_icon_glyphs_are_left_out() -> None:
    text = snapshot(android("wdio-demo-react-native-window_dump.xml"), RefBook()).text
    assert line_of(text, 'button "Webview"').endswith(": Web")  # the tab draws "Web" under an icon
    assert line_of(text, 'button "Home"').endswith("]")  # "Home" is its label; the icon is no text
    assert line_of(text, 'button "button-Active"').endswith("]")  # "Active" is in the label
    assert "\U000f059f" not in line_of(text, 'button "Webview"')


def settings_source() -> Hierarchy:
    """An iOS Settings list as WebDriverAgent's JSON source reports it (the fake WDA's
    renderer): a cell whose label is the account name over a subtitle, a cell labelled
    "Bluetooth" whose value is "Off", and one whose label says all it shows."""
    cells = [
        Element("Cell", "Jane Appleseed", "com.apple.settings.primaryAppleAccount", rect=(16, 160, 370, 80),
                children=[Element("StaticText", "Jane Appleseed", rect=(80, 172, 200, 24)),
                          Element("StaticText", "Apple Account, iCloud, and more", rect=(80, 198, 260, 20))]),
        Element("Cell", "Bluetooth", "com.apple.settings.bluetooth", value="Off", rect=(16, 260, 370, 52),
                children=[Element("StaticText", "Bluetooth", rect=(60, 274, 120, 24))]),
        Element("Cell", "General", "com.apple.settings.general", rect=(16, 312, 370, 52),
                children=[Element("StaticText", "General", rect=(60, 326, 120, 24))]),
    ]
    app = Element("Application", "Settings", rect=(0, 0, 402, 874), children=[
        Element("Window", rect=(0, 0, 402, 874), children=[
            Element("Table", rect=(0, 100, 402, 774), children=cells)])])
    return Hierarchy(parse_source(app.to_wda()))


def test_an_ios_settings_cell_shows_its_subtitle_and_its_value() -> None:
    hierarchy = settings_source()
    refs = RefBook()
    text = snapshot(hierarchy, refs).text
    assert line_of(text, 'listitem "Jane Appleseed"').endswith(": Apple Account, iCloud, and more")
    assert line_of(text, 'listitem "Bluetooth"').endswith(": Off")
    assert line_of(text, 'listitem "General"').endswith("]")
    (match,) = text_search(hierarchy, refs, "iCloud").matches
    assert f"[ref={match.ref}]" in line_of(text, 'listitem "Jane Appleseed"')


def test_shown_text_keeps_the_own_text_first_and_says_each_thing_once() -> None:
    hierarchy = settings_source()
    account = hierarchy.root.children[0].children[0].children[0]
    assert shown_text(account, "Jane Appleseed") == "Apple Account, iCloud, and more"


def test_long_names_are_cut_at_a_break_not_mid_word() -> None:
    text = snapshot(android("google-messages-compose-window_dump.xml"), RefBook()).text
    long_name = line_of(text, 'generic "You said .\\\\adb shell')
    assert '/.ui.conversation.\u2026"' in long_name  # not ".LaunchConversat…"
    assert clip_words("word " * 30, 100).endswith("word\u2026")
    assert clip_words("x" * 150, 100) == "x" * 99 + "\u2026"  # one long token: cut where it must be
    assert clip_words("short", 100) == "short"


def test_an_ios_element_the_role_table_does_not_know_names_its_raw_type_on_its_line() -> None:
    app = Element("Application", "Maps", rect=(0, 0, 402, 874), children=[
        Element("Window", rect=(0, 0, 402, 874), children=[
            Element("Map", "Cafes nearby", rect=(0, 100, 402, 500)),
            Element("Other", "Card", rect=(0, 600, 402, 100)),
            Element("Cell", "Blue Bottle", rect=(0, 700, 402, 60))])])
    text = snapshot(Hierarchy(parse_source(app.to_wda())), RefBook()).text
    assert line_of(text, 'generic "Cafes nearby"').endswith("tag=XCUIElementTypeMap")
    assert line_of(text, 'generic "Card"').endswith("]")  # Other says no more than generic
    assert line_of(text, 'listitem "Blue Bottle"').endswith("]")  # the role says it
    android_text = snapshot(android("openweather-react-native-window_dump.xml"), RefBook()).text
    assert "tag=" not in android_text
