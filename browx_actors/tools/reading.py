"""Reading the page or screen: snapshot, find, text_search, frames, named refs, feedback,
inspect, and the verify_* checks.

None of them changes the page; each answers with refs (``e12``, ``f2e5`` inside a frame)
that the action tools take.
"""

from __future__ import annotations

import re

from ..errors import ToolError
from .arguments import arg, arguments, param
from .contract import CHANGES, READS, SessionArgs, session_tool
from .params import MAX_ID, Param
from .rules import AtLeastOne, Check, JsonArgs
from .targets import ONE_ELEMENT, OPTIONAL_ELEMENT, REF, REF_NAME_PATTERN, SELECTOR

#: A CSS property name (``font-size``, ``fontSize``) or a custom property (``--brand``).
_STYLE_NAME = re.compile(r"(--)?[A-Za-z][A-Za-z0-9-]{0,99}")

LIMIT = Param("limit", "integer", "", default=20, minimum=1, maximum=500)


@arguments
class SnapshotArgs(SessionArgs):
    """snapshot's arguments."""

    scope: str | None = param("scope", "string", "Ref or selector of the subtree to read.")
    max_nodes: int = param("maxNodes", "integer", "Stop after this many lines.", default=2000, minimum=1, maximum=20000)
    omit: list[str] | None = param("omit", "array", "Roles to leave out; their children stay.", items="string")


SNAPSHOT = session_tool(
    "snapshot", SnapshotArgs,
    title="Page snapshot", capability="read", hints=READS,
    summary="Read the page, or a subtree, as indented accessibility text with element refs.",
    description="Accessibility snapshot as compact indented text: role \"name\" [ref=eN] [states]. Refs stay stable "
        "while their element lives.",
)


@arguments
class FindArgs(SessionArgs):
    """find's arguments."""

    role: str | None = param("role", "string", "ARIA role, e.g. button.")
    name: str | None = param("name", "string", "Accessible name.", secrets="substitute")
    text: str | None = param("text", "string", "Visible text.", secrets="substitute")
    test_id: str | None = param("testId", "string", "data-testid value.")
    exact: bool = param("exact", "boolean", "Match name/text exactly, not as substrings.", default=False)
    scope: str | None = param("scope", "string", "Ref or selector to search under.")
    limit: int = arg(LIMIT)


FIND = session_tool(
    "find", FindArgs,
    title="Find elements", capability="read", hints=READS,
    summary="Find elements by role, name, text or test id; returns refs and reusable selector hints.",
    description="Find elements by role, accessible name, text or test id; returns refs and reusable selector hints. "
        "`name` and `text` match substrings unless `exact`; `limit` is the most matches to return.",
    rules=(AtLeastOne(("role", "name", "text", "testId")),),
)


@arguments
class TextSearchArgs(SessionArgs):
    """text_search's arguments."""

    query: str = param("query", "string", "", required=True, secrets="substitute")
    case_sensitive: bool = param("caseSensitive", "boolean", "", default=False)
    limit: int = arg(LIMIT)


TEXT_SEARCH = session_tool(
    "text_search", TextSearchArgs,
    title="Search text", capability="read", hints=READS,
    summary="Search the page's visible text; each match names the ref of its nearest element.",
    description="Search the page's visible text for `query` (matching case only with `caseSensitive`); each match "
        "names the ref of its nearest element. `limit` is the most matches to return.",
)


@arguments
class FramesListArgs(SessionArgs):
    """frames_list's arguments."""

    details: bool = param("details", "boolean", "Each frame as an object.", default=False)


FRAMES_LIST = session_tool(
    "frames_list", FramesListArgs,
    title="List frames", capability="read", hints=READS,
    summary="List the current tab's frames (id, url, origin, iframe ref); refs inside one read fNeM.",
    description="The current tab's frames: `fN url name (same-origin | cross-origin, out-of-process) in <iframe "
        "ref>`, each after its parent. Refs inside a frame are spelled fNeM (snapshot shows them); click, "
        "fill and the rest take them like any ref.",
)


@arguments
class NameRefArgs(SessionArgs):
    """name_ref's arguments."""

    ref: str = param("ref", "string", "Element ref (from snapshot or find), or a name.", required=True,
                     max_length=REF.max_length)
    name: str = param("name", "string",
                      "A letter or _, then letters, digits, _ . : -; not a ref.",
                      required=True, pattern=REF_NAME_PATTERN, max_length=64)


NAME_REF = session_tool(
    "name_ref", NameRefArgs,
    title="Name a ref", capability="read", hints=CHANGES,
    summary="Name an element for the session; the name works as a ref and survives re-renders.",
    description="Give an element a name for this session that survives re-renders where its identity does (a test "
        "id, an id, its role and name, or a stable path); the name then works anywhere a ref does. `ref` is the "
        "element's ref (from a snapshot or find), or a name. The name starts with a letter or _, then letters, "
        "digits, _ . : -, and is not a ref (e<digits>, f<digits>e<digits>).",
)


