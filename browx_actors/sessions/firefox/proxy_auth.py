"""A firefox session's proxy credentials (open_session's ``proxy.username`` / ``password``).

WebDriver BiDi's user context proxy takes no credentials, so the proxy's challenge is
answered as it comes: the session joins the connection's ``authRequired`` intercept
(:mod:`.records.intercept`), and a challenge is answered by :func:`answer` (pure): a
407 from one of the session's own tabs or frames gets the credentials; anything else
(a site's own 401, another session's challenge) goes on as if nobody intercepted it
(``default``: the browser's own handling), so the intercept changes nothing but the
proxy's answer. The password never leaves this object but in that one command.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable

import attrs
import trio

from ...bidi import BidiConnection, BidiFailure
from ...jsonsafe import JsonObject

__all__ = ["ProxyAuth", "answer", "request_id"]


def request_id(params: JsonObject) -> str:
    request = params.get("request")
    return str(request.get("request")) if isinstance(request, dict) else ""


def answer(params: JsonObject, *, owned: bool, tried: bool, username: str, password: str) -> JsonObject:
    """``network.continueWithAuth``'s parameters for a blocked challenge; a request the
    proxy refuses again after the credentials (``tried``) is cancelled, not looped."""
    response = params.get("response")
    status = response.get("status") if isinstance(response, dict) else None
    if owned and status == 407 and tried:
        return {"request": request_id(params), "action": "cancel"}
    if owned and status == 407:
        return {"request": request_id(params), "action": "provideCredentials",
                "credentials": {"type": "password", "username": username, "password": password}}
    return {"request": request_id(params), "action": "default"}


@attrs.define(eq=False)
class ProxyAuth:
    """A session's member of the ``authRequired`` intercept (see the module notes)."""

    bidi: BidiConnection
    #: Whether a tab or frame context is the session's.
    owns_context: Callable[[str], bool]
    nursery: trio.Nursery
    username: str
    password: str = attrs.field(repr=False)
    #: Requests given the credentials once.
    _tried: set[str] = attrs.field(factory=set, init=False)

    def owns(self, context: str) -> bool:
        return self.owns_context(context)

    def take(self, params: JsonObject, *, owned: bool) -> None:
        request = request_id(params)
        reply = answer(params, owned=owned, tried=request in self._tried, username=self.username,
                       password=self.password)
        if reply["action"] == "provideCredentials":
            self._tried.add(request)
        self.nursery.start_soon(self._continue, reply)

    async def _continue(self, reply: JsonObject) -> None:
        with contextlib.suppress(BidiFailure):  # the request or the browser went meanwhile
            await self.bidi.send("network.continueWithAuth", reply)
