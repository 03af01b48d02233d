"""``uiautomator dump`` text for parser tests: nodes in AOSP's attribute order, wrapped in
the hierarchy as the dumper prints it (shared by the expat and the pattern reader's tests)."""

from __future__ import annotations

__all__ = ["dump", "dump_node"]


def dump(*nodes: str) -> str:
    """The nodes (or any text) inside ``<hierarchy>``, after the XML declaration."""
    return ("<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy rotation=\"0\">"
            + "".join(nodes) + "</hierarchy>")


def dump_node(cls: str = "android.widget.TextView", **attributes: str) -> str:
    """One self-closing node with every attribute the dumper writes, in its order; keyword
    names take ``-`` as ``_`` (``resource_id``), and names it does not write go last."""
    base = {"index": "0", "text": "", "resource-id": "", "class": cls, "package": "com.example.shop",
            "content-desc": "", "checkable": "false", "checked": "false", "clickable": "false",
            "enabled": "true", "focusable": "false", "focused": "false", "scrollable": "false",
            "long-clickable": "false", "password": "false", "selected": "false", "bounds": "[0,0][100,50]"}
    base.update({k.replace("_", "-"): v for k, v in attributes.items()})
    return "<node " + " ".join(f'{k}="{v}"' for k, v in base.items()) + " />"
