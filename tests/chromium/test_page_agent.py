"""The page agent (``sessions/chromium/agent/``) in real headless Chromium.

One browser per module; each test gets a fresh context whose init script is the agent,
so pages loaded from the loopback server have it before their own scripts run. Pages
built with ``set_content`` get it through a plain evaluate, the way the server installs
it on an already-loaded page.
"""

from __future__ import annotations

import functools
import http.server
import json
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, sync_playwright
from playwright.sync_api import Error as PlaywrightError

from browx_actors.sessions.chromium.agent.pageagent import (
    AGENT_KEY,
    AGENT_METHODS,
    AGENT_SOURCE,
    agent_error,
    call_expression,
    call_function,
    changes_args,
    ensure_call_expression,
    find_args,
    normalize_ref,
    snapshot_args,
    text_search_args,
)

pytestmark = pytest.mark.chromium

PAGES = Path(__file__).parents[1] / "pages"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
A = f"window[{json.dumps(AGENT_KEY)}]"


# -- fixtures -------------------------------------------------------------------------


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:  # the stdlib's signature
        pass


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    handler = functools.partial(_QuietHandler, directory=str(PAGES))
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}"
    finally:
        httpd.shutdown()
        httpd.server_close()


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS)
        try:
            yield browser
        finally:
            browser.close()


@pytest.fixture
def page(browser: Browser) -> Iterator[Page]:
    context = browser.new_context(viewport={"width": 1000, "height": 800})
    context.add_init_script(script=AGENT_SOURCE)
    page = context.new_page()
    try:
        yield page
    finally:
        context.close()


def content(page: Page, html: str) -> Page:
    """Load ``html`` and install the agent the way the server does on a loaded page."""
    page.set_content(html)
    page.evaluate(AGENT_SOURCE)
    return page


def agent(page: Page, method: str, arg: Any = None) -> Any:
    return page.evaluate(call_function(method), arg)


def snap(page: Page, **opts: Any) -> str:
    return agent(page, "snapshot", opts)["text"]


def agent_raises(page: Page, method: str, arg: Any) -> tuple[str, str]:
    with pytest.raises(PlaywrightError) as info:
        agent(page, method, arg)
    parsed = agent_error(str(info.value))
    assert parsed is not None, str(info.value)
    return parsed


def links_page(count: int = 200) -> str:
    items = "\n".join(f'<li><a href="/items/{i}">Item {i}</a></li>' for i in range(1, count + 1))
    return f"""<!doctype html><html><head><title>Catalog</title></head><body>
<header><nav aria-label="Main">
  <a href="/">Home</a> <a href="/about">About</a> <a href="/cart">Cart</a>
</nav></header>
<main>
<h1>Catalog</h1>
<form aria-label="Filter" onsubmit="return false">
  <label for="q">Search</label><input id="q" type="search" placeholder="Search items">
  <label>Sort <select id="sort"><option>Newest</option><option>Price</option></select></label>
  <label><input type="checkbox" id="stock"> In stock only</label>
  <label>Max price <input type="number" value="100"></label>
  <textarea aria-label="Notes"></textarea>
  <button type="submit">Apply</button>
</form>
<ul class="items">
{items}
</ul>
</main>
<footer><p>&copy; Example shop</p></footer>
</body></html>"""


# -- snapshot -------------------------------------------------------------------------

FORM_SNAPSHOT = """\
heading "Sign up" [ref=e1] [level=1]
form "Signup" [ref=e2]
  textbox "Email" [ref=e3] [required] [focused] value="a@b.c"
  textbox "Nickname" [ref=e4]
  textbox "Password" [ref=e5] value="********"
  text: Age
  spinbutton "Age" [ref=e6] value="42"
  slider "Volume" [ref=e7] value="3"
  checkbox "Accept terms" [ref=e8] [checked]
  checkbox "Some items" [ref=e9] [checked=mixed]
  group "Plan" [ref=e10]
    radio "Free" [ref=e11] [checked]
    radio "Pro" [ref=e12]
  combobox "Country" [ref=e13] value="Japan"
    option "France" [ref=e14]
    option "Japan" [ref=e15] [selected]
  textbox "Bio" [ref=e16] [readonly] value="Hello there"
  button "Bold" [ref=e17] [pressed]
  button "More" [ref=e18] [expanded=false]
  button "Create account" [ref=e19] [disabled]
heading "Items" [ref=e20] [level=2]
list [ref=e21]
  link "Item 1" [ref=e22] url=/items/1
  listitem [ref=e23]
    link "Item 2" [ref=e24] url=/items/2
    text: new
  listitem [ref=e25]: Plain entry
paragraph: Some visible text
generic [ref=e26]: Clickable div
img "Logo" [ref=e27]
table "Prices" [ref=e28]
  row [ref=e29]
    columnheader "Plan" [ref=e30]
    columnheader "Cost" [ref=e31]
  row [ref=e32]
    cell "Free" [ref=e33]
    cell "$0" [ref=e34]
group [ref=e35]
  button "Advanced" [ref=e36] [expanded=false]"""


