"""What the hostile round of benchmarks/chaos_hostile.py sends: the inputs, the
workspace they name, and each session's episodes.

Kept apart from the round that sends them so each module holds one idea: this one is
the data and the plan (pure but for :func:`prepare_workspace`, which makes the FIFOs,
sockets, links and deep files the paths name); the round sends, times and counts.
"""

from __future__ import annotations

import json
import os
import random
import socket
import tempfile
from pathlib import Path
from typing import Any

import attrs

from tests.secret_support import CHROMIUM, FIRST, SECOND

#: Where flood_console.html floods from: a dedicated worker, or uncaught exceptions.
FLOODS = ("worker", "exception")
#: The kinds of call, in the order the report lists them.
KINDS = ("path", "selector", "secret", "deep", "flood", "way out", "plain")

#: (what it is, the path): each given to every path argument.
PATHS = [("FIFO", "pipe"), ("FIFO in a folder", "sub/pipe"), ("link to a FIFO", "link-to-pipe"),
         ("socket", "sock"), ("link to a socket", "link-to-sock"), ("folder", "folder"),
         ("folder/", "folder/"), (".", "."), ("empty", ""), ("a/ x2000", "a/" * 2000 + "x.png"),
         ("..", "../escape.png"), ("folder/../..", "folder/../../escape.png"), ("absolute", "/tmp/escape.png"),
         ("link out of the workspace", "link-out/escape.png"), ("link to /etc/passwd", "passwd-link"),
         ("NUL", "a\x00b.png"), ("lone surrogate", "\ud800.png"), ("300-byte name", "n" * 296 + ".png"),
         ("300-byte name, 2-byte characters", "\u00fc" * 148 + ".png"), ("4,097 characters", "b" * 4097),
         ("newline", "a\nb.png"), ("~", "~/x.png")]
#: (tool, its other arguments). Any here and below: JSON arguments, as a client writes them.
PATH_TOOLS: list[tuple[str, dict[str, Any]]] = [
    ("screenshot", {}), ("screenshot_region", {"x": 0, "y": 0, "width": 20, "height": 20}), ("pdf_save", {}),
    ("storage_state_save", {}), ("storage_state_load", {}), ("upload_file", {"selector": "#cv"})]
SELECTORS = ("text=/[/", "css=[[", "xpath=//*[", "internal:role=", ">>", "nth=abc", "role=button[name=/(/]")
#: (tool, arguments with ``S`` where the selector goes).
SELECTOR_TOOLS: list[tuple[str, dict[str, Any]]] = [
    ("snapshot", {"scope": "S"}), ("find", {"scope": "S", "role": "button"}), ("inspect", {"selector": "S"}),
    ("click", {"selector": "S"}), ("hover", {"selector": "S"}), ("fill", {"selector": "S", "value": "x"}),
    ("press", {"selector": "S", "key": "a"}), ("select", {"selector": "S", "values": ["a"]}),
    ("scroll", {"selector": "S"}), ("upload_file", {"selector": "S", "paths": ["ok.txt"]}),
    ("double_click", {"selector": "S"}), ("mouse_move", {"selector": "S"}),
    ("wait_for", {"selector": "S", "timeoutMs": 1000}), ("screenshot", {"selector": "S"}),
    ("verify_visible", {"selector": "S"}), ("verify_text", {"selector": "S", "text": "x"}),
    ("verify_value", {"selector": "S", "value": "x"}), ("verify_count", {"selector": "S", "count": 1}),
    ("verify_attribute", {"selector": "S", "name": "id", "value": "x"}),
    ("choose_option", {"selector": "S", "option": "a", "timeoutMs": 1000}),
    ("canvas_capture", {"selector": "S", "format": "png"}),
    ("drag", {"from": {"selector": "S"}, "to": {"x": 5, "y": 5}}),
    ("fill_form", {"fields": [{"selector": "#q", "value": "x"}, {"selector": "S", "value": "x"}]})]


def _nest(depth: int, inner: bytes = b"1") -> bytes:
    return b"[" * depth + inner + b"]" * depth


