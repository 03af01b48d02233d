"""The fast dump reader is held to expat, tree for tree: on every recorded dump it reads
them itself, and on anything else it either gives expat's tree or declines."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from browx_actors.devices.nodes import NativeNode
from browx_actors.devices.uiautomator import parse_dump, parse_with_expat, scan_plain_dump
from browx_actors.errors import ToolError
from fakes.adb_shop import SHOP, View, emulator, list_screen, render
from fakes.testdata import PIXEL_LAUNCHER_DUMP
from uiautomator_support import dump, dump_node

PIXEL = PIXEL_LAUNCHER_DUMP.read_text()


def _recorded() -> dict[str, str]:
    """The real Pixel dump, every screen of the scripted shop, and the 2,000-node list."""
    device = emulator()
    dumps = {"pixel": PIXEL, "list": list_screen(399)}
    for name, screen in device.screens.items():
        if not screen.busy:
            device.stack = [name]
            dumps[name] = device.dump()
    device.stack, device.fields["email"] = ["catalog"], "a@b.c"
    device.toggles.add("promo")
    dumps["catalog, promo shown"] = device.dump()
    device.stack = ["login"]
    dumps["login, typed"] = device.dump()
    return dumps


def _outcome(read: object, output: str) -> NativeNode | str:
    """The tree, or the code it refused with."""
    try:
        return read(output)  # type: ignore[operator]
    except ToolError as err:
        return err.code


@pytest.mark.parametrize(("name", "recorded"), sorted(_recorded().items()))
def test_every_recorded_dump_is_read_by_the_scanner_and_equals_expats_tree(name: str, recorded: str) -> None:
    scanned = scan_plain_dump(recorded)
    assert scanned is not None, f"the scanner declined the {name} dump"
    assert scanned == parse_with_expat(recorded) == parse_dump(recorded)
    assert len(list(scanned.walk())) > 1


@pytest.mark.parametrize("text", [
    dump(dump_node(text="a &amp; b &lt;c&gt; &quot;d&quot; &apos;e&apos; &#233; &#x1F600; &#10;")),
    dump('<node NAF="true" ' + dump_node(text="x")[6:]),
    dump(dump_node(hint="Email &amp; more")),
    dump(dump_node(text="x", **{"drawing-order": "3", "hint": "h"})),
    dump(dump_node(), dump_node(index="1", bounds="[-5,-5][5,5]")),
    dump(dump_node(text="\u00e9\u4e2d\U0001f600")),
    '<?xml version="1.0" encoding="utf-8"?>\n<hierarchy rotation="1">\n  ' + dump_node() + "\n</hierarchy>\n",
])
def test_the_scanner_reads_what_aosp_dumpers_write(text: str) -> None:
    scanned = scan_plain_dump(text)
    assert scanned is not None
    assert scanned == parse_with_expat(text)


@pytest.mark.parametrize(("text", "why"), [
    (dump(dump_node(text="a\tb")), "a raw tab (expat makes it a space)"),
    (dump(dump_node(text="x", bounds="[0,0][10,10]", index="0").replace('index="0" text="x"', 'text="x" index="0"')),
     "another attribute order"),
    (dump("<!-- a comment -->", dump_node()), "a comment"),
    (dump(dump_node(bounds="[0,0][10]")), "malformed bounds"),
    (dump(dump_node(), "<node"), "a cut node"),
    (dump(dump_node(text="a &nbsp; b")), "an entity XML does not define"),
    (dump(dump_node(text="a & b")), "a bare ampersand"),
    (dump(dump_node(text="&#0;")), "a reference to a character XML forbids"),
    (dump(dump_node(hint="a", **{"hint2": "b"}).replace("hint2", "hint")), "a repeated attribute"),
    (dump(dump_node(package="p&bad;")), "a bad entity in the package"),
    (dump(dump_node(), "stray text", dump_node(index="1")), "text between nodes (expat ignores it)"),
    (dump(dump_node()).replace("UTF-8", "ISO-8859-1"), "another encoding"),
    (dump(dump_node()).replace(" />", ">"), "a node never closed"),
    (dump(dump_node(), "</node>"), "an end tag with nothing open"),
])
def test_the_scanner_declines_what_it_does_not_account_for_and_expat_decides(text: str, why: str) -> None:
    assert scan_plain_dump(text) is None, why
    assert _outcome(parse_dump, text) == _outcome(parse_with_expat, text)


def test_broken_utf8_is_left_to_expat_which_names_it() -> None:
    broken = dump(dump_node(text="caf\u00e9")).encode().replace("\u00e9".encode(), b"\xe9")
    assert scan_plain_dump(broken) is None
    with pytest.raises(ToolError) as refused:
        parse_dump(broken)
    assert refused.value.code == "unavailable" and "broken XML" in refused.value.message


_TEXT = st.text(st.characters(exclude_categories=("Cs",)), max_size=12)


def _views(depth: int = 0) -> st.SearchStrategy[View]:
    children = st.lists(st.deferred(lambda: _views(depth + 1)), max_size=3) if depth < 3 else st.just([])
    return st.builds(
        View,
        cls=st.sampled_from(["android.widget.Button", "android.widget.EditText", "android.widget.TextView",
                             "android.view.View", "com.example.Custom$Inner"]),
        bounds=st.tuples(*[st.integers(-50, 2000)] * 4),
        rid=_TEXT, text=_TEXT, desc=_TEXT, hint=_TEXT,
        clickable=st.booleans(), checkable=st.booleans(), checked=st.booleans(), scrollable=st.booleans(),
        password=st.booleans(), focused=st.booleans(), children=children,
    )


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_views())
def test_generated_dumps_give_expats_tree(root: View) -> None:
    rendered = render(root, SHOP)
    assert _outcome(parse_dump, rendered) == _outcome(parse_with_expat, rendered)
    if all(ch >= " " or ch in "\t\n\r" for ch in rendered):  # nothing expat refuses outright
        assert scan_plain_dump(rendered) in (None, parse_with_expat(rendered))


@pytest.mark.parametrize("encoding", ["xUTF-8", "shift_jis", "utf-16", "big5"])
def test_a_dump_declaring_an_encoding_it_is_not_in_is_refused_by_both_readers(encoding: str) -> None:
    """Found by the mutation test below: an unknown encoding made expat raise
    LookupError (a multi-byte one, ValueError), which left the call an internal error."""
    declared = PIXEL.replace("encoding='UTF-8'", f"encoding='{encoding}'", 1)
    assert declared != PIXEL
    assert _outcome(parse_dump, declared) == _outcome(parse_with_expat, declared) == "unavailable"


@settings(max_examples=500, deadline=None)
@given(st.lists(st.tuples(st.integers(0, len(PIXEL)), st.integers(0, 3), st.sampled_from(
    ['<', '>', '"', "&", "/", " ", "=", "\t", "\n", ";", "#", "x", "0", "amp;", "</node>", "<node ", "-", "[", "]"])),
    min_size=1, max_size=4))
def test_a_mutated_pixel_dump_gives_expats_answer_either_way(edits: list[tuple[int, int, str]]) -> None:
    """Characters cut from and inserted into a real dump: whatever results, the fast path
    gives expat's tree or expat's refusal, never a third answer."""
    mutated = PIXEL
    for at, cut, insert in edits:
        at = min(at, len(mutated))
        mutated = mutated[:at] + insert + mutated[at + cut:]
    assert _outcome(parse_dump, mutated) == _outcome(parse_with_expat, mutated)