def test_form_snapshot_is_exact(page: Page, server: str) -> None:
    page.goto(f"{server}/agent_form.html")
    result = agent(page, "snapshot", {})
    assert result["text"] == FORM_SNAPSHOT
    assert result["nodeCount"] == len(FORM_SNAPSHOT.splitlines())
    assert result["refCount"] == 36
    assert result["truncated"] is False
    assert result["title"] == "Sign up"
    assert result["url"] == f"{server}/agent_form.html"


def test_refs_are_stable_and_removed_nodes_go_stale(page: Page) -> None:
    content(page, '<button id="a">Alpha</button><div id="box"><button id="b">Beta</button></div>')
    first = snap(page)
    assert first == 'button "Alpha" [ref=e1]\nbutton "Beta" [ref=e2]'
    assert snap(page) == first

    # Replace Beta with a new node of the same look: a new element, a new ref.
    page.evaluate("""() => {
        document.getElementById('b').remove();
        const fresh = document.createElement('button');
        fresh.textContent = 'Beta';
        document.getElementById('box').append(fresh);
    }""")
    assert snap(page) == 'button "Alpha" [ref=e1]\nbutton "Beta" [ref=e3]'
    assert page.evaluate(f"() => {A}.resolve('e2')") is None
    assert page.evaluate(f"() => {A}.resolve('e1') === document.getElementById('a')") is True
    assert page.evaluate(f"() => {A}.resolve('e99')") is None
    # A node moved elsewhere is the same element: it keeps its ref.
    page.evaluate("() => document.body.prepend(document.getElementById('box'))")
    assert snap(page) == 'button "Beta" [ref=e3]\nbutton "Alpha" [ref=e1]'


def test_detached_element_resolves_to_null_until_reattached(page: Page) -> None:
    content(page, '<button id="a">Alpha</button>')
    snap(page)
    page.evaluate("() => { window.kept = document.getElementById('a'); window.kept.remove(); }")
    assert page.evaluate(f"() => {A}.resolve('e1')") is None
    page.evaluate("() => document.body.append(window.kept)")
    assert page.evaluate(f"() => {A}.resolve('e1') === window.kept") is True


def test_scope_by_ref_and_by_selector(page: Page, server: str) -> None:
    page.goto(f"{server}/agent_form.html")
    snap(page)
    by_ref = snap(page, scope="e10")
    assert by_ref == 'group "Plan" [ref=e10]\n  radio "Free" [ref=e11] [checked]\n  radio "Pro" [ref=e12]'
    assert snap(page, scope="[ref=e10]") == by_ref
    assert snap(page, scope="fieldset") == by_ref
    assert snap(page, scope="table tr:last-child") == (
        'row [ref=e32]\n  cell "Free" [ref=e33]\n  cell "$0" [ref=e34]'
    )


def test_scope_errors(page: Page) -> None:
    content(page, "<button>One</button>")
    code, detail = agent_raises(page, "snapshot", {"scope": "e42"})
    assert code == "unknown-ref" and "e42" in detail  # never issued on this page
    code, detail = agent_raises(page, "snapshot", {"scope": "#nope"})
    assert code == "not-found" and "#nope" in detail
    code, _ = agent_raises(page, "snapshot", {"scope": "div[[["})
    assert code == "bad-selector"
    code, _ = agent_raises(page, "snapshot", {"maxNodes": 0})
    assert code == "bad-arg"


def test_max_nodes_truncates(page: Page, server: str) -> None:
    page.goto(f"{server}/agent_form.html")
    result = agent(page, "snapshot", {"maxNodes": 3})
    assert result["text"] == (
        'heading "Sign up" [ref=e1] [level=1]\n'
        'form "Signup" [ref=e2]\n'
        '  textbox "Email" [ref=e3] [required] [focused] value="a@b.c"'
    )
    assert result["truncated"] is True
    assert result["nodeCount"] == 3
    assert result["refCount"] == 3
    # Only printed lines mint refs: the next snapshot continues at e4.
    assert agent(page, "snapshot", {})["text"] == FORM_SNAPSHOT


