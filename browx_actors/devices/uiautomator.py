"""``uiautomator dump`` output -> a :class:`NativeNode` tree.

The dump is one line of XML, ``<hierarchy rotation="0"><node .../></hierarchy>``, each
``node`` with the attributes AOSP's dumper writes (``index text resource-id class package
content-desc checkable checked clickable enabled focusable focused scrollable
long-clickable password selected bounds``, sometimes ``NAF`` first and ``hint`` on newer
releases). Invisible views are never dumped, but a node can be dumped with no area: a
WebView's page reports its hidden elements (a closed drawer, a closed sheet) at
``[0,0][0,0]``, and some apps keep a collapsed label so. Such a node is not visible: there
is nothing of it to see or to tap. Around the XML the command prints status
text: ``exec-out uiautomator dump /dev/tty`` ends with ``UI hierchary dumped to:
/dev/tty`` (sic) and some builds print a line before ``<?xml``, so the XML is cut out of
whatever surrounds it. A dump is real XML, with entities in texts: the plain dump AOSP
writes is read by :mod:`.uiautomator_scan`'s pattern, which accounts for every byte or
declines, and everything else by expat, so both give one tree.

The tree: the ``hierarchy`` element is the root (role ``generic``, tag ``hierarchy``) and
each window a child, so a path is always root-relative child positions. A node's raw
class is kept on ``tag``; ``role`` comes from :data:`CLASS_ROLES` by the class's simple
name (``android.widget.Button`` -> ``Button``; the part after ``$`` for nested classes),
then from :data:`SUFFIX_ROLES` (so ``AppCompatButton`` and React Native's ``ReactTextView``
map as their base classes do), else ``generic``. A checkable plain view is a checkbox. A
plain ``View`` or ``ViewGroup`` that is clickable and has a content description is a
button: that is how React Native's ``Pressable`` / ``Touchable*`` and Compose's clickable
boxes report one (the class says nothing; the accessibility label is the button's name).
``content-desc`` is the name, ``text`` the text; an editable field's text is also its
value (Android reports the hint as the text of an empty field, which is the iOS rule too:
a placeholder rides on the value when there is none). A password field keeps neither its text nor what it holds:
its value is its hint while empty, else ``********``. ``NAF`` (not accessibility
friendly) marks nodes without text or label; NativeNode has no field for it and it adds
nothing the empty name does not say.

Test ids: ``resource-id`` is kept exactly as reported. React Native (0.65+) reports a
``testID`` raw (``checkout-submit``) and native views report ``pkg:id/name``; a testID
selector for ``name`` matches both, by the rule in
:func:`browx_actors.sessions.native.selectors.matches_test_id`, so ``~submit`` finds
``com.example.shop:id/submit`` without the engine rewriting ids.

When the window never goes idle (an animation, an indeterminate spinner: a React Native
splash screen does exactly this) the dump prints ``ERROR: could not get idle state.`` or
``ERROR: null root node returned by UiTestAutomationBridge.``, sometimes with exit code 0,
so the text is what is checked: both raise ``native-hierarchy-not-idle``.
"""

from __future__ import annotations

from collections.abc import Callable
from xml.parsers import expat

from browx_actors.devices.nodes import MAX_DEPTH, SECRET_MASK, NativeNode, Rect, too_deep
from browx_actors.devices.uiautomator_scan import FLAG_ATTRIBUTES, scan_dump
from browx_actors.errors import ToolError

__all__ = ["CLASS_ROLES", "IDLE_FAILURES", "SUFFIX_ROLES", "DumpParser", "parse_bounds", "parse_dump",
           "parse_with_expat", "role_of", "scan_plain_dump"]


#: What ``uiautomator dump`` prints when the window never goes idle.
IDLE_FAILURES = (
    "ERROR: could not get idle state.",
    "ERROR: null root node returned by UiTestAutomationBridge.",
)

