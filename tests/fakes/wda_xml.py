"""WebDriverAgent's XML page source as the JSON source WDA gives for the same snapshot.

Real iOS sources are published as XML (Appium's ``getPageSource``, WDA's ``GET /source``)
far more often than as JSON, and the engine reads WDA's JSON (``/source?format=json``).
WDA writes both from one dictionary per element, so the JSON follows from the XML
attribute for attribute: ``type`` in the short form the JSON uses (``Button``), ``name``,
``label`` and ``value`` as they are (an absent attribute is JSON's null), ``enabled`` /
``visible`` / ``accessible`` / ``focused`` as ``isEnabled`` / ``isVisible`` /
``isAccessible`` / ``isFocused`` in ``"1"`` / ``"0"``, ``x y width height`` as ``rect``
(and WDA's ``frame`` string), ``traits`` and ``placeholderValue`` when the XML has them,
and ``children`` only when there are some. Appium's ``<AppiumAUT>`` wrapper and the
XML-only ``index`` are dropped.

One field the XML does not carry: ``rawIdentifier``, the accessibility identifier. WDA's
``name`` is the identifier when there is one and the label otherwise, so a ``name`` that
differs from the ``label`` (or stands without one) is the identifier; a ``name`` equal to
the label is taken as no identifier, which is WDA's own reading when they coincide.

Pure: a string in, a dict out.
"""

from __future__ import annotations

from typing import Any
from xml.etree import ElementTree

__all__ = ["source_json"]

_PREFIX = "XCUIElementType"
_FLAGS = (("enabled", "isEnabled"), ("visible", "isVisible"), ("accessible", "isAccessible"),
          ("focused", "isFocused"))
_PASSED = ("placeholderValue", "traits")


def source_json(xml: str | bytes) -> dict[str, Any]:
    """The ``value`` WDA's ``GET /source?format=json`` would answer for this XML source."""
    root = ElementTree.fromstring(xml)
    if root.tag == "AppiumAUT":
        (root,) = list(root)
    return _element(root)


def _element(element: ElementTree.Element) -> dict[str, Any]:
    attributes = element.attrib
    raw_type = attributes.get("type", element.tag)
    name, label = attributes.get("name"), attributes.get("label")
    node: dict[str, Any] = {
        "type": raw_type.removeprefix(_PREFIX) or raw_type,
        "rawIdentifier": name if name and name != label else None,
        "name": name,
        "value": attributes.get("value"),
        "label": label,
        **_geometry(attributes),
    }
    node.update({key: "1" if attributes[flag] == "true" else "0" for flag, key in _FLAGS if flag in attributes})
    node.update({key: attributes[key] for key in _PASSED if key in attributes})
    children = [_element(child) for child in element]
    if children:
        node["children"] = children
    return node


def _geometry(attributes: dict[str, str]) -> dict[str, Any]:
    """WDA's ``rect`` (numbers) and ``frame`` (``{{x, y}, {width, height}}``)."""
    x, y, width, height = (_number(attributes.get(key, "0")) for key in ("x", "y", "width", "height"))
    return {"rect": {"x": x, "y": y, "width": width, "height": height},
            "frame": f"{{{{{x:g}, {y:g}}}, {{{width:g}, {height:g}}}}}"}


def _number(text: str) -> int | float:
    number = float(text)
    return int(number) if number.is_integer() else number
