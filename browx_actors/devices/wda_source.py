"""WebDriverAgent's JSON source tree, read into the platform-neutral :class:`NativeNode` tree.

``GET /source?format=json`` answers the XCUITest snapshot of the active app as nested
objects: ``type`` (the short XCUIElementType name, ``Button``; the XML source spells it
``XCUIElementTypeButton``), ``rawIdentifier`` (the accessibilityIdentifier, null when
empty: a React Native testID lands here), ``label``, ``value`` (null when absent),
``rect`` in points, ``isEnabled`` / ``isVisible`` / ``isAccessible`` / ``isFocused`` as
the strings ``"1"`` / ``"0"``, ``traits`` (``"Button, Selected"``), ``placeholderValue``
on text inputs, and ``children`` (absent on a leaf). WDA's ``name`` is the identifier or
else the label; it adds nothing, so it is not read.

What the mapping keeps and what it loses: the role comes from a
table over the type (``Button`` to ``button`` is exact, ``Other`` to ``generic`` is
coarse) and the raw XCUITest type is kept on ``tag`` in XCUITest's own spelling
(``XCUIElementTypeCell``, whichever form WDA sent). ``StaticText`` maps to
``text``, not to a presentational role: on iOS it is the screen's content. ``label``
becomes ``name`` and ``value`` becomes ``value``, both exact; a ``placeholderValue``
rides on ``value`` only when the element has none. A secure text field is a
``password`` node whose content is never carried: WDA reports it as bullets, which
become ``********`` (not even their count is kept); an empty one shows its placeholder.

XCUITest reports no rendered string apart from the label, so ``text`` is the label of
the types UIKit titles from what they draw (static text, buttons, links), which lets a
``text=`` selector written for Android match the same control here. It reports no
clickability either: ``clickable``, ``checkable``, ``focusable`` and ``scrollable`` come
from the type table.

Pure: no I/O. A tree WDA could not have sent raises :class:`MalformedSource`; one deeper
than :data:`~.nodes.MAX_DEPTH` is refused as ``too-large`` at the first node past it,
before that node is read (its reader recurses one level per level of the tree).
"""

from __future__ import annotations

import math
from collections.abc import Mapping

import attrs

from ..jsonsafe import JsonValue
from .nodes import MAX_DEPTH, SECRET_MASK, NativeNode, Rect, too_deep

__all__ = ["COARSE_TYPES", "TYPE_PREFIX", "MalformedSource", "TypeInfo", "parse_source", "raw_type", "short_type",
           "type_info"]

#: What the XML source and XCUITest's own names put before the short type.
TYPE_PREFIX = "XCUIElementType"


#: The types that say no more than ``generic`` does.
COARSE_TYPES = frozenset({TYPE_PREFIX + "Other", TYPE_PREFIX + "Any"})


class MalformedSource(ValueError):
    """The tree is not shaped like WebDriverAgent's JSON source."""


@attrs.frozen
class TypeInfo:
    """What an XCUIElementType means: a role, and what can be done to it."""

    role: str
    clickable: bool = False
    checkable: bool = False
    #: Takes keyboard focus and typed text.
    editable: bool = False
    scrollable: bool = False
    #: Its label is its drawn title, so it is also its ``text``.
    titled: bool = False


_BUTTON = TypeInfo("button", clickable=True, titled=True)
_TEXTBOX = TypeInfo("textbox", clickable=True, editable=True)
_GENERIC = TypeInfo("generic")
#: A TextView whose traits say it is static text: read, never typed into.
_READ_ONLY_TEXT = TypeInfo("text", titled=True)