def test_omit_drops_roles_and_lifts_children(page: Page, server: str) -> None:
    page.goto(f"{server}/agent_form.html")
    text = snap(page, omit=["form", "group", "text", "option"], scope="form")
    assert text == """\
textbox "Email" [ref=e1] [required] [focused] value="a@b.c"
textbox "Nickname" [ref=e2]
textbox "Password" [ref=e3] value="********"
spinbutton "Age" [ref=e4] value="42"
slider "Volume" [ref=e5] value="3"
checkbox "Accept terms" [ref=e6] [checked]
checkbox "Some items" [ref=e7] [checked=mixed]
radio "Free" [ref=e8] [checked]
radio "Pro" [ref=e9]
combobox "Country" [ref=e10] value="Japan"
textbox "Bio" [ref=e11] [readonly] value="Hello there"
button "Bold" [ref=e12] [pressed]
button "More" [ref=e13] [expanded=false]
button "Create account" [ref=e14] [disabled]"""


def test_two_hundred_links_fit_and_all_controls_have_refs(page: Page) -> None:
    content(page, links_page(200))
    result = agent(page, "snapshot", {})
    text = result["text"]
    assert len(text) <= 8000, len(text)
    assert result["truncated"] is False
    lines = text.splitlines()
    assert sum(1 for line in lines if line.lstrip().startswith("link ")) == 203
    assert 'link "Item 200" [ref=' in text
    # Every control on the page has a ref, and that ref is in the text: refFor()
    # returns the existing ref (a missing one would be minted fresh and not be found).
    missing = page.evaluate(f"""(text) => {{
        const sel = 'a[href], button, input:not([type=hidden]), select, textarea';
        const controls = [...document.querySelectorAll(sel)];
        return {{
            total: controls.length,
            missing: controls.filter(el => !text.includes('[ref=' + {A}.refFor(el) + ']'))
                             .map(el => el.outerHTML),
        }};
    }}""", text)
    assert missing == {"total": 209, "missing": []}  # 203 links, 6 form controls
    assert result["refCount"] == len([line for line in lines if "[ref=" in line])
    # With that many links, urls are left out unless asked for.
    assert "url=" not in text
    with_urls = snap(page, urls=True)
    ref = page.evaluate(f"() => {A}.refFor(document.querySelector('a[href=\"/items/7\"]'))")
    assert f'    link "Item 7" [ref={ref}] url=/items/7\n' in with_urls


def test_few_links_show_short_urls_only(page: Page) -> None:
    long_href = "/" + "x" * 70
    content(page, f'<a href="/short">Short</a><a href="{long_href}">Long</a>'
                  '<a href="javascript:void 0">Script</a>')
    assert snap(page) == 'link "Short" [ref=e1] url=/short\nlink "Long" [ref=e2]\nlink "Script" [ref=e3]'
    assert snap(page, urls=False) == 'link "Short" [ref=e1]\nlink "Long" [ref=e2]\nlink "Script" [ref=e3]'


def test_hidden_skipped_and_shadow_dom_included(page: Page, server: str) -> None:
    page.goto(f"{server}/agent_hidden_shadow.html")
    assert snap(page) == """\
heading "Visible heading" [ref=e1] [level=1]
button "Visible again" [ref=e2]
button "Transparent" [ref=e3]
group [ref=e4]
  button "More" [ref=e5] [expanded=false]
button "In display contents" [ref=e6]
region "Card" [ref=e7]
  heading "Shadow title" [ref=e8] [level=2]
  text: Slotted text
  button "Shadow button" [ref=e9]"""
    # Refs inside the shadow root resolve to the shadow elements.
    assert page.evaluate(f"() => {A}.resolve('e9').getRootNode() instanceof ShadowRoot") is True


def test_include_hidden_shows_everything(page: Page, server: str) -> None:
    page.goto(f"{server}/agent_hidden_shadow.html")
    text = snap(page, includeHidden=True)
    for name in ("Display none", "Hidden attribute", "Aria hidden", "Invisible button",
                 "Inside closed details", "Shadow hidden"):
        assert f'button "{name}"' in text
    assert "text: Invisible text" in text


def test_text_and_names_are_compact(page: Page) -> None:
    long = "word " * 60
    content(page, f"""
        <p>Hello <b>world</b><br>second line</p>
        <button><svg aria-hidden="true"><path d="M0 0"/></svg><span>Icon</span> label</button>
        <a href="/x" aria-label="Labelled link">ignored content</a>
        <h2>{long}</h2>
        <div><div><span>deep</span> <i>inline</i></div><div>block two</div></div>
        <img src="data:," alt="">
        <section><p>unnamed section</p></section>
        <section aria-label="Named"><p>inside</p></section>
        <button title="Close">\u00d7</button>
    """)
    text = snap(page)
    heading = next(line for line in text.splitlines() if line.startswith("heading"))
    name = json.loads(heading[len("heading "):heading.index(" [ref=")])
    assert len(name) == 100 and name.endswith("\u2026")
    assert text.replace(heading, "HEADING") == """\
paragraph
  text: Hello world
  text: second line
button "Icon label" [ref=e1]
link "Labelled link" [ref=e2] url=/x
HEADING
text: deep inline
text: block two
paragraph: unnamed section
region "Named" [ref=e4]
  paragraph: inside
button "\u00d7" [ref=e5]"""


