"""A page's permission requests, answered by the session's permission policy.

The policy (``policy/permissions.py``: allow, deny or ask-human per permission) is put
in the browser with ``Browser.setPermission`` for the session's browser context, every
origin at once, so what a page reads (``navigator.permissions.query``) and what the
browser does agree with it. ``ask-human`` starts as denied: no page gets a permission
no person gave.

To learn *that* a page asked (for ask-human, and for the ``permissionRequests`` of the
call during which it did), each page of the session gets a small main-world script
(while a policy is set) that holds the requesting calls (``getCurrentPosition``,
``watchPosition``, ``Notification.requestPermission``, ``getUserMedia``, clipboard
reads) until the server has answered through a binding. The server's answer is a
``Browser.setPermission`` for the page's origin; the script only lets the page's call go
on afterwards, and the browser decides the call by the permission. A page that calls
the binding itself can only make the server ask or report; it cannot grant itself
anything. A person's answer holds for the origin for the rest of the session.
"""

from __future__ import annotations

import contextlib
import json
import logging
import secrets
from collections import deque
from typing import Protocol

import trio

from ....cdp import CdpConnection, CdpError, CdpFailure, CdpSubscription, TargetLink
from ....errors import ToolError
from ....human.prompts import ending_of
from ....jsonsafe import JsonObject
from ....policy.permissions import PERMISSION_NAMES, PermissionPolicy
from ....tools.human import PromptSpec
from ..tabs.wiring import TargetWiring

__all__ = ["GATED", "PermissionHost", "Permissions"]

log = logging.getLogger("browx_actors.chromium.permissions")

_SETTING = {"allow": "granted", "deny": "denied", "ask-human": "denied"}
#: Requests kept until a result lists them.
_LOG_MAX = 50
#: The permissions whose requests the gate hears (the rest are only set in the browser).
GATED = ("geolocation", "notifications", "camera", "microphone", "clipboard-read")
#: How long a person has to answer a page's permission request.
_ASK_TIMEOUT_MS = 120_000

# The gate, in the page's main world (module notes). BINDING and DONE are filled in.
_GATE = r"""
(() => {
  const ask = window[BINDING];
  if (typeof ask !== 'function' || window[DONE]) return;
  const waiting = new Map();
  let next = 0;
  const done = (id) => { const go = waiting.get(id); waiting.delete(id); if (go) go(); };
  Object.defineProperty(window, DONE, { value: done });
  const gate = (name) => new Promise((resolve) => {
    const id = ++next;
    waiting.set(id, resolve);
    ask(JSON.stringify({ id, name, origin: location.origin }));
  });
  const geo = navigator.geolocation;
  if (geo) {
    const get = geo.getCurrentPosition.bind(geo), watch = geo.watchPosition.bind(geo), clear = geo.clearWatch.bind(geo);
    const watches = new Map();
    let nextWatch = 0;
    geo.getCurrentPosition = (ok, err, opts) => { gate('geolocation').then(() => get(ok, err, opts)); };
    geo.watchPosition = (ok, err, opts) => {
      const id = ++nextWatch;
      watches.set(id, null);
      gate('geolocation').then(() => { if (watches.has(id)) watches.set(id, watch(ok, err, opts)); });
      return id;
    };
    geo.clearWatch = (id) => { const real = watches.get(id); watches.delete(id); if (real != null) clear(real); };
  }
  if (window.Notification && Notification.requestPermission) {
    const request = Notification.requestPermission.bind(Notification);
    Notification.requestPermission = (done) => gate('notifications').then(() => request())
      .then((answer) => { if (typeof done === 'function') done(answer); return answer; });
  }
  const media = navigator.mediaDevices;
  if (media && media.getUserMedia) {
    const open = media.getUserMedia.bind(media);
    media.getUserMedia = (wanted) => {
      const names = [];
      if (wanted && wanted.video) names.push('camera');
      if (wanted && wanted.audio) names.push('microphone');
      return names.reduce((held, name) => held.then(() => gate(name)), Promise.resolve()).then(() => open(wanted));
    };
  }
  const clipboard = navigator.clipboard;
  if (clipboard) {
    for (const method of ['read', 'readText']) {
      if (typeof clipboard[method] !== 'function') continue;
      const read = clipboard[method].bind(clipboard);
      clipboard[method] = () => gate('clipboard-read').then(() => read());
    }
  }
})();
"""


class PermissionHost(Protocol):
    """What the gate needs of the session."""

    @property
    def wiring(self) -> TargetWiring | None: ...

    @property
    def context_id(self) -> str | None: ...

    @property
    def nursery(self) -> trio.Nursery: ...

    def browser_cdp(self) -> CdpConnection: ...

    async def ask_person(self, spec: PromptSpec) -> JsonObject: ...