#: The XCUITest type-to-role table, by short type. Unlisted types are ``generic``.
_TYPES: dict[str, TypeInfo] = {
    "Application": TypeInfo("application"),
    "Window": TypeInfo("window"),
    "Other": _GENERIC,
    "Any": _GENERIC,
    "Group": TypeInfo("group"),
    "Button": _BUTTON,
    "MenuButton": _BUTTON,
    "ToolbarButton": _BUTTON,
    "DisclosureTriangle": _BUTTON,
    "IncrementArrow": _BUTTON,
    "DecrementArrow": _BUTTON,
    # A keyboard key is a button an agent can tap.
    "Key": _BUTTON,
    "Link": TypeInfo("link", clickable=True, titled=True),
    "StaticText": TypeInfo("text", titled=True),
    "TextField": _TEXTBOX,
    "SecureTextField": _TEXTBOX,
    "SearchField": _TEXTBOX,
    # Multiline: the tag (TextView) is what tells it from a one-line field. A read-only
    # one (a footer, terms) says so in its traits: see _node.
    "TextView": _TEXTBOX,
    "Switch": TypeInfo("switch", clickable=True, checkable=True),
    "Toggle": TypeInfo("switch", clickable=True, checkable=True),
    "CheckBox": TypeInfo("checkbox", clickable=True, checkable=True),
    "RadioButton": TypeInfo("radio", clickable=True, checkable=True),
    "RadioGroup": TypeInfo("radiogroup"),
    "SegmentedControl": TypeInfo("radiogroup"),
    "Slider": TypeInfo("slider"),
    "Stepper": TypeInfo("spinbutton"),
    "PickerWheel": TypeInfo("listbox"),
    "ProgressIndicator": TypeInfo("progressbar"),
    "ActivityIndicator": TypeInfo("progressbar"),
    "Image": TypeInfo("image"),
    "Icon": TypeInfo("image", clickable=True),
    "Cell": TypeInfo("listitem", clickable=True),
    "Table": TypeInfo("list", scrollable=True),
    "CollectionView": TypeInfo("list", scrollable=True),
    "ScrollView": TypeInfo("group", scrollable=True),
    "ScrollBar": TypeInfo("scrollbar"),
    "WebView": TypeInfo("document", scrollable=True),
    "NavigationBar": TypeInfo("navigation"),
    "TabBar": TypeInfo("tablist"),
    "TabGroup": TypeInfo("tablist"),
    "Tab": TypeInfo("tab", clickable=True, titled=True),
    "Toolbar": TypeInfo("toolbar"),
    "StatusBar": TypeInfo("status"),
    "Alert": TypeInfo("alertdialog"),
    "Sheet": TypeInfo("dialog"),
    "Dialog": TypeInfo("dialog"),
    "Popover": TypeInfo("dialog"),
    "Menu": TypeInfo("menu"),
    "MenuBar": TypeInfo("menubar"),
    "MenuItem": TypeInfo("menuitem", clickable=True, titled=True),
    "MenuBarItem": TypeInfo("menuitem", clickable=True, titled=True),
    "ComboBox": TypeInfo("combobox", clickable=True),
    "PopUpButton": TypeInfo("combobox", clickable=True, titled=True),
    "Grid": TypeInfo("grid"),
    "Keyboard": TypeInfo("group"),
}


def short_type(raw: str) -> str:
    """``XCUIElementTypeButton`` or ``Button``: the short form either way."""
    return raw.removeprefix(TYPE_PREFIX) or raw


def raw_type(raw: str) -> str:
    """``Button`` or ``XCUIElementTypeButton``: the long form either way."""
    return raw if raw.startswith(TYPE_PREFIX) else TYPE_PREFIX + raw


def type_info(raw: str) -> TypeInfo:
    """The role and the affordances of an XCUIElementType, long or short."""
    return _TYPES.get(short_type(raw), _GENERIC)


def parse_source(tree: object) -> NativeNode:
    """The ``value`` of WDA's ``GET /source?format=json`` reply as a NativeNode tree."""
    return _node(tree, ())