#: (tool, raw arguments, what they are).
DEEP: list[tuple[str, bytes, str]] = [
    ("fill", b'{"selector":"#q","value":' + _nest(1000) + b"}", "fill value nested 1,000 deep"),
    ("snapshot", b'{"extra":' + _nest(10_000) + b"}", "an unknown argument nested 10,000 deep"),
    ("eval_js", b'{"expr":' + _nest(100_000) + b"}", "expr nested 100,000 deep"),
    ("fill_form", b'{"fields":[' + b'{"a":' * 5000 + b"1" + b"}" * 5000 + b"]}", "a field nested 5,000 deep"),
    ("click", b'{"selector":"#add","after":' + _nest(20_000, b"{}") + b"}", "after nested 20,000 deep"),
    ("eval_js", json.dumps({"expr": "[" * 100_000 + "]" * 100_000}).encode(), "a script 100,000 brackets deep"),
    ("eval_js", json.dumps({"expr": "(() => { let a = []; for (let i = 0; i < 100000; i++) a = [a]; return a; })()"}
                           ).encode(), "a value answered 100,000 deep"),
    ("eval_js", json.dumps({"expr": "(() => { let a = {}; for (let i = 0; i < 1000; i++) a = {a}; return a; })()"}
                           ).encode(), "a value answered 1,000 deep"),
] + [("storage_state_load", json.dumps({"path": name}).encode(), f"state file {name}")
     for name in ("deep-list.json", "deep-cookies.json", "deep-origins.json", "deep-100k.json")]


@attrs.frozen
class Step:
    """One call: its kind, tool and arguments, and what it is in words."""

    kind: str
    tool: str
    args: dict[str, Any] | bytes  # Any: JSON arguments; bytes: sent as they are
    shown: str


def prepare_workspace(root: Path) -> list[socket.socket]:
    """The hostile things a path can name; the sockets are returned to be held open."""
    (root / "sub").mkdir(parents=True)
    (root / "folder").mkdir()
    (root / "ok.txt").write_text("a plain file")
    held = []
    for folder in (root, root / "sub"):
        os.mkfifo(folder / "pipe")
        sock = socket.socket(socket.AF_UNIX)
        sock.bind(str(folder / "sock"))
        held.append(sock)
    os.symlink("pipe", root / "link-to-pipe")
    os.symlink("sock", root / "link-to-sock")
    os.symlink(tempfile.gettempdir(), root / "link-out")
    os.symlink("/etc/passwd", root / "passwd-link")
    (root / "deep-list.json").write_text("[" * 5000 + "]" * 5000)
    (root / "deep-cookies.json").write_text('{"cookies":[' + "{\"a\":" * 5000 + "1" + "}" * 5000 + '],"origins":[]}')
    (root / "deep-origins.json").write_text('{"cookies":[],"origins":[{"origin":"http://127.0.0.1","localStorage":'
                                            + "[" * 5000 + "]" * 5000 + "}]}")
    (root / "deep-100k.json").write_text("[" * 100_000 + "]" * 100_000)
    return held


def _selector_args(template: dict[str, Any], selector: str) -> dict[str, Any]:  # Any: JSON arguments
    args: dict[str, Any] = json.loads(json.dumps(template).replace('"S"', json.dumps(selector)))
    return args