# -- find and hints -------------------------------------------------------------------

FIND_PAGE = """
<h1>Shop</h1>
<button data-testid="save-btn">Save</button>
<button id="cancel">Cancel</button>
<button>Save draft</button>
<button>Delete</button><button>Delete</button>
<a href="/docs"><span>Open <b>the</b> docs</span></a>
<div class="toast"><span>Saved successfully!</span></div>
<p>Hello <b>world</b>, hello again.</p>
<label>Remember me <input type="checkbox"></label>
<ul><li data-test="row-1">First row</li><li data-test-id="row-2">Second row</li></ul>
<button style="display:none">Save hidden</button>
<div id="panel"><button>Panel save</button></div>
"""


def hint_targets(page: Page, match: dict[str, Any]) -> None:
    """The hint selects exactly one element: the match or the element carrying its text."""
    locator = page.locator(match["selectorHint"])
    assert locator.count() == 1, match
    inside = locator.evaluate(f"(el, ref) => {A}.resolve(ref).contains(el)", match["ref"])
    assert inside, match


def test_find_by_role_and_name(page: Page) -> None:
    content(page, FIND_PAGE)
    result = agent(page, "find", {"role": "button"})
    assert result["count"] == 6  # the display:none one is not found
    assert [(m["name"], m["selectorHint"]) for m in result["matches"]] == [
        ("Save", '[data-testid="save-btn"]'),
        ("Cancel", "#cancel"),
        ("Save draft", 'role=button[name="Save draft"s]'),
        ("Delete", 'role=button[name="Delete"s] >> nth=0'),
        ("Delete", 'role=button[name="Delete"s] >> nth=1'),
        ("Panel save", 'role=button[name="Panel save"s]'),
    ]
    for match in result["matches"]:
        assert match["role"] == "button"
        hint_targets(page, match)

    names = [m["name"] for m in agent(page, "find", {"role": "button", "name": "save"})["matches"]]
    assert names == ["Save", "Save draft", "Panel save"]
    exact = agent(page, "find", {"role": "button", "name": "Save", "exact": True})
    assert [m["name"] for m in exact["matches"]] == ["Save"]
    assert agent(page, "find", {"role": "button", "name": "save", "exact": True})["count"] == 0
    limited = agent(page, "find", {"role": "button", "limit": 2})
    assert limited["count"] == 6 and len(limited["matches"]) == 2
    scoped = agent(page, "find", {"role": "button", "scope": "#panel"})
    assert [m["name"] for m in scoped["matches"]] == ["Panel save"]


def test_find_by_text_and_test_id(page: Page) -> None:
    content(page, FIND_PAGE)
    docs = agent(page, "find", {"text": "docs"})
    assert docs["count"] == 1
    assert docs["matches"][0]["role"] == "link" and docs["matches"][0]["name"] == "Open the docs"

    toast = agent(page, "find", {"text": "saved SUCCESSFULLY"})["matches"]
    assert [(m["role"], m["selectorHint"]) for m in toast] == [("generic", 'text="Saved successfully!"')]
    hint_targets(page, toast[0])

    para = agent(page, "find", {"text": "hello world"})["matches"]
    assert [(m["role"], m["selectorHint"]) for m in para] == [
        ("paragraph", 'internal:text="Hello world, hello again."s')]
    hint_targets(page, para[0])

    label = agent(page, "find", {"text": "Remember me"})["matches"]
    assert [(m["role"], m["name"]) for m in label] == [("checkbox", "Remember me")]

    for test_id, attr in (("row-1", "data-test"), ("row-2", "data-test-id")):
        rows = agent(page, "find", {"testId": test_id})["matches"]
        assert [(m["role"], m["selectorHint"]) for m in rows] == [("listitem", f'[{attr}="{test_id}"]')]
        hint_targets(page, rows[0])
    assert agent(page, "find", {"testId": "save-btn", "role": "link"})["count"] == 0

    code, _ = agent_raises(page, "find", {})
    assert code == "bad-arg"


def test_find_refs_match_snapshot_refs(page: Page) -> None:
    content(page, FIND_PAGE)
    text = snap(page)
    match = agent(page, "find", {"role": "button", "name": "Cancel"})["matches"][0]
    assert f'button "Cancel" [ref={match["ref"]}]' in text