class Permissions:
    """The session's permission policy, the gate on its pages, and the requests heard."""

    def __init__(self, host: PermissionHost) -> None:
        self.host = host
        self.policy = PermissionPolicy()
        #: Set by the operator's policy file: set_permission_policy is refused (dispatch).
        self.operator = False
        self._binding = "__browxPermission" + secrets.token_hex(6)
        self._done = self._binding + "Done"
        self._installed = False
        #: A person's answer per (origin, permission): asked once per session.
        self._decided: dict[tuple[str, str], bool] = {}
        self._heard: deque[JsonObject] = deque(maxlen=_LOG_MAX)

    async def set(self, policy: PermissionPolicy) -> None:
        """Put ``policy`` in force: in the browser now, and the gate on every page."""
        self.policy = policy
        self._decided.clear()
        await self._apply()
        if policy.active and not self._installed:
            assert self.host.wiring is not None
            self._installed = True
            await self.host.wiring.add_setup(self.setup)

    def take_requests(self) -> list[JsonObject]:
        """The requests no result has listed yet, oldest first (then they are)."""
        heard = list(self._heard)
        self._heard.clear()
        return heard

    async def states(self, cdp: TargetLink) -> JsonObject:
        """Each permission the policy names (or every one, with a default), as the page reads it."""
        names = list(dict.fromkeys([*GATED, *self.policy.per]) if self.policy.default else self.policy.per)
        names = names or list(GATED)
        script = (f"Promise.all({json.dumps(names)}.map((name) => navigator.permissions.query({{name}})"
                  ".then((s) => [name, s.state], () => [name, 'unsupported']))).then(Object.fromEntries)")
        found = await cdp.send("Runtime.evaluate", {"expression": script, "awaitPromise": True, "returnByValue": True})
        value = (found.get("result") or {}).get("value")
        return value if isinstance(value, dict) else {}

    # -- the browser ---------------------------------------------------------------------

    async def _apply(self) -> None:
        for name in PERMISSION_NAMES:
            answer = self.policy.answer(name)
            await self._set(name, "prompt" if answer is None else _SETTING[answer], None)

    async def _set(self, name: str, setting: str, origin: str | None) -> None:
        params: JsonObject = {"permission": {"name": name}, "setting": setting}
        if origin is not None:
            params["origin"] = origin
        if self.host.context_id:
            params["browserContextId"] = self.host.context_id
        try:
            await self.host.browser_cdp().send("Browser.setPermission", params)
        except CdpError as err:  # a permission this Chromium does not know by that name
            log.debug("Browser.setPermission %s: %s", name, err.message)

    # -- every page ----------------------------------------------------------------------

    async def setup(self, cdp: TargetLink, kind: str) -> None:
        if kind != "page":
            return
        events = cdp.subscribe(methods=("Runtime.bindingCalled",), buffer=64)
        self.host.nursery.start_soon(self._serve, cdp, events)
        gate = _GATE.replace("BINDING", json.dumps(self._binding)).replace("DONE", json.dumps(self._done))
        await cdp.send("Runtime.addBinding", {"name": self._binding})
        await cdp.send("Page.addScriptToEvaluateOnNewDocument", {"source": gate})
        await cdp.send("Runtime.evaluate", {"expression": gate})  # the document already there

    async def _serve(self, cdp: TargetLink, events: CdpSubscription) -> None:
        try:
            async with events:
                async for event in events:
                    if event.params.get("name") == self._binding:
                        self.host.nursery.start_soon(self._answer, cdp, event.params.get("payload"))
        except CdpFailure as exc:
            log.debug("permission gate on %s ended: %s", cdp, exc)

    async def _answer(self, cdp: TargetLink, payload: object) -> None:
        try:
            asked = json.loads(payload) if isinstance(payload, str) else None
        except ValueError:
            asked = None
        if not isinstance(asked, dict) or asked.get("name") not in PERMISSION_NAMES:
            return
        name, origin = str(asked["name"]), str(asked.get("origin") or "")
        answer = self.policy.answer(name)
        heard: JsonObject = {"permission": name, "origin": origin}
        if answer == "ask-human":
            if (origin, name) not in self._decided:  # the call under way hears that a person is asked
                self._heard.append({**heard, "answer": "asking"})
            allowed, by = await self._ask(name, origin)
            if origin.startswith(("http:", "https:")):
                await self._set(name, "granted" if allowed else "denied", origin)
            heard.update(answer="allowed" if allowed else "denied", by=by)
        elif answer is not None:
            heard.update(answer="allowed" if answer == "allow" else "denied", by="policy")
        else:
            heard.update(answer="browser", by="browser")
        self._heard.append(heard)
        with contextlib.suppress(CdpFailure, ValueError, TypeError):  # the page went away while it waited
            await cdp.send("Runtime.evaluate", {"expression": f"window[{json.dumps(self._done)}]({int(asked['id'])})"})

    async def _ask(self, name: str, origin: str) -> tuple[bool, str]:
        """A person's answer for ``name`` at ``origin`` (asked once), and who gave it."""
        known = self._decided.get((origin, name))
        if known is not None:
            return known, "person"
        spec = PromptSpec("confirm", f"The page at {origin or 'an unknown origin'} asks for the {name} permission. "
                          "Allow it for this session?", None, _ASK_TIMEOUT_MS)
        try:
            outcome = await self.host.ask_person(spec)
        except ToolError as err:  # another question is open (human-busy), or the channel is down
            log.debug("asking about %s failed: %s", name, err)
            return False, "human-busy" if err.code == "human-busy" else "no-human-channel"
        ending = ending_of(outcome)
        if ending in ("no-human-channel", "timeout"):
            return False, ending
        allowed = ending == "answered" and outcome.get("value") is True
        self._decided[(origin, name)] = allowed
        return allowed, "person"
