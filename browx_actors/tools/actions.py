"""Acting on an element: click, hover, fill, press, select, scroll, upload_file, the dialog
tools, fill_form and choose_option.

Every action answers in the one action shape (docs/tools.md, "Action results"): its
target, what navigated, what appeared and went away, and how the page settled.
"""

from __future__ import annotations

from typing import Literal

from ..errors import ToolError
from .arguments import arg, arguments, param
from .contract import ACTS, CHANGES, SessionArgs, session_tool
from .params import MAX_COORDINATE, Param
from .rules import Check, JsonArgs
from .shapes import FormField, Point
from .targets import BUTTON, COORDS, MODIFIERS, ONE_ELEMENT, ONE_TARGET, OPTIONAL_ELEMENT, REF, SELECTOR, TIMEOUT_MS

#: How the session answers JavaScript dialogs.
DialogPolicy = Literal["accept", "dismiss", "ask", "ask-human"]
DIALOG_POLICIES: tuple[DialogPolicy, ...] = ("accept", "dismiss", "ask", "ask-human")

#: Largest scroll delta, in CSS pixels either way (a very long page, in one call).
MAX_SCROLL = 10 * MAX_COORDINATE

_FIELDS = Param("fields", "array", "Each {ref or selector, value: text, true/false or option(s)}.",
                required=True, items="object", max_items=100, min_items=1,
                properties={"ref": {"type": "string", "maxLength": 200}, "selector": {"type": "string"},
                            "value": {"type": ["string", "boolean", "array"]}},
                required_keys=("value",), secrets="values")


@arguments
class ClickArgs(SessionArgs):
    """click's arguments."""

    ref: str | None = arg(REF)
    selector: str | None = arg(SELECTOR)
    coords: Point | None = arg(COORDS)
    button: str = arg(BUTTON)
    click_count: int = param("clickCount", "integer", "2 for a double click.", default=1, minimum=1, maximum=3)
    modifiers: list[str] | None = arg(MODIFIERS)


CLICK = session_tool(
    "click", ClickArgs,
    title="Click", capability="action", hints=ACTS,
    summary="Click an element or a point: press buttons, follow links, toggle checkboxes.",
    rules=(ONE_TARGET,),
)


@arguments
class HoverArgs(SessionArgs):
    """hover's arguments."""

    ref: str | None = arg(REF)
    selector: str | None = arg(SELECTOR)
    coords: Point | None = arg(COORDS)


HOVER = session_tool(
    "hover", HoverArgs,
    title="Hover", capability="action", hints=ACTS,
    summary="Move the mouse over an element or a point.",
    rules=(ONE_TARGET,),
)


@arguments
class FillArgs(SessionArgs):
    """fill's arguments."""

    ref: str | None = arg(REF)
    selector: str | None = arg(SELECTOR)
    value: str = param("value", "string", "New value; <NAME> for a registered secret.", required=True,
                       secrets="substitute")
    submit: bool = param("submit", "boolean", "Press Enter afterwards.", default=False)


FILL = session_tool(
    "fill", FillArgs,
    title="Fill", capability="action", hints=ACTS,
    summary="Replace the value of a text field; fill_form sets several fields in one call.",
    description="Replace the value of a text field. A code editor's or rich-text editor's field (Monaco, Ace, "
        "CodeMirror, a contenteditable) gets the value as one paste over its whole text, which the editor does "
        "not rewrite as it rewrites typing (firefox pastes through the browser's clipboard and empties it "
        "after); fill then reads what the editor shows and answers `verification-failed` when it shows other "
        "text.",
    rules=(ONE_ELEMENT,),
)


@arguments
class PressArgs(SessionArgs):
    """press's arguments."""

    key: str = param("key", "string", "Key or chord: Enter, Control+A.", required=True)
    ref: str | None = arg(REF)
    selector: str | None = arg(SELECTOR)


PRESS = session_tool(
    "press", PressArgs,
    title="Press key", capability="action", hints=ACTS,
    summary="Press a key or chord on an element, or on the page when none is given.",
    description="Press a key or chord (Enter, Control+A) on an element or the page.",
    rules=(OPTIONAL_ELEMENT,),
)


@arguments
class SelectArgs(SessionArgs):
    """select's arguments."""

    ref: str | None = arg(REF)
    selector: str | None = arg(SELECTOR)
    values: list[str] = param("values", "array", "Values or labels to select.", required=True, items="string")


SELECT = session_tool(
    "select", SelectArgs,
    title="Select option", capability="action", hints=ACTS,
    summary="Choose options of a native <select> by value or label; choose_option for custom dropdowns.",
    description="Choose options of a <select> by value or label.",
    rules=(ONE_ELEMENT,),
)


@arguments
class ScrollArgs(SessionArgs):
    """scroll's arguments."""

    ref: str | None = arg(REF)
    selector: str | None = arg(SELECTOR)
    delta_x: float = param("deltaX", "number", "Horizontal pixels.", default=0, minimum=-MAX_SCROLL,
                           maximum=MAX_SCROLL)
    delta_y: float = param("deltaY", "number", "Vertical pixels.", default=0, minimum=-MAX_SCROLL,
                           maximum=MAX_SCROLL)
    to: str | None = param("to", "string", "Scroll to an end of the element or page.",
                           enum=("top", "bottom", "left", "right"))


def _scroll_has_effect(args: JsonArgs) -> None:
    targeted = args.get("ref") is not None or args.get("selector") is not None
    moved = args["deltaX"] != 0 or args["deltaY"] != 0
    if args.get("to") is not None and moved:
        raise ToolError("bad-arg", "give to or a deltaX/deltaY, not both", field="to")
    if not targeted and not moved and args.get("to") is None:
        raise ToolError("bad-arg", "give a target to scroll into view, to, or a non-zero deltaX/deltaY",
                        field="deltaY")