# -- textSearch -----------------------------------------------------------------------


def test_text_search(page: Page) -> None:
    content(page, FIND_PAGE + "<p>" + "lorem " * 30 + "needle" + " ipsum" * 30 + "</p>")
    hello = agent(page, "textSearch", {"query": "hello"})
    assert hello["count"] == 2
    assert hello["matches"][0]["role"] == "paragraph"
    assert hello["matches"][0]["snippet"] == "Hello world, hello again."
    assert agent(page, "textSearch", {"query": "hello", "caseSensitive": True})["count"] == 1

    needle = agent(page, "textSearch", {"query": "needle"})["matches"][0]
    snippet = needle["snippet"]
    assert snippet.startswith("\u2026") and snippet.endswith("\u2026") and "needle" in snippet
    assert len(snippet) <= 2 + 40 + len("needle") + 40

    docs = agent(page, "textSearch", {"query": "the docs"})["matches"]
    assert [(m["role"]) for m in docs] == ["link"]
    resolved = page.evaluate(f"(ref) => {A}.resolve(ref).getAttribute('href')", docs[0]["ref"])
    assert resolved == "/docs"

    assert agent(page, "textSearch", {"query": "Save hidden"})["count"] == 0
    limited = agent(page, "textSearch", {"query": "e", "limit": 3})
    assert len(limited["matches"]) == 3 and limited["count"] > 3
    code, _ = agent_raises(page, "textSearch", {"query": "  "})
    assert code == "bad-arg"


# -- change tracking ------------------------------------------------------------------


def test_mark_and_changes(page: Page) -> None:
    content(page, """
        <button id="keep">Keep</button>
        <div id="gone"><button>Remove me</button><a href="/x">Gone link</a></div>
        <div id="later" hidden><button>Revealed</button></div>
        <div id="styled" style="display: none"><a href="/y">Styled link</a></div>
    """)
    snap(page)
    assert agent(page, "mark") == {"marked": True}
    page.evaluate("""() => {
        document.getElementById('gone').remove();
        const box = document.createElement('div');
        box.innerHTML = '<h2>Added</h2><p>plain text</p><input aria-label="New field"><span>x</span>';
        document.body.append(box);
        document.getElementById('later').hidden = false;
        document.getElementById('styled').style.display = 'block';
    }""")
    result = agent(page, "changes", {})
    assert result["truncated"] is False
    assert sorted((c["role"], c["name"]) for c in result["appeared"]) == [
        ("button", "Revealed"), ("heading", "Added"), ("link", "Styled link"), ("textbox", "New field")]
    assert result["removed"] == [
        {"ref": "e2", "role": "button", "name": "Remove me"},
        {"ref": "e3", "role": "link", "name": "Gone link"},
    ]
    # Appeared elements got refs that the next snapshot reuses.
    text = snap(page)
    for change in result["appeared"]:
        assert f'[ref={change["ref"]}]' in text

    # changes() reports everything since the mark; a new mark starts over.
    assert len(agent(page, "changes", {})["removed"]) == 2
    agent(page, "mark")
    assert agent(page, "changes", {}) == {"appeared": [], "removed": [], "truncated": False, "leaving": None}


def test_changes_say_where_a_departing_document_is_going(page: Page, server: str) -> None:
    page.goto(f"{server}/e2e_app.html")

    def leaving(script: str) -> Any:
        # One evaluate: the departure is read before the next document could commit.
        return page.evaluate(f"() => {{ {A}.mark(); {script}; return {A}.changes({{}}).leaving; }}")

    assert leaving("history.pushState(null, '', '#pushed')") is None  # same document
    assert leaving("location.hash = 'frag'") is None
    cancelled = "navigation.addEventListener('navigate', e => e.preventDefault(), {once: true})"
    assert leaving(f"{cancelled}; location.href = '/e2e_second.html'") is None
    routed = ("navigation.addEventListener('navigate', e => e.intercept("
              "{handler: () => new Promise(r => setTimeout(r, 100))}), {once: true})")
    assert leaving(f"{routed}; location.href = '/e2e_app.html?routed'") is None  # a router took it
    page.wait_for_function("() => navigation.transition === null")
    assert leaving("document.getElementById('docs-link').click()").endswith("/e2e_second.html")
    page.wait_for_url("**/e2e_second.html")
    assert leaving("0") is None  # the new document has left for nowhere