#: Simple class name -> role.
CLASS_ROLES: dict[str, str] = {
    "Button": "button", "ImageButton": "button", "FloatingActionButton": "button",
    "ExtendedFloatingActionButton": "button", "ReactButton": "button",
    "EditText": "textbox", "AutoCompleteTextView": "textbox", "MultiAutoCompleteTextView": "textbox",
    "TextInputEditText": "textbox", "SearchView": "searchbox", "SearchAutoComplete": "searchbox",
    "TextView": "text", "CheckedTextView": "checkbox",
    "ImageView": "image", "ReactImageView": "image",
    "CheckBox": "checkbox",
    "Switch": "switch", "SwitchCompat": "switch", "SwitchMaterial": "switch", "ToggleButton": "switch",
    "ReactSwitch": "switch",
    "RadioButton": "radio", "RadioGroup": "radiogroup",
    "ScrollView": "scrollview", "HorizontalScrollView": "scrollview", "NestedScrollView": "scrollview",
    "ReactScrollView": "scrollview", "ReactHorizontalScrollView": "scrollview",
    "RecyclerView": "list", "ListView": "list", "GridView": "list", "ExpandableListView": "list",
    "ProgressBar": "progressbar", "ContentLoadingProgressBar": "progressbar",
    "SeekBar": "slider", "RatingBar": "slider", "Slider": "slider",
    "Spinner": "combobox",
    "WebView": "webview", "ReactWebView": "webview", "RNCWebView": "webview",
    "TabWidget": "tablist", "TabLayout": "tablist", "TabView": "tab",
    "Toolbar": "toolbar", "ActionBar": "toolbar",
    "NumberPicker": "spinbutton",
}

#: Class name suffix -> role, tried in order after :data:`CLASS_ROLES` (subclasses).
SUFFIX_ROLES: tuple[tuple[str, str], ...] = (
    ("RadioButton", "radio"), ("ToggleButton", "switch"), ("CheckBox", "checkbox"), ("Switch", "switch"),
    ("Button", "button"), ("EditText", "textbox"), ("CompleteTextView", "textbox"),
    ("CheckedTextView", "checkbox"), ("TextView", "text"), ("ImageView", "image"),
    ("RecyclerView", "list"), ("ListView", "list"), ("ScrollView", "scrollview"),
    ("ProgressBar", "progressbar"), ("SeekBar", "slider"), ("Spinner", "combobox"), ("WebView", "webview"),
)

#: The classes that say nothing about a view's role (React Native's and Compose's views).
_PLAIN_VIEWS = frozenset({"android.view.View", "android.view.ViewGroup"})
_ROLE_CACHE: dict[str, str] = {}
#: Builds a node or a rect from all its fields in order, skipping the named tuples'
#: argument handling (the parser always gives every field).
_NEW = tuple.__new__


def role_of(class_name: str) -> str:
    """The platform-neutral role of an Android view class."""
    role = _ROLE_CACHE.get(class_name)
    if role is None:
        simple = class_name.rpartition(".")[2].rpartition("$")[2]
        role = CLASS_ROLES.get(simple)
        if role is None:
            role = next((r for suffix, r in SUFFIX_ROLES if simple.endswith(suffix)), "generic")
        _ROLE_CACHE[class_name] = role
    return role


def parse_bounds(text: str) -> Rect | None:
    """``[l,t][r,b]`` -> Rect; None when missing or malformed."""
    # Split, not a pattern: it runs for every node of every dump.
    if text[:1] != "[" or text[-1:] != "]":
        return None
    try:
        left, top, right, bottom = text[1:-1].replace("][", ",").split(",")
        x, y = int(left), int(top)
        return _NEW(Rect, (x, y, int(right) - x, int(bottom) - y))
    except ValueError:
        return None


def _fail_if_not_idle(output: bytes) -> None:
    for failure in IDLE_FAILURES:
        if failure.encode() in output:
            raise ToolError(
                "native-hierarchy-not-idle",
                "uiautomator dump could not get an idle window: an animation or an indeterminate progress "
                "spinner (a React Native splash screen, say) keeps it busy, and the dump gives up after about "
                "10 s. Wait for the screen to settle and retry; this is a UiAutomator limitation, not a "
                "browx timeout.",
                detail=failure,
            )


