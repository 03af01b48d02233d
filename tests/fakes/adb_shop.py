"""The scenarios the fake adb server runs: the real Pixel launcher and a scripted shop app.

``com.example.shop`` is a React Native-style app whose dumps look like a real RN app's:
the classes RN's views report (``android.view.ViewGroup``, ``android.widget.TextView``,
``android.widget.EditText``), buttons that are clickable ``ViewGroup``s named by their
accessibility label (a ``Pressable``), testIDs as raw resource-ids (RN 0.65+) next to a
native ``com.example.shop:id/login_button``, nodes with no id at all, and:

- ``login``: an email field (labelled) and a password field (not), typed text landing in
  the focused one, a "Remember me" checkbox, "Log in" (goes to ``catalog``), and an
  unlabelled "Forgot password?".
- ``catalog``: three product rows sharing the test id ``product_row``, each with an "Add"
  button labelled "Add to cart" (one label, three nodes: ambiguity), a ``promo-toggle``
  that inserts a promo banner above the list, which moves ``checkout-submit`` (a tappable
  view named by its text, "Place order") and the untagged "3 items" to other paths and
  rectangles, and ``checkout-submit`` itself, which goes to ``confirmation``.
- ``confirmation``: ``order-status`` "Order placed" and an untagged "Back to shop".
- ``splash``: an indeterminate spinner that answers the idle failure for the device's
  ``busy_dumps`` dumps, then settles into ``login`` (what ``am start -n`` opens).
- ``busy`` and ``busy-null``: spinners that never settle (the two idle failure texts).
- deep links ``shop://catalog`` and ``shop://confirmation``.

The launcher is the unedited Pixel dump from ``tests/testdata/android`` (a copy of the shared
test data, so a clone has it).
"""

from __future__ import annotations

from collections.abc import Callable
from xml.sax.saxutils import quoteattr

import attrs

from .adb_device import FakeAdb, FakeDevice, Screen
from .testdata import PIXEL_LAUNCHER_DUMP

__all__ = ["LAUNCHER_DUMP", "SHOP", "View", "bench_adb", "booting_emulator", "default_adb", "emulator", "list_screen",
           "multi_device_adb", "render"]

SHOP = "com.example.shop"
LAUNCHER = "com.google.android.apps.nexuslauncher"
LAUNCHER_DUMP = PIXEL_LAUNCHER_DUMP
#: The classes React Native's views report to accessibility, so to uiautomator
#: (ReactViewGroup, ReactTextView, ReactEditText and ReactScrollView name their bases).
_VIEW_GROUP = "android.view.ViewGroup"
_TEXT = "android.widget.TextView"
_EDIT_TEXT = "android.widget.EditText"
_SCROLL = "android.widget.ScrollView"
_WIDTH, _HEIGHT = 1080, 1794


@attrs.define
class View:
    """One node of a scripted screen, as the dumper would describe it."""

    cls: str
    bounds: tuple[int, int, int, int]
    rid: str = ""
    text: str = ""
    desc: str = ""
    clickable: bool = False
    checkable: bool = False
    checked: bool = False
    scrollable: bool = False
    password: bool = False
    focused: bool = False
    #: An editable view's hint (newer dumpers write it as ``hint`` after ``bounds``).
    hint: str = ""
    children: list[View] = attrs.field(factory=list)


def render(root: View, package: str) -> str:
    """The view tree as ``uiautomator dump`` prints it: one line, AOSP's attribute order."""
    def flag(value: bool) -> str:
        return "true" if value else "false"

    def node(view: View, index: int) -> str:
        left, top, right, bottom = view.bounds
        focusable = view.clickable or "EditText" in view.cls
        attrs_ = (
            f'index="{index}" text={quoteattr(view.text)} resource-id={quoteattr(view.rid)} '
            f'class="{view.cls}" package="{package}" content-desc={quoteattr(view.desc)} '
            f'checkable="{flag(view.checkable)}" checked="{flag(view.checked)}" clickable="{flag(view.clickable)}" '
            f'enabled="true" focusable="{flag(focusable)}" focused="{flag(view.focused)}" '
            f'scrollable="{flag(view.scrollable)}" long-clickable="false" password="{flag(view.password)}" '
            f'selected="false" bounds="[{left},{top}][{right},{bottom}]"'
        ) + (f" hint={quoteattr(view.hint)}" if view.hint else "")
        if not view.children:
            return f"<node {attrs_} />"
        return f"<node {attrs_}>" + "".join(node(c, i) for i, c in enumerate(view.children)) + "</node>"

    return ("<?xml version='1.0' encoding='UTF-8' standalone='yes' ?>"
            f'<hierarchy rotation="0">{node(root, 0)}</hierarchy>')