def test_aim_readies_a_target_the_way_actionability_checks_would(page: Page) -> None:
    content(page, """
        <button id="go">Go</button>
        <button id="off" disabled>Off</button>
        <button id="hidden" style="visibility: hidden">Hidden</button>
        <div style="position: relative"><button id="under">Under</button>
          <div style="position: absolute; inset: 0; background: white"></div></div>
        <button id="moving" style="transition: transform 5s; ">Moving</button>
        <div style="height: 3000px"></div>
        <button id="far">Far</button>
        <input id="name" value="old"><input id="ro" readonly value="x">
        <input id="when" type="date"><textarea id="notes">a
b</textarea><div id="rich" contenteditable="true">rich <b>text</b></div>
    """)
    aim = functools.partial(agent, page, "aim")
    ready = aim({"selector": "#go", "mode": "click"})
    assert ready["count"] == 1 and ready["target"]["name"] == "Go"
    x, y = ready["ready"]
    assert page.evaluate(f"() => document.elementFromPoint({x}, {y}).id") == "go"
    assert aim({"point": [x, y]}) == {"count": 0, "target": {"ref": ready["target"]["ref"], "role": "button",
                                                              "name": "Go"}}
    assert aim({"selector": "#off", "mode": "click"})["wait"] == "not enabled"
    assert "ready" in aim({"selector": "#off", "mode": "hover"})  # hover needs no enabled
    assert aim({"selector": "#hidden", "mode": "click"})["wait"] == "not visible"
    under = aim({"selector": "#under", "mode": "click"})
    assert under["wait"] == "div is on top at its point" and under["why"] == "covered"
    assert under["coveredBy"] == "div"
    page.evaluate("() => { const b = document.getElementById('moving'); b.getBoundingClientRect();"
                  " b.style.transform = 'translateX(300px)'; }")
    assert aim({"selector": "#moving", "mode": "click"})["wait"] == "animating"
    # Out of view: scrolled to the centre first, then aimed.
    far = aim({"selector": "#far", "mode": "click"})
    assert page.evaluate("() => scrollY") > 0, far
    assert page.evaluate(f"() => document.elementFromPoint({far['ready'][0]}, {far['ready'][1]}).id") == "far"
    # Typing: focused and selected, so inserted text replaces the content.
    assert aim({"selector": "#name", "mode": "fill"})["ready"] is True
    assert page.evaluate("() => { const e = document.activeElement;"
                         " return [e.id, e.selectionStart, e.selectionEnd]; }") == ["name", 0, 3]
    assert aim({"selector": "#notes", "mode": "fill"})["ready"] is True
    assert aim({"selector": "#rich", "mode": "fill"})["ready"] is True
    assert page.evaluate("() => getSelection().toString()") == "rich text"
    assert aim({"selector": "#ro", "mode": "fill"})["wait"] == "not a text field that typing fills"
    assert aim({"selector": "#when", "mode": "fill"})["wait"] == "not a text field that typing fills"
    assert aim({"selector": "#go", "mode": "fill"})["wait"] == "not a text field that typing fills"
    # Finding alone: counts, stale refs, selectors that are not CSS, points.
    assert aim({"selector": "button"})["count"] == 6 and "ready" not in aim({"selector": "button"})
    # No light-DOM match: Playwright's CSS engine, which also looks in open shadow roots, decides.
    assert aim({"selector": "#nothing"}) == {"notCss": True}
    assert aim({"ref": "e999"}) == {"unknownRef": True}  # never issued on this page
    assert aim({"selector": "role=button"}) == {"notCss": True}


def test_changes_limit_and_refs_minted_after_mark(page: Page) -> None:
    content(page, "<div id='root'></div>")
    agent(page, "mark")
    page.evaluate("""() => {
        for (let i = 0; i < 30; i++) {
            const b = document.createElement('button');
            b.textContent = 'B' + i;
            document.getElementById('root').append(b);
        }
    }""")
    result = agent(page, "changes", {"limit": 5})
    assert len(result["appeared"]) == 5 and result["truncated"] is True
    # A ref minted after the mark, then removed, is reported as removed.
    page.evaluate("() => document.getElementById('root').firstElementChild.remove()")
    removed = agent(page, "changes", {"limit": 5})["removed"]
    assert removed == [{"ref": result["appeared"][0]["ref"], "role": "button", "name": "B0"}]


def test_changes_without_mark_is_an_error(page: Page) -> None:
    content(page, "<p>x</p>")
    code, _ = agent_raises(page, "changes", {})
    assert code == "not-marked"


# -- describe, count, hit -------------------------------------------------------------