def _cut_xml(output: bytes) -> bytes:
    start = output.find(b"<?xml")
    if start < 0:
        start = output.find(b"<hierarchy")
    if start < 0:
        shown = output.decode("utf-8", "replace").strip()[:200] or "(nothing)"
        raise ToolError("unavailable", f"uiautomator dump printed no hierarchy: {shown}", component="uiautomator")
    end = output.rfind(b"</hierarchy>")
    if end < 0:
        # An empty hierarchy is self-closing; anything else without its end tag is cut short.
        return output[start:]
    return output[start:end + len(b"</hierarchy>")]


def _tree_builder() -> tuple[Callable[[str, dict[str, str]], None], Callable[[str], None], list[NativeNode]]:
    """Expat callbacks that build the tree bottom-up (frozen nodes need their children
    first), and the list the root lands in. Closures over locals, not methods: they run
    twice per node of every dump."""
    # One frame per open element: its attributes, its path and its finished children.
    stack: list[tuple[dict[str, str], tuple[int, ...], list[NativeNode]]] = []
    done: list[NativeNode] = []
    push, pop = stack.append, stack.pop

    def start(tag: str, attributes: dict[str, str]) -> None:
        if stack:
            if len(stack) > MAX_DEPTH:  # this node's path would be one longer than the limit
                raise too_deep("uiautomator dump")
            _, parent_path, siblings = stack[-1]
            # Siblings are appended on their end tags, which all came before this start tag.
            push((attributes, (*parent_path, len(siblings)), []))
        else:
            push((attributes, (), []))

    def end(tag: str) -> None:
        attributes, path, children = pop()
        node = _root(tuple(children), path) if tag == "hierarchy" else _from_attributes(attributes, path,
                                                                                        tuple(children))
        (stack[-1][2] if stack else done).append(node)

    return start, end, done


def _root(children: tuple[NativeNode, ...], path: tuple[int, ...] = ()) -> NativeNode:
    """The ``hierarchy`` element: the root, as large as all its windows together. A dump
    of every window (``--windows``, a multi-window screen) may open with the status bar,
    whose bounds are no screen: taken alone, every tap below it would be off screen."""
    windows = [child.bounds for child in children if child.bounds is not None and not child.bounds.empty]
    bounds = None
    if windows:
        left, top = min(w.x for w in windows), min(w.y for w in windows)
        right, bottom = max(w.x + w.width for w in windows), max(w.y + w.height for w in windows)
        bounds = Rect(left, top, right - left, bottom - top)
    return NativeNode("generic", "hierarchy", bounds=bounds, path=path, children=children)


def _from_attributes(a: dict[str, str], path: tuple[int, ...], children: tuple[NativeNode, ...]) -> NativeNode:
    get = a.get
    # Absent flags read false, except enabled, which a view is unless it says otherwise.
    flags = tuple(get(name) != "false" if name == "enabled" else get(name) == "true" for name in FLAG_ATTRIBUTES)
    return _node(get("class", ""), get("text", ""), get("resource-id", ""), get("content-desc", ""),
                 get("hint", ""), parse_bounds(get("bounds", "")), flags, path, children)


def _node(class_name: str, text: str, resource_id: str, desc: str, hint: str, bounds: Rect | None,
          flags: tuple[bool, ...], path: tuple[int, ...], children: tuple[NativeNode, ...]) -> NativeNode:
    """One node from its attributes, as either reader gives them (see :data:`NodeBuilder`)."""
    checkable, checked, clickable, enabled, focusable, focused, scrollable, long_clickable, password, selected = flags
    role = _ROLE_CACHE.get(class_name) or role_of(class_name)
    if checkable and (role == "generic" or role == "text"):
        role = "checkbox"
    elif clickable and desc and class_name in _PLAIN_VIEWS:
        role = "button"
    editable = role == "textbox" or role == "searchbox"
    value = text if editable else None
    visible = bounds is None or not bounds.empty
    if password:
        value, text = _secret_value(text, hint), ""
    # In NativeNode's field order (a test pins it).
    return _NEW(NativeNode, (
        role, class_name, desc or (hint if editable else ""), text, value, resource_id or None, bounds, enabled,
        visible, focusable, focused, clickable, long_clickable, scrollable, checkable, checked, selected, password,
        path, children,
    ))