def _app_frame(*children: View) -> View:
    content = View(_VIEW_GROUP, (0, 63, _WIDTH, _HEIGHT), children=list(children))
    return View("android.widget.FrameLayout", (0, 0, _WIDTH, _HEIGHT), children=[
        View("android.widget.FrameLayout", (0, 63, _WIDTH, _HEIGHT), rid="android:id/content",
             children=[content])])


def _field(device: FakeDevice, rid: str, hint: str, top: int, *, label: str = "", password: bool = False) -> View:
    value = device.fields.get(rid, "")
    shown = "\u2022" * len(value) if password and value else value or hint
    return View(_EDIT_TEXT, (80, top, 1000, top + 120), rid=rid, text=shown, desc=label,
                clickable=True, password=password, focused=device.focused == rid, hint=hint)


def _login(device: FakeDevice) -> str:
    return render(_app_frame(
        View(_TEXT, (80, 200, 1000, 300), text="Welcome back"),
        _field(device, "email", "Email", 400, label="Email address"),
        _field(device, "password", "Password", 560, password=True),
        View("android.widget.CheckBox", (80, 720, 600, 800), text="Remember me", clickable=True,
             checkable=True, checked="remember" in device.toggles),
        View("android.widget.Button", (80, 860, 1000, 980), rid=f"{SHOP}:id/login_button", text="Log in",
             clickable=True),
        View(_TEXT, (80, 1020, 600, 1090), text="Forgot password?", clickable=True),
    ), SHOP)


_PRODUCTS = (("Red shoes", "$20.00"), ("Blue hat", "$12.00"), ("Green scarf", "$9.50"))


def _catalog(device: FakeDevice) -> str:
    promo = "promo" in device.toggles
    shift = 160 if promo else 0
    bar = 1640 if promo else 1600  # the checkout bar moves down under a banner
    rows = []
    for number, (title, price) in enumerate(_PRODUCTS):
        top = 420 + shift + number * 220
        rows.append(View(_VIEW_GROUP, (40, top, 1040, top + 200), rid="product_row",
                         clickable=True, children=[
                             View(_TEXT, (80, top + 20, 700, top + 90), text=title),
                             View(_TEXT, (80, top + 110, 700, top + 180), text=price),
                             View(_VIEW_GROUP, (760, top + 50, 1000, top + 150), desc="Add to cart",
                                  clickable=True, children=[
                                      View(_TEXT, (790, top + 70, 970, top + 130), text="Add")])]))
    body = [View(_TEXT, (40, 100, 1040, 200), text="Catalog")]
    if promo:
        body.append(View(_VIEW_GROUP, (40, 230, 1040, 370), rid="promo-banner", children=[
            View(_TEXT, (80, 260, 1000, 340), text="Spring sale: 20% off")]))
    body += [
        View("android.widget.Button", (40, 240 + shift, 1040, 360 + shift), rid="promo-toggle",
             text="Hide promo" if promo else "Show promo", clickable=True),
        View(_SCROLL, (0, 400 + shift, _WIDTH, 1500), scrollable=True, children=[
            View(_VIEW_GROUP, (0, 400 + shift, _WIDTH, 1100 + shift), children=rows)]),
        View(_TEXT, (40, 1520, 1040, 1580), text="3 items"),
        View(_VIEW_GROUP, (40, bar, 1040, bar + 140), rid="checkout-submit", clickable=True,
             children=[View(_TEXT, (80, bar + 30, 1000, bar + 110), text="Place order")]),
    ]
    if "added" in device.toggles:  # a Material snackbar over the list, as "Add" raises it
        body.append(View("com.google.android.material.snackbar.Snackbar$SnackbarLayout", (40, 1380, 1040, 1500),
                         children=[View("android.widget.TextView", (80, 1400, 800, 1480),
                                        rid=f"{SHOP}:id/snackbar_text", text="Added to cart")]))
    return render(_app_frame(*body), SHOP)


def _confirmation(device: FakeDevice) -> str:
    return render(_app_frame(
        View(_TEXT, (80, 300, 1000, 400), rid="order-status", text="Order placed"),
        View("android.widget.Button", (80, 500, 1000, 620), text="Back to shop", clickable=True),
    ), SHOP)


def _spinner(device: FakeDevice) -> str:
    return render(_app_frame(View("android.widget.ProgressBar", (440, 800, 640, 1000))), SHOP)


def _toggle(name: str) -> Callable[[FakeDevice], None]:
    def flip(device: FakeDevice) -> None:
        device.toggles ^= {name}
    return flip


def _add(device: FakeDevice) -> None:
    device.toggles |= {"added"}