def test_describe_states(page: Page, server: str) -> None:
    page.goto(f"{server}/agent_form.html")
    snap(page)
    assert agent(page, "describe", "e3") == {
        "ref": "e3", "role": "textbox", "name": "Email", "tag": "input", "visible": True,
        "enabled": True, "focused": True, "value": "a@b.c", "required": True,
    }
    assert agent(page, "describe", "e9") == {
        "ref": "e9", "role": "checkbox", "name": "Some items", "tag": "input", "visible": True,
        "enabled": True, "focused": False, "checked": "mixed",
    }
    assert agent(page, "describe", "e19") == {
        "ref": "e19", "role": "button", "name": "Create account", "tag": "button", "visible": True,
        "enabled": False, "focused": False, "text": "Create account",
    }
    assert agent(page, "describe", "e15")["selected"] is True
    assert agent(page, "describe", "e13")["value"] == "Japan"
    assert agent(page, "describe", "e1")["level"] == 1
    assert agent(page, "describe", "e22")["url"] == "/items/1"
    assert agent(page, "describe", "e18")["expanded"] is False
    # A password's real value is in describe (verify_value needs it), not in snapshots.
    assert agent(page, "describe", "e5")["value"] == "hunter2"
    # An element can be passed directly, and gets its ref minted.
    by_element = page.evaluate(f"() => {A}.describe(document.querySelector('summary'))")
    assert by_element["role"] == "button" and by_element["expanded"] is False
    page.evaluate("() => document.querySelector('details').open = true")
    assert agent(page, "describe", by_element["ref"])["expanded"] is True

    page.evaluate("() => document.querySelector('h1').style.visibility = 'hidden'")
    assert agent(page, "describe", "e1")["visible"] is False
    code, _ = agent_raises(page, "describe", "e999")
    assert code == "unknown-ref"


def test_count_hit_and_ref_for(page: Page) -> None:
    content(page, """
        <style>button { position: absolute; left: 10px; top: 10px; width: 100px; height: 40px; }</style>
        <button id="b"><span id="inner">Press</span></button>
        <div id="host" style="position:absolute; left: 10px; top: 100px;"></div>
        <script>
          document.getElementById('host').attachShadow({mode: 'open'}).innerHTML =
            '<a href="/s" style="display:block; width: 100px; height: 30px">Shadow link</a>';
        </script>
    """)
    assert agent(page, "count", "button") == 1
    assert agent(page, "count", "p") == 0
    code, _ = agent_raises(page, "count", "p[[")
    assert code == "bad-selector"

    hit = page.evaluate(call_function("hit"), [40, 25])
    assert hit == {"ref": "e1", "role": "button", "name": "Press"}
    assert page.evaluate(f"() => {A}.refFor(document.getElementById('b'))") == "e1"
    shadow = page.evaluate(call_function("hit"), [30, 110])
    assert shadow["role"] == "link" and shadow["name"] == "Shadow link"
    assert page.evaluate(call_function("hit"), [5000, 5000]) is None


# -- install --------------------------------------------------------------------------


def test_install_is_idempotent_and_hidden_from_enumeration(page: Page) -> None:
    content(page, "<button>One</button>")
    assert snap(page) == 'button "One" [ref=e1]'
    page.evaluate(AGENT_SOURCE)
    page.evaluate(AGENT_SOURCE)
    assert snap(page) == 'button "One" [ref=e1]'
    facts = page.evaluate(f"""() => {{
        const d = Object.getOwnPropertyDescriptor(window, {json.dumps(AGENT_KEY)});
        window[{json.dumps(AGENT_KEY)}] = null;
        const forIn = [];
        for (const k in window) forIn.push(k);
        return {{
            keys: Object.keys(window).includes({json.dumps(AGENT_KEY)}),
            forIn: forIn.includes({json.dumps(AGENT_KEY)}),
            enumerable: d.enumerable, writable: d.writable, configurable: d.configurable,
            frozen: Object.isFrozen(d.value),
            stillThere: typeof {A}.snapshot === 'function',
            methods: Object.keys({A}).filter(k => typeof {A}[k] === 'function').sort(),
        }};
    }}""")
    assert facts == {
        "keys": False, "forIn": False, "enumerable": False, "writable": False,
        "configurable": False, "frozen": True, "stillThere": True,
        "methods": sorted(AGENT_METHODS),
    }


def test_init_script_survives_hostile_page(page: Page, server: str) -> None:
    page.goto(f"{server}/agent_hostile.html")
    # The page's scripts replaced DOM methods and globals after the agent installed.
    assert page.evaluate("() => document.querySelector('button')") == "clobbered"
    assert snap(page) == 'heading "Still works" [ref=e1] [level=1]\nbutton "Press" [ref=e2]'
    assert agent(page, "find", {"role": "button"})["matches"][0]["ref"] == "e2"
    assert agent(page, "count", "button") == 1
    agent(page, "mark")
    page.evaluate("() => document.body.append(document.createElement('hr'))")
    assert agent(page, "changes", {})["truncated"] is False


# -- Python helpers -------------------------------------------------------------------