def _node(raw: object, path: tuple[int, ...]) -> NativeNode:
    if len(path) > MAX_DEPTH:
        raise too_deep("WebDriverAgent source")
    if not isinstance(raw, Mapping):
        raise MalformedSource(f"node {_where(path)} is {type(raw).__name__}, not an object")
    tag = raw.get("type")
    if not isinstance(tag, str) or not tag:
        raise MalformedSource(f"node {_where(path)} has no type")
    info = type_info(tag)
    traits = _traits(raw, path)
    if short_type(tag) == "TextView" and "StaticText" in traits:
        # UIKit gives a non-editable text view the static-text trait; an editable one has
        # none of its own. The type alone would offer typing into a footer.
        info = _READ_ONLY_TEXT
    secure = short_type(tag) == "SecureTextField"
    label = _text(raw, "label", path) or ""
    value = _value(raw, path, secure)
    children = raw.get("children", ())
    if not isinstance(children, list | tuple):
        raise MalformedSource(f"node {_where(path)} has children that are not a list")
    checked = info.checkable and value == "1"
    focused = _flag(raw, "isFocused", False, path)
    return NativeNode(
        role=info.role,
        tag=raw_type(tag),
        name=label,
        text=_drawn_text(info, label, value),
        value=value,
        test_id=_text(raw, "rawIdentifier", path) or None,
        bounds=_rect(raw.get("rect"), path),
        enabled=_flag(raw, "isEnabled", True, path),
        visible=_flag(raw, "isVisible", True, path),
        focusable=info.editable or focused,
        focused=focused,
        clickable=info.clickable,
        scrollable=info.scrollable,
        checkable=info.checkable,
        checked=checked,
        selected=_selected(traits, info, value),
        password=secure,
        path=path,
        children=tuple(_node(child, (*path, index)) for index, child in enumerate(children)),
    )


def _value(raw: Mapping[str, JsonValue], path: tuple[int, ...], secure: bool) -> str | None:
    value = _text(raw, "value", path)
    placeholder = _text(raw, "placeholderValue", path) or None
    if secure and value and value != placeholder:
        # WDA sends bullets for what was typed: even their count is not kept.
        return SECRET_MASK
    return value or placeholder


def _drawn_text(info: TypeInfo, label: str, value: str | None) -> str:
    if not info.titled:
        return ""
    # A static text with no label still draws its value.
    return label or (value if info.role == "text" and value else "")


def _traits(raw: Mapping[str, JsonValue], path: tuple[int, ...]) -> frozenset[str]:
    """The element's accessibility traits as WDA names them (``"Button, Selected"``)."""
    return frozenset(trait.strip() for trait in (_text(raw, "traits", path) or "").split(",") if trait.strip())


def _selected(traits: frozenset[str], info: TypeInfo, value: str | None) -> bool:
    if "Selected" in traits:
        return True
    # WDA reports a selected button's missing value as "1" (older builds send no traits).
    return info.role in ("button", "tab") and value == "1"


def _text(raw: Mapping[str, JsonValue], key: str, path: tuple[int, ...]) -> str | None:
    text = raw.get(key)
    if text is None or isinstance(text, str):
        return text
    if isinstance(text, bool):
        raise MalformedSource(f"node {_where(path)} has a {key} that is a boolean, not a string")
    if isinstance(text, int | float):
        # WDA stringifies values; a hand-built tree may not.
        return format(text, "g") if isinstance(text, float) else str(text)
    raise MalformedSource(f"node {_where(path)} has a {key} that is not a string")


def _flag(raw: Mapping[str, JsonValue], key: str, default: bool, path: tuple[int, ...]) -> bool:
    flag = raw.get(key)
    if flag is None:
        return default
    if flag in ("1", "0") or isinstance(flag, bool):
        return flag in ("1", True)
    raise MalformedSource(f"node {_where(path)} has {key}={flag!r}, not \"1\" or \"0\"")


def _rect(rect: object, path: tuple[int, ...]) -> Rect | None:
    if rect is None:
        return None
    if not isinstance(rect, Mapping):
        raise MalformedSource(f"node {_where(path)} has a rect that is not an object")
    numbers = []
    for key in ("x", "y", "width", "height"):
        number = rect.get(key)
        if isinstance(number, bool) or not isinstance(number, int | float) or not math.isfinite(number):
            raise MalformedSource(f"node {_where(path)} has rect.{key}={number!r}, not a finite number")
        numbers.append(float(number))
    return Rect(*numbers)


def _where(path: tuple[int, ...]) -> str:
    return "/".join(map(str, path)) or "(root)"
