"""The scripted app behind the fake WebDriverAgent: ``com.example.shop`` and the home screen.

Screens are built afresh from the app's state on every read, as a real app re-lays
itself out, and each element renders itself in WDA's JSON shape (:meth:`Element.to_wda`)
with WDA's value rules. What tests lean on:

* login: ``login-email`` (TextField) and ``login-password`` (SecureTextField) with
  placeholders, a ``remember-me`` switch, ``login-submit``, and "Forgot password?" with
  no identifier. Submitting with no email raises an alert (a modal window).
* products: two "Add to cart" buttons (one label, two nodes; ``add-espresso`` and
  ``add-kettle``), a cell without an identifier, ``toggle-promo`` which inserts a banner
  above the list and so moves ``checkout-submit`` (new path, new rect), and
  ``checkout-submit`` itself, disabled until the cart has something.
* checkout: a multiline TextView, a slider, an image, a link, ``place-order``.
* a focused field brings up a keyboard window whose keys type.

Deep links: ``shop://products``, ``shop://checkout``, ``shop://login``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import attrs

__all__ = ["SHOP", "Element", "ShopApp", "home_screen"]

SHOP = "com.example.shop"
_INNER_TEXT = ("TextField", "SecureTextField", "SearchField", "TextView")
_CONTAINERS = ("Application", "Window", "Other", "Table", "Cell", "NavigationBar", "TabBar", "Alert", "Keyboard")
_TRAITS = {"Button": "Button", "StaticText": "StaticText", "Image": "Image", "Link": "Link", "Key": "KeyboardKey",
           "Switch": "Button, ToggleButton", "Slider": "Adjustable", "Icon": "Button"}
_PRICES = {"espresso": ("Espresso beans", 12), "kettle": ("Pour-over kettle", 39)}


def _swallow() -> None:
    """A tap handler for modal areas: the tap lands, and nothing under it sees it."""


@attrs.define
class Element:
    """One XCUITest element: its type (short form), attributes, children and tap handler."""

    type: str
    label: str | None = None
    identifier: str | None = None
    value: str | None = None
    rect: tuple[float, float, float, float] = (0, 0, 0, 0)
    children: list[Element] = attrs.field(factory=list)
    placeholder: str | None = None
    enabled: bool = True
    focused: bool = False
    selected: bool = False
    header: bool = False
    on_tap: Callable[[], None] | None = None

    def walk(self) -> Iterator[Element]:
        yield self
        for child in self.children:
            yield from child.walk()

    def contains(self, x: float, y: float) -> bool:
        left, top, width, height = self.rect
        return left <= x < left + width and top <= y < top + height

    def hit(self, x: float, y: float) -> Element | None:
        """The element a tap at (x, y) reaches: the topmost handler under the point."""
        for child in reversed(self.children):  # later siblings draw on top
            target = child.hit(x, y)
            if target is not None:
                return target
        return self if self.on_tap is not None and self.contains(x, y) else None

    def to_wda(self, *, children: bool = True) -> dict[str, Any]:
        """This element as WDA's JSON source writes it."""
        x, y, width, height = self.rect
        frame = f"{{{{{x:g}, {y:g}}}, {{{width:g}, {height:g}}}}}"
        accessible = self.type not in _CONTAINERS
        traits = ", ".join(filter(None, (_TRAITS.get(self.type, ""), "Header" if self.header else "",
                                         "Selected" if self.selected else "", "" if self.enabled else "NotEnabled")))
        node: dict[str, Any] = {
            "type": self.type,
            "rawIdentifier": self.identifier or None,
            "name": self.identifier or self.label or None,
            "value": self._wda_value(),
            "label": self.label if self.type in ("TextField", "SecureTextField") else self.label or None,
            "rect": {"x": x, "y": y, "width": width, "height": height},
            "customActions": None,
            "frame": frame,
            "nativeFrame": frame,
            "isEnabled": "1" if self.enabled else "0",
            "isVisible": "1",
            "isAccessible": "1" if accessible else "0",
            "isNativeAccessibilityElement": "1" if accessible else "0",
            "isFocused": "1" if self.focused else "0",
            "traits": traits,
        }
        if self.type in _INNER_TEXT:
            node["placeholderValue"] = self.placeholder
        if self.type == "Slider":
            node.update(minValue=0, maxValue=1)
        if children and self.children:
            node["children"] = [child.to_wda() for child in self.children]
        return node

    def _wda_value(self) -> str | None:
        # XCUIElement+FBWebDriverAttributes' wdValue, rule for rule.
        value = self.value
        if self.type == "StaticText":
            value = value or self.label
        elif self.type == "Button":
            value = value or ("1" if self.selected else None)
        elif self.type == "Switch":
            value = "1" if value == "1" else "0"
        elif self.type in _INNER_TEXT:
            value = value or self.placeholder
        return value or None