def test_call_expressions_run_in_the_page(browser: Browser) -> None:
    page = browser.new_page()  # no init script: the agent is not there yet
    try:
        _call_expressions(page)
    finally:
        page.close()


def _call_expressions(page: Page) -> None:
    page.set_content("<button>Go</button>")
    assert page.evaluate(f"() => {json.dumps(AGENT_KEY)} in window") is False
    result = page.evaluate(ensure_call_expression("snapshot", snapshot_args(max_nodes=10)))
    assert result["text"] == 'button "Go" [ref=e1]'
    assert page.evaluate(call_expression("count", "button")) == 1
    assert page.evaluate(call_expression("find", find_args(role="button", exact=True)))["count"] == 1
    assert page.evaluate(call_expression("textSearch", text_search_args("go")))["count"] == 1
    page.evaluate(call_function("mark"))
    assert page.evaluate(call_expression("changes", changes_args(limit=3)))["removed"] == []
    handle = page.evaluate_handle(call_function("resolve"), "e1")
    assert handle.as_element() is not None
    # Installing again through the ensure path keeps the same refs.
    assert page.evaluate(ensure_call_expression("snapshot", {}))["text"] == 'button "Go" [ref=e1]'


def test_python_helpers() -> None:
    assert call_expression("count", "a[href]") == f'{A}.count("a[href]")'
    assert call_function("hit") == f"([x, y]) => {A}.hit(x, y)"
    with pytest.raises(ValueError):
        call_expression("evalAnything")
    assert snapshot_args() == {}
    assert snapshot_args(scope="e4", max_nodes=5, omit=["text"], include_hidden=True, urls=False) == {
        "scope": "e4", "maxNodes": 5, "omit": ["text"], "includeHidden": True, "urls": False}
    with pytest.raises(ValueError):
        snapshot_args(max_nodes=0)
    assert find_args(test_id="x", limit=3) == {"testId": "x", "limit": 3}
    with pytest.raises(ValueError):
        find_args()
    assert text_search_args("q", case_sensitive=True) == {"query": "q", "caseSensitive": True}
    assert changes_args() == {}
    assert normalize_ref("e12") == normalize_ref("[ref=e12]") == normalize_ref(" ref=e12 ") == "e12"
    assert normalize_ref("button") is None
    assert agent_error("Error: stale-element: ref e5 is unknown\n    at eval") == (
        "stale-element", "ref e5 is unknown")
    assert agent_error("TypeError: x is undefined") is None
    assert f"const AGENT_KEY = '{AGENT_KEY}';" in AGENT_SOURCE


def test_the_highest_ref_a_result_shows_is_found_wherever_refs_ride() -> None:
    from browx_actors.sessions.chromium.agent.pageagent import highest_ref

    result = {
        "snapshot": 'button "Buy" [ref=e3]\n  link "More" [ref=e12]',
        "matches": [{"ref": "e7", "name": "x"}, {"ref": "not-a-ref"}],
        "appeared": ["[ref=e15] dialog"],
        "text": "a page that prints [ref=e999] in a field that is not a snapshot",
        "nested": {"deeper": [[{"ref": "e14"}]]},
        "tuple": ({"ref": "e500"},),
    }
    assert highest_ref(result) == 15
    assert highest_ref("[ref=e4] alone") == 4
    assert highest_ref({"root": {"id": "n1", "children": [{"id": "n2"}]}}) == 0


def test_a_collapsed_code_input_is_an_editors_only_inside_a_view_of_its_own(page: Page) -> None:
    """A textarea kept at no size, exempt from spell-checking, is a code editor's input
    (Monaco's in Firefox) when a box of its own around it shows the text; its value is
    that text, gutter numbers left out. Straight in the page, or spell-checked, it is a
    field nobody sees."""
    content(page, '<div style="width:300px;height:80px;position:relative"><div class="gutter">1<br>2</div>'
                  '<div>let x = 1;<br>let y = 2;</div><textarea aria-label="Code" spellcheck="false" '
                  'style="position:absolute;top:0;left:0;width:0;height:0;padding:0;border:0"></textarea></div>'
                  '<p>Page text</p><textarea aria-label="Trap" spellcheck="false" '
                  'style="width:0;height:0;padding:0;border:0"></textarea>'
                  '<div style="width:300px;height:40px;position:relative"><div>Notes</div>'
                  '<textarea aria-label="Spelled" style="position:absolute;top:0;width:0;height:0;padding:0;'
                  'border:0"></textarea></div>')
    text = snap(page)
    assert 'textbox "Code" [ref=e1] value="let x = 1;\\nlet y = 2;"' in text, text
    assert 'textbox "Trap" [hidden]' in text and 'textbox "Spelled" [hidden]' in text, text