def _secret_value(text: str, hint: str) -> str | None:
    """A password field's value: its hint while it shows it, else the mask (what it holds,
    bullets or, with "speak passwords" on, the characters, is never kept)."""
    if not text:
        return hint or None
    return hint if text == hint else SECRET_MASK


def parse_dump(output: str | bytes) -> NativeNode:
    """The tree of a ``uiautomator dump`` (status text around the XML is ignored).

    Raises ``native-hierarchy-not-idle`` for the idle failures, ``unavailable``
    (component ``uiautomator``) for output that holds no hierarchy or broken XML, and
    ``too-large`` for a hierarchy deeper than :data:`~.nodes.MAX_DEPTH` (either reader
    stops at the first node past it).
    """
    xml = _xml_of(output)
    windows = _scan(xml)
    return _root(tuple(windows)) if windows is not None else _expat_tree(xml)


def scan_plain_dump(output: str | bytes) -> NativeNode | None:
    """The fast reader alone (:mod:`.uiautomator_scan`): the tree of a plain AOSP dump,
    None for anything it does not account for whole. What :func:`parse_dump` tries first."""
    windows = _scan(_xml_of(output))
    return None if windows is None else _root(tuple(windows))


def parse_with_expat(output: str | bytes) -> NativeNode:
    """:func:`parse_dump` with expat alone: what the fast reader is held to, tree for tree."""
    return _expat_tree(_xml_of(output))


def _xml_of(output: str | bytes) -> bytes:
    data = output.encode() if isinstance(output, str) else output
    _fail_if_not_idle(data)
    return _cut_xml(data)


def _scan(xml: bytes) -> list[NativeNode] | None:
    try:
        text = xml.decode()
    except UnicodeDecodeError:
        return None  # expat names the broken byte
    return scan_dump(text, _node)


def _expat_tree(xml: bytes) -> NativeNode:
    start, end, done = _tree_builder()
    parser = expat.ParserCreate()
    parser.StartElementHandler = start
    parser.EndElementHandler = end
    try:
        parser.Parse(xml, True)
    except expat.ExpatError as err:
        raise ToolError("unavailable", f"uiautomator dump printed broken XML ({err})",
                        component="uiautomator") from err
    except (LookupError, ValueError) as err:
        # The declaration names an encoding Python does not know (LookupError) or expat
        # cannot read (ValueError: a multi-byte one): as broken as a bad tag, to XML.
        raise ToolError("unavailable", f"uiautomator dump declared an encoding it cannot be read in ({err})",
                        component="uiautomator") from err
    if not done:  # expat raises on an empty document; this is belt and braces
        raise ToolError("unavailable", "uiautomator dump printed no hierarchy", component="uiautomator")
    return done[0]


class DumpParser:
    """:func:`parse_dump` that remembers its last answer: a dump byte for byte equal to the
    previous one (a screen that did not change between a snapshot and the action after
    it) is the same tree, so it is not parsed again. The dump itself is always read
    afresh; only the parse of identical bytes is reused. One per session."""

    def __init__(self) -> None:
        self._last: tuple[bytes, NativeNode] | None = None
        self.parsed = 0
        self.reused = 0

    def parse(self, output: bytes) -> NativeNode:
        last = self._last
        if last is not None and last[0] == output:
            self.reused += 1
            return last[1]
        root = parse_dump(output)
        self._last = (output, root)
        self.parsed += 1
        return root