LIST_NAMED_REFS = session_tool(
    "list_named_refs", SessionArgs,
    title="List named refs", capability="read", hints=READS,
    summary="List the session's named refs and the ref each resolves to on the current page.",
    description="The session's named refs: each name, its anchor, and the ref it resolves to on the current page "
        "(null: nothing matches here).",
)


@arguments
class FindFeedbackArgs(SessionArgs):
    """find_feedback's arguments."""

    limit: int = param("limit", "integer", "", default=20, minimum=1, maximum=200)
    new_only: bool = param("newOnly", "boolean", "Only what is new since the last action.", default=False)


FIND_FEEDBACK = session_tool(
    "find_feedback", FindFeedbackArgs,
    title="Find feedback", capability="read", hints=READS,
    summary="Read what the page tells the user: alerts, toasts, live regions, field errors.",
    description="What the page is telling the user: alerts, status and live regions, toasts, invalid fields with "
        "their messages; each with a ref, and new: true when it appeared or changed since the last action began. "
        "`limit` is the most items to return.",
)


@arguments
class InspectArgs(SessionArgs):
    """inspect's arguments."""

    ref: str | None = arg(REF)
    selector: str | None = arg(SELECTOR)
    styles: list[str] | None = param("styles", "array", "CSS property names: font-size, fontSize or --custom.",
                                     items="string", max_items=50)


def _check_styles(args: JsonArgs) -> None:
    for i, name in enumerate(args["styles"] or []):
        if _STYLE_NAME.fullmatch(name) is None:
            raise ToolError("bad-arg", f"styles[{i}] {name!r} is not a CSS property name", field="styles")


INSPECT = session_tool(
    "inspect", InspectArgs,
    title="Inspect element", capability="read", hints=READS,
    summary="Read one element's state, box, attributes, accessibility and requested computed styles.",
    description="One element's state, box (viewport CSS pixels), the computed styles asked for, attributes, and the "
        "accessibility properties the browser computed, in one call. `styles` names the computed styles to read: "
        "CSS names, camelCase or --custom properties.",
    rules=(ONE_ELEMENT, Check(_check_styles, "each of `styles` is a CSS property name"),),
)


@arguments
class VerifyVisibleArgs(SessionArgs):
    """verify_visible's arguments."""

    ref: str | None = arg(REF)
    selector: str | None = arg(SELECTOR)


VERIFY_VISIBLE = session_tool(
    "verify_visible", VerifyVisibleArgs,
    title="Verify visible", capability="read", hints=READS,
    summary="Check that an element is visible.",
    rules=(ONE_ELEMENT,),
)


@arguments
class VerifyTextArgs(SessionArgs):
    """verify_text's arguments."""

    text: str = param("text", "string", "Expected text.", required=True, secrets="substitute")
    ref: str | None = arg(REF)
    selector: str | None = arg(SELECTOR)
    exact: bool = param("exact", "boolean", "Element text equals it exactly.", default=False)


VERIFY_TEXT = session_tool(
    "verify_text", VerifyTextArgs,
    title="Verify text", capability="read", hints=READS,
    summary="Check that text is on the page, or in an element.",
    rules=(OPTIONAL_ELEMENT,),
)


@arguments
class VerifyValueArgs(SessionArgs):
    """verify_value's arguments."""

    ref: str | None = arg(REF)
    selector: str | None = arg(SELECTOR)
    value: str = param("value", "string", "Expected value.", required=True, secrets="substitute")


VERIFY_VALUE = session_tool(
    "verify_value", VerifyValueArgs,
    title="Verify value", capability="read", hints=READS,
    summary="Check a form field's current value.",
    rules=(ONE_ELEMENT,),
)


@arguments
class VerifyAttributeArgs(SessionArgs):
    """verify_attribute's arguments."""

    ref: str | None = arg(REF)
    selector: str | None = arg(SELECTOR)
    name: str = param("name", "string", "Attribute name.", required=True)
    value: str = param("value", "string", "Expected value.", required=True, secrets="substitute")


VERIFY_ATTRIBUTE = session_tool(
    "verify_attribute", VerifyAttributeArgs,
    title="Verify attribute", capability="read", hints=READS,
    summary="Check an element attribute.",
    rules=(ONE_ELEMENT,),
)


@arguments
class VerifyCountArgs(SessionArgs):
    """verify_count's arguments."""

    selector: str = param("selector", "string", "Selector to count.", required=True)
    count: int = param("count", "integer", "Expected count.", required=True, minimum=0, maximum=MAX_ID)


VERIFY_COUNT = session_tool(
    "verify_count", VerifyCountArgs,
    title="Verify count", capability="read", hints=READS,
    summary="Check how many elements match a selector.",
)
