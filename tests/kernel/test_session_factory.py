"""Which engines the runtime can build a session for (``runtime/factory.py``)."""

from __future__ import annotations

import pytest

from browx_actors.errors import ToolError
from browx_actors.runtime.factory import CONNECTING_ENGINES, session_factory


@pytest.mark.parametrize("engine", ["chromium", "android-app", "ios-app", "chrome-android"])
def test_every_engine_of_this_build_has_a_factory(engine: str) -> None:
    assert callable(session_factory(engine))


def test_an_engine_this_build_lacks_is_unavailable_naming_it() -> None:
    with pytest.raises(ToolError) as caught:
        session_factory("webkit")
    assert caught.value.code == "unavailable"
    assert caught.value.details == {"engine": "webkit", "component": "engine"}


def test_only_native_app_engines_connect_after_they_start() -> None:
    assert set(CONNECTING_ENGINES) == {"android-app", "ios-app"}