SCROLL = session_tool(
    "scroll", ScrollArgs,
    title="Scroll", capability="action", hints=ACTS,
    summary="Scroll an element into view, scroll it or the page by a delta, or to an end (to).",
    rules=(OPTIONAL_ELEMENT,
           Check(_scroll_has_effect, "a target, `to`, or a non-zero `deltaX` / `deltaY` (`to` excludes the deltas)"),),
)


@arguments
class UploadFileArgs(SessionArgs):
    """upload_file's arguments."""

    ref: str | None = arg(REF)
    selector: str | None = arg(SELECTOR)
    paths: list[str] = param("paths", "array", "Files under the workspace, e.g. uploads/cv.pdf.", required=True,
                             items="string", max_items=20, min_items=1)


UPLOAD_FILE = session_tool(
    "upload_file", UploadFileArgs,
    title="Upload file", capability="action", hints=ACTS,
    summary="Give a file input, or a button that opens a file chooser, files from the workspace.",
    description="Give a file input (ref or selector) files from the workspace; a button that opens a file chooser "
        "works too. Reports what changed, like every action.",
    rules=(ONE_ELEMENT,),
)


@arguments
class HandleDialogArgs(SessionArgs):
    """handle_dialog's arguments."""

    accept: bool = param("accept", "boolean", "true: OK / Leave; false: Cancel / Stay.", required=True)
    prompt_text: str | None = param("promptText", "string",
                                    "Prompt answer (accept only); <NAME> for a secret.",
                                    max_length=100000, secrets="substitute")


HANDLE_DIALOG = session_tool(
    "handle_dialog", HandleDialogArgs,
    title="Handle dialog", capability="action", hints=ACTS,
    summary="Accept or dismiss the open JavaScript dialog: alert, confirm, prompt or beforeunload.",
    description="Answer the JavaScript dialog (alert, confirm, prompt, beforeunload) open on the current tab: accept "
        "(OK) or dismiss (Cancel), with promptText for a prompt (<NAME> for a registered secret; without promptText a "
        "prompt answers its default value); then report what the page did, like an action.",
)


@arguments
class SetDialogPolicyArgs(SessionArgs):
    """set_dialog_policy's arguments."""

    policy: DialogPolicy = param("policy", "string", "", required=True, enum=DIALOG_POLICIES)


SET_DIALOG_POLICY = session_tool(
    "set_dialog_policy", SetDialogPolicyArgs,
    title="Set dialog policy", capability="action", hints=CHANGES,
    summary="Answer dialogs at once (accept, dismiss), leave them to handle_dialog (ask) or a person (ask-human).",
    description="How the session answers JavaScript dialogs from now on: ask (default: the dialog stays open, the "
        "call that met it reports it, handle_dialog answers), accept or dismiss (answered at once, the one open now "
        "too, and listed in the next result as dialogs: [...]), or ask-human (a person answers through the operator "
        "channel, as await_human; without an answer in time it is dismissed, and without the channel it is "
        "refused: a page in a dialog blocks the DevTools world too). Whatever the "
        "policy, navigate leaves a page by answering its dialogs, and close_tab closes it with them.",
)


@arguments
class FillFormArgs(SessionArgs):
    """fill_form's arguments."""

    fields: list[FormField] = arg(_FIELDS)


def _check_fields(args: JsonArgs) -> None:
    for i, field in enumerate(args["fields"]):
        given = [key for key in ("ref", "selector") if key in field]
        if len(given) != 1:
            raise ToolError("bad-arg", f"fields[{i}] takes exactly one of ref or selector", field=f"fields[{i}]")
        value = field["value"]
        if isinstance(value, list) and not all(isinstance(item, str) for item in value):
            raise ToolError("bad-arg", f"fields[{i}].value: a list holds option values or labels (strings)",
                            field=f"fields[{i}].value")


FILL_FORM = session_tool(
    "fill_form", FillFormArgs,
    title="Fill form", capability="action", hints=ACTS,
    summary="Fill several fields (text, checkboxes, switches, radios, selects) in one call.",
    description="Fill several fields in one call (text fields, checkboxes, switches, radios, selects), then settle "
        "once: fields: [{ref or selector, value}], in order. value is a string for text fields, true/false for "
        "checkboxes, switches and radios, an option's value or label (or a list of them) for a <select>.",
    rules=(Check(_check_fields, "each of `fields` has exactly one of `ref` or `selector`"),),
)


@arguments
class ChooseOptionArgs(SessionArgs):
    """choose_option's arguments."""

    ref: str | None = arg(REF)
    selector: str | None = arg(SELECTOR)
    option: str = param("option", "string",
                        "The option's accessible name.",
                        required=True, max_length=500)
    exact: bool = param("exact", "boolean", "Match the name exactly.", default=False)
    timeout_ms: int = arg(TIMEOUT_MS)


CHOOSE_OPTION = session_tool(
    "choose_option", ChooseOptionArgs,
    title="Choose option", capability="action", hints=ACTS,
    summary="Choose an option by name from any dropdown, listbox, menu or combobox (a <select> too).",
    description="Choose an option by its name from a dropdown, listbox, menu or combobox (a <select> too): opens it, "
        "finds the option (in the popup it controls, or on the page; typed into an editable combobox when none "
        "shows), clicks it and checks the choice took. option is matched against the options' accessible names: "
        "exactly, then ignoring case, then as a part of a name; with exact, only exactly. timeoutMs bounds the wait "
        "for the option to show.",
    rules=(ONE_ELEMENT,),
)
