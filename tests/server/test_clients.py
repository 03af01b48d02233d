"""One namespace of sessions per HTTP client (clients.py): pure."""

from __future__ import annotations

import re

from browx_actors import clients
from browx_actors.tools.contract import SESSION_ID_PATTERN


def test_a_clients_sessions_are_its_own_and_read_back_as_it_named_them() -> None:
    assert clients.scoped("work", None) == "work"  # stdio and the library: no namespace
    inside = clients.scoped("work", "c1")
    assert inside == "c1~work" and clients.named(inside) == "work" and clients.named("work") == "work"
    assert clients.owned_by(inside, "c1") and not clients.owned_by(inside, "c2")
    assert not clients.owned_by("c1~work", "c") and clients.owned_by("anything", None)
    # No id an agent may send holds the separator: it cannot name another client's session.
    assert re.match(SESSION_ID_PATTERN, "c1~work") is None and re.match(SESSION_ID_PATTERN, "work")
    answer = {"id": "c1~work", "error": "no open session 'c1~solo'", "list": ["c1~a", 3, None], "n": 2}
    assert clients.unscoped(answer, "c1") == {"id": "work", "error": "no open session 'solo'",
                                                "list": ["a", 3, None], "n": 2}
    assert clients.unscoped(answer, None) is answer


def test_the_calling_client_rides_the_context_and_is_restored() -> None:
    assert clients.current() is None
    with clients.acting_for("c7"):
        assert clients.current() == "c7"
        with clients.acting_for(None):
            assert clients.current() is None
        assert clients.current() == "c7"
    assert clients.current() is None
