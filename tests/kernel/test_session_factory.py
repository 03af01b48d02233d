"""Which engines the runtime can build a session for (``runtime/factory.py``)."""

from __future__ import annotations

import pytest

from browx_actors.errors import ToolError
from browx_actors.runtime.factory import CONNECTING_ENGINES, session_factory


@pytest.mark.parametrize("engine", ["chromium", "firefox", "android-app", "ios-app", "chrome-android"])
def test_every_engine_of_this_build_has_a_factory(engine: str) -> None:
    assert callable(session_factory(engine))


@pytest.mark.parametrize(("engine", "missing"), [("webkit", "WebKitWebDriver"), ("safari", "macOS")])
def test_an_engine_that_cannot_run_here_is_refused_naming_what_is_missing(engine: str, missing: str) -> None:
    with pytest.raises(ToolError) as caught:
        session_factory(engine)
    assert caught.value.code == "engine-unavailable"
    assert caught.value.details == {"engine": engine}
    assert missing in caught.value.message


def test_only_native_app_engines_connect_after_they_start() -> None:
    assert set(CONNECTING_ENGINES) == {"android-app", "ios-app"}
