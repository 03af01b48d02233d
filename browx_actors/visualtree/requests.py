"""What the ``ui.*`` tools' arguments become: a node query, tree limits, a node reference.

The arguments are declared in ``browx_actors/tools/visual.py`` and checked by the
dispatch before anything runs; these pure functions turn the checked arguments into
the model's :class:`~.query.NodeQuery`, :class:`~.payload.TreeLimits` and
:class:`~.snapshots.NodeReference`. Nothing here re-validates.
"""

from __future__ import annotations

from ..tools.shapes import NodeReferenceJson, Rect
from ..tools.visual import Criteria, InspectNodeArgs, VisualTreeArgs
from .model import Bounds, Point
from .payload import TreeLimits
from .query import NodeQuery
from .snapshots import NodeReference

__all__ = ["limits_of", "query_of", "reference_of"]


def _rect(value: Rect | None) -> Bounds | None:
    return None if value is None else Bounds(value["x"], value["y"], value["width"], value["height"])


def _area(value: Rect | None) -> Bounds | Point | None:
    """``contains``: a rectangle when it has a size, else a point."""
    if value is None or "width" in value:
        return _rect(value)
    return Point(value["x"], value["y"])


def query_of(args: Criteria) -> NodeQuery:
    """The query that checked ``ui.query_nodes`` / ``ui.wait`` arguments describe."""
    return NodeQuery(
        node_id=args.node_id,
        automation_id=args.automation_id,
        role=args.role,
        type_name=args.type,
        text=args.text,
        text_match="exact" if args.text_match == "exact" else "contains",
        action=args.action,
        visible=args.visible,
        enabled=args.enabled,
        intersects=_rect(args.intersects),
        contains=_area(args.contains),
    )


def limits_of(args: VisualTreeArgs | InspectNodeArgs) -> TreeLimits:
    return TreeLimits(max_depth=args.max_depth, max_nodes=args.max_nodes)


def reference_of(reference: NodeReferenceJson) -> NodeReference:
    return NodeReference.from_json(dict(reference))