def _text(label: str, rect: tuple[float, float, float, float], identifier: str | None = None,
          header: bool = False) -> Element:
    return Element("StaticText", label, identifier, rect=rect, header=header)


def _nav_bar(title: str, width: float, *buttons: Element) -> Element:
    # UIKit names a navigation bar after its title: WDA reports that as its identifier.
    return Element("NavigationBar", title, title, rect=(0, 54, width, 44),
                   children=[_text(title, (width / 2 - 40, 65, 80, 22), header=True), *buttons])


@attrs.define
class ShopApp:
    """The shop's state; :meth:`tree` lays out the current screen from it."""

    screen: str = "login"
    email: str = ""
    password: str = ""
    remember: bool = False
    reset_sent: bool = False
    alert: str | None = None
    focused: str | None = None
    notes: str = ""
    promo: bool = False
    cart: dict[str, int] = attrs.field(factory=dict)

    def go(self, screen: str) -> None:
        self.screen, self.focused = screen, None

    def type_text(self, text: str) -> bool:
        """Type into the focused field; False when nothing has keyboard focus."""
        if self.focused is None:
            return False
        for char in text:
            if char == "\n":
                self.focused = None
                break
            field = self.focused
            current = getattr(self, field)
            setattr(self, field, current[:-1] if char in "\b\x7f" else current + char)
        return True

    def open_url(self, url: str) -> bool:
        if not url.startswith("shop://"):
            return False
        target = url.removeprefix("shop://").strip("/")
        if target in ("login", "products", "checkout"):
            self.go(target)
        return True

    def tree(self, width: float, height: float) -> Element:
        screen = getattr(self, f"_{self.screen}")(width)
        windows = [Element("Window", rect=(0, 0, width, height), children=[
            Element("Other", rect=(0, 0, width, height), children=screen)])]
        if self.focused is not None:
            windows.append(self._keyboard(width, height))
        if self.alert is not None:
            windows.append(self._alert(width, height))
        return Element("Application", "Shop", rect=(0, 0, width, height), children=windows)

    def _field(self, name: str) -> Callable[[], None]:
        def focus() -> None:
            self.focused = name
        return focus

    def _submit(self) -> None:
        if self.email:
            self.go("products")
        else:
            self.alert = "Email required"

    def _login(self, width: float) -> list[Element]:
        def toggle_remember() -> None:
            self.remember = not self.remember

        def forgot() -> None:
            self.reset_sent = True

        screen = [
            _nav_bar("Shop", width),
            _text("Sign in to continue", (24, 118, 345, 28)),
            Element("TextField", "", "login-email", self.email, (24, 160, 345, 44), placeholder="Email",
                    focused=self.focused == "email", on_tap=self._field("email")),
            Element("SecureTextField", "", "login-password", "\u2022" * len(self.password), (24, 216, 345, 44),
                    placeholder="Password", focused=self.focused == "password", on_tap=self._field("password")),
            Element("Switch", "Remember me", "remember-me", "1" if self.remember else "0", (24, 272, 345, 31),
                    on_tap=toggle_remember),
            Element("Button", "Sign in", "login-submit", rect=(24, 323, 345, 50), on_tap=self._submit),
            Element("Button", "Forgot password?", rect=(24, 385, 345, 30), on_tap=forgot),
        ]
        if self.reset_sent:
            screen.append(_text("We sent you a reset link", (24, 425, 345, 24)))
        return screen

    def _products(self, width: float) -> list[Element]:
        def sign_out() -> None:
            self.email, self.password = "", ""
            self.go("login")

        def add(product: str) -> Callable[[], None]:
            def tap() -> None:
                self.cart[product] = self.cart.get(product, 0) + 1
            return tap

        def toggle_promo() -> None:
            self.promo = not self.promo

        shift = 60 if self.promo else 0
        cells = []
        for row, (product, (title, price)) in enumerate(_PRICES.items()):
            top = 98 + shift + row * 88
            cells.append(Element("Cell", identifier=f"product-{product}", rect=(0, top, width, 88), children=[
                _text(title, (16, top + 12, 220, 24)), _text(f"${price}.00", (16, top + 44, 120, 22)),
                Element("Button", "Add to cart", f"add-{product}", rect=(250, top + 22, 127, 44),
                        on_tap=add(product))]))
        top = 98 + shift + 2 * 88
        cells.append(Element("Cell", rect=(0, top, width, 88), children=[
            _text("Gift card", (16, top + 12, 220, 24)), _text("from $25.00", (16, top + 44, 120, 22))]))
        items = sum(self.cart.values())
        screen = [_nav_bar("Products", width, Element("Button", "Sign out", "sign-out", rect=(300, 60, 80, 32),
                                                       on_tap=sign_out))]
        if self.promo:
            screen.append(Element("Other", identifier="promo-banner", rect=(0, 98, width, 60),
                                  children=[_text("Free shipping today", (16, 114, 361, 28))]))
        screen += [
            Element("Table", identifier="product-list", rect=(0, 98 + shift, width, 264), children=cells),
            _text(f"Cart: {items} item{'' if items == 1 else 's'}", (24, 380 + shift, 345, 24), "cart-count"),
            Element("Button", "Hide promo" if self.promo else "Show promo", "toggle-promo",
                    rect=(24, 416 + shift, 160, 44), on_tap=toggle_promo),
            # Disabled until the cart has something: a tap on it then does nothing.
            Element("Button", "Checkout", "checkout-submit", rect=(24, 472 + shift, 345, 50), enabled=items > 0,
                    on_tap=(lambda: self.go("checkout")) if items else _swallow),
            Element("TabBar", rect=(0, 769, width, 83), children=[
                Element("Button", "Shop", rect=(0, 770, width / 2, 49), selected=True, on_tap=_swallow),
                Element("Button", "Account", rect=(width / 2, 770, width / 2, 49), on_tap=_swallow)]),
        ]
        return screen

    def _checkout(self, width: float) -> list[Element]:
        total = sum(_PRICES[product][1] * count for product, count in self.cart.items())
        return [
            _nav_bar("Checkout", width, Element("Button", "Back", "checkout-back", rect=(8, 60, 70, 32),
                                                on_tap=lambda: self.go("products"))),
            Element("Image", "Espresso beans", rect=(24, 110, 80, 80)),
            _text(f"Total: ${total}.00", (120, 136, 249, 28), "order-total"),
            Element("TextView", "", "order-notes", self.notes, (24, 206, 345, 100), placeholder="Delivery notes",
                    focused=self.focused == "notes", on_tap=self._field("notes")),
            Element("Slider", "Tip", "tip", "10%", (24, 322, 345, 31)),
            Element("Link", "Terms of sale", rect=(24, 369, 120, 20), on_tap=_swallow),
            Element("Button", "Place order", "place-order", rect=(24, 405, 345, 50), on_tap=lambda: self.go("done")),
        ]

    def _done(self, width: float) -> list[Element]:
        def again() -> None:
            self.cart.clear()
            self.go("products")

        return [_text("Thank you! Your order is on its way.", (24, 140, 345, 48), "order-confirmation"),
                Element("Button", "Continue shopping", "continue-shopping", rect=(24, 204, 345, 50), on_tap=again)]

    def _keyboard(self, width: float, height: float) -> Element:
        def key(char: str) -> Callable[[], None]:
            def press() -> None:
                self.type_text(char)
            return press

        top = height - 336
        keys = [Element("Key", "delete", "delete", rect=(340, top + 184, 45, 42), on_tap=key("\b")),
                Element("Key", "space", "space", rect=(100, top + 240, 190, 42), on_tap=key(" ")),
                Element("Button", "return", "Return", rect=(290, top + 240, 95, 42), on_tap=key("\n"))]
        return Element("Window", rect=(0, 0, width, height), children=[
            Element("Keyboard", rect=(0, top, width, 336), children=keys, on_tap=_swallow)])

    def _alert(self, width: float, height: float) -> Element:
        def dismiss() -> None:
            self.alert = None

        top = height / 2 - 75
        return Element("Window", rect=(0, 0, width, height), on_tap=_swallow, children=[
            Element("Alert", self.alert, rect=(47, top, 299, 150), children=[
                _text(self.alert or "", (63, top + 20, 267, 22)),
                _text("Enter the email you signed up with.", (63, top + 46, 267, 40)),
                Element("Button", "OK", rect=(47, top + 106, 299, 44), on_tap=dismiss)])])


def home_screen(width: float, height: float, open_shop: Callable[[], None]) -> Element:
    """SpringBoard: app icons (identifier = app name, as iOS reports them)."""
    icons = [Element("Icon", "Shop", "Shop", rect=(27, 80, 64, 64), on_tap=open_shop),
             Element("Icon", "Settings", "Settings", rect=(118, 80, 64, 64), on_tap=_swallow)]
    return Element("Application", "SpringBoard", rect=(0, 0, width, height), children=[
        Element("Window", rect=(0, 0, width, height), children=[
            Element("Other", rect=(0, 0, width, height), children=icons)])])