class Planner:
    """Episodes for one session: each names its page, then its calls in groups sent at once."""

    def __init__(self, rng: random.Random, base: str, floods: tuple[str, ...] = FLOODS) -> None:
        self.rng, self.base, self.floods = rng, base, floods
        self.paths = [(tool, extra, label, path) for tool, extra in PATH_TOOLS for label, path in PATHS]
        self.selectors = [(tool, template, s) for tool, template in SELECTOR_TOOLS for s in SELECTORS]
        self.deep = list(DEEP)
        for inputs in (self.paths, self.selectors, self.deep):
            rng.shuffle(inputs)

    def go(self, kind: str, page: str) -> list[Step]:
        return [Step(kind, "navigate", {"url": f"{self.base}/{page}"}, page)]

    def path_episode(self) -> list[list[Step]]:
        groups = [self.go("plain", "page_form.html")]
        for _ in range(3):
            group = []
            for _ in range(4):
                tool, extra, label, path = self.paths.pop()
                self.paths.insert(0, (tool, extra, label, path))  # round the list: each input in turn
                if tool == "upload_file":
                    value = self.rng.choice([[path], ["ok.txt", path]])
                    group.append(Step("path", tool, {**extra, "paths": value}, f"paths {label}"))
                else:
                    group.append(Step("path", tool, {**extra, "path": path}, f"path {label}"))
            groups.append(group)
            groups.append([Step("plain", "screenshot", {"path": "shots/after.png"}, "a plain path")])
        return groups

    def selector_episode(self) -> list[list[Step]]:
        groups = [self.go("plain", "e2e_app.html")]
        for _ in range(3):
            group = []
            for _ in range(4):
                tool, template, selector = self.selectors.pop()
                self.selectors.insert(0, (tool, template, selector))
                group.append(Step("selector", tool, _selector_args(template, selector), selector))
            groups.append(group)
        return [*groups, [Step("plain", "verify_count", {"selector": "#add", "count": 1}, "a plain selector")]]

    def secret_episode(self) -> list[list[Step]]:
        typed = self.rng.choice(["<PW>", "<PX>", FIRST, SECOND, f"<PW> and {SECOND}"])
        saved = self.rng.choice([("screenshot", "out/<PW>.png"), ("pdf_save", "out/<PX>.pdf"),
                                 ("storage_state_save", f"out/raw-{SECOND}.json"), ("screenshot", f"out/{FIRST}.png"),
                                 ("pdf_save", FIRST + ".pdf")])
        s = "secret"
        steps = [Step(s, "fill", {"selector": "#q", "value": typed}, f"fill {typed!r}"),
                 Step(s, "click", {"selector": "button[type=submit]"}, "submit"),
                 Step(s, "snapshot", {}, "the page shows it spelled"), Step(s, "console_read", {}, "console"),
                 Step(s, "network_read", {}, "requests"),
                 Step(s, "eval_js", {"expr": "document.title + ' ' + location.href"}, "title and URL"),
                 Step(s, saved[0], {"path": saved[1]}, f"path {saved[1]!r}"),
                 Step(s, "click", {"selector": f"text=/{FIRST}(/"}, "a broken selector holding it"),
                 Step(s, "verify_text", {"selector": "#out", "text": SECOND}, "verify_text quoting the page"),
                 Step(s, "text_search", {"query": SECOND}, "text_search for it"),
                 Step(s, "eval_js", {"expr": f"throw new Error({json.dumps(FIRST)})"}, "a script throwing it"),
                 Step(s, "await_human", {"prompt": f"Paste {CHROMIUM[FIRST]['escape()']} or "
                                                   f"{CHROMIUM[SECOND]['form']}", "timeoutMs": 200}, "a prompt")]
        return [self.go("plain", "secret_spellings.html"), *([step] for step in steps)]

    def deep_episode(self) -> list[list[Step]]:
        picked = self.deep[:4]
        self.deep = self.deep[4:] + picked
        return [self.go("plain", "e2e_app.html"), [Step("deep", tool, raw, shown) for tool, raw, shown in picked[:2]],
                *([Step("deep", tool, raw, shown)] for tool, raw, shown in picked[2:])]

    def flood_episode(self) -> list[list[Step]]:
        page = f"flood_console.html?source={self.rng.choice(self.floods)}"
        f = "flood"
        return [[Step(f, "navigate", {"url": f"{self.base}/{page}"}, page)],
                [Step(f, "click", {"selector": "#go"}, page),
                 Step(f, "fill", {"selector": "#note", "value": "x"}, page)],
                [Step(f, "snapshot", {}, page)], [Step(f, "console_read", {}, page)],
                [Step(f, "find", {"role": "button"}, page)], self.go("way out", "e2e_small.html")]

    def way_out_episode(self) -> list[list[Step]]:
        page = self.rng.choice(["hung_spin.html#now", "alert_loop.html#forever", "alert_loop.html#interval"])
        policy = self.rng.choice(["ask", "accept", "dismiss"])
        w, shown = "way out", f"{page}, dialog policy {policy}"
        first = [Step("plain", "set_dialog_policy", {"policy": policy}, policy),
                 Step(w, "navigate", {"url": f"{self.base}/{page}"}, shown)]
        busy = [Step(w, "wait_for", {"text": "never there", "timeoutMs": 2000}, shown), Step(w, "snapshot", {}, shown),
                Step(w, "click", {"selector": "#go"}, shown), Step(w, "list_tabs", {}, shown)]
        return [*([step] for step in first), busy[:2], *([step] for step in busy[2:]),
                [Step(w, "navigate", {"url": f"{self.base}/e2e_small.html"}, f"leaving {page} ({policy})")],
                [Step(w, "snapshot", {}, f"after leaving {page}")]]

    def plan(self, episodes: int) -> list[list[Step]]:
        makers = [self.path_episode, self.selector_episode, self.secret_episode, self.deep_episode,
                  self.flood_episode, self.way_out_episode]
        first = self.rng.randrange(len(makers))  # so that one episode a session is not the same in each
        chosen = [makers[(first + i) % len(makers)] for i in range(episodes)]
        self.rng.shuffle(chosen)
        return [group for make in chosen for group in make()]