def shop_screens() -> dict[str, Screen]:
    launcher_xml = LAUNCHER_DUMP.read_text()
    main = f"{SHOP}.MainActivity"
    return {screen.name: screen for screen in (
        Screen("launcher", LAUNCHER, f"{LAUNCHER}.NexusLauncherActivity", lambda d: launcher_xml),
        Screen("splash", SHOP, main, _spinner, busy="idle", settles_to="login"),
        Screen("login", SHOP, main, _login, taps={
            f"{SHOP}:id/login_button": "catalog", "Remember me": _toggle("remember")}),
        Screen("catalog", SHOP, main, _catalog, taps={
            "promo-toggle": _toggle("promo"), "checkout-submit": "confirmation", "Add to cart": _add}),
        Screen("confirmation", SHOP, main, _confirmation, taps={"Back to shop": "back"}),
        Screen("busy", SHOP, main, _spinner, busy="idle"),
        Screen("busy-null", SHOP, main, _spinner, busy="null-root"),
    )}


def emulator(serial: str = "emulator-5554", *, sdk: int = 34, release: str = "14",
             model: str = "sdk_gphone64_x86_64", state: str = "device") -> FakeDevice:
    """An emulator with the shop installed, on the launcher."""
    return FakeDevice(
        serial=serial,
        state=state,
        screens=shop_screens(),
        home="launcher",
        props={
            "ro.product.model": model, "ro.product.name": model, "ro.product.device": "emu64xa",
            "ro.build.version.release": release, "ro.build.version.sdk": str(sdk),
            "ro.kernel.qemu": "1", "sys.boot_completed": "1", "ro.product.cpu.abi": "x86_64",
            "ro.boot.qemu.avd_name": f"Pixel_7_API_{sdk}",
        },
        size=(_WIDTH, _HEIGHT),
        packages={SHOP: ".MainActivity", "com.android.chrome": "com.google.android.apps.chrome.Main"},
        launch={SHOP: "splash"},
        debuggable={SHOP},
        links={"shop://catalog": "catalog", "shop://confirmation": "confirmation"},
    )


def booting_emulator(serial: str) -> FakeDevice:
    """An emulator as it announces itself: offline for two listings, then booting for two
    looks at sys.boot_completed, then one more without a package manager."""
    device = emulator(serial)
    device.boot_listings, device.boot_probes, device.pm_probes = 2, 2, 1
    return device


def list_screen(rows: int, package: str = "com.example.big") -> str:
    """A long React Native list as the dumper prints it: ``rows`` rows of five nodes (a
    testID on two rows in three), under a scroll view: 5 * rows + 4 nodes."""
    items = []
    for i in range(rows):
        top = 100 + i * 10
        items.append(View(_VIEW_GROUP, (0, top, 1080, top + 9), rid=f"row-{i}" if i % 3 else "",
                          clickable=True, children=[
                              View(_TEXT, (10, top, 500, top + 5), text=f"Item {i} & more"),
                              View(_TEXT, (10, top + 5, 500, top + 9), text=f"${i}.00"),
                              View("android.widget.Button", (800, top, 1000, top + 9), text="Add",
                                   desc=f"Add item {i}", clickable=True),
                              View("android.widget.ImageView", (600, top, 700, top + 9), desc=f"photo {i}")]))
    root = View("android.widget.FrameLayout", (0, 0, _WIDTH, 1920), children=[
        View(_SCROLL, (0, 0, _WIDTH, 1920), scrollable=True, children=[
            View(_VIEW_GROUP, (0, 0, _WIDTH, 1920), children=items)])])
    return render(root, package)


def bench_adb(rows: int = 399) -> FakeAdb:
    """The default emulator plus a 2,000-node list (``rows`` rows), standing still
    (``bench://list``: the same bytes at every dump) and changing (``bench://list-changing``:
    one text differs at every dump), for ``benchmarks/native_snapshot.py``."""
    device = emulator()
    xml = list_screen(rows)
    dumps = 0

    def changing(_: FakeDevice) -> str:
        nonlocal dumps
        dumps += 1
        return xml.replace('text="Item 0 &amp; more"', f'text="Item 0 &amp; more ({dumps})"', 1)

    for screen in (Screen("list", "com.example.big", "com.example.big.MainActivity", lambda _: xml),
                   Screen("list-changing", "com.example.big", "com.example.big.MainActivity", changing)):
        device.screens[screen.name] = screen
        device.links[f"bench://{screen.name}"] = screen.name
    device.links["bench://catalog"] = "catalog"
    return FakeAdb([device], emulator_factory=booting_emulator)


def default_adb() -> FakeAdb:
    """One emulator, ``emulator-5554``: the launcher and the shop (emulators that boot
    later announce themselves and join)."""
    return FakeAdb([emulator()], emulator_factory=booting_emulator)


def multi_device_adb() -> FakeAdb:
    """Two usable emulators (API 34 and API 29, no motionevent), an unauthorized phone and
    an offline emulator: what a lease and ``device_list`` must tell apart."""
    return FakeAdb([
        emulator(),
        emulator("emulator-5556", sdk=29, release="10", model="Android SDK built for x86_64"),
        emulator("R58M12ABCDE", state="unauthorized"),
        emulator("emulator-5558", state="offline"),
    ], emulator_factory=booting_emulator)
