"""``--cdp-header`` / BROWX_CDP_HEADERS (config.parse_cdp_headers): pure."""

from __future__ import annotations

import pytest

from browx_actors.config import RuntimeConfig, parse_cdp_headers


def test_headers_are_name_value_lines_and_a_bad_one_is_named_without_its_value() -> None:
    assert parse_cdp_headers(["Authorization: Bearer abc:def", " X-Grid :  eu-1 ", ""]) == (
        ("Authorization", "Bearer abc:def"), ("X-Grid", "eu-1"))
    for bad in ("no colon here", "Bad Name: x", ": empty"):
        with pytest.raises(ValueError, match="'Name: value'"):
            parse_cdp_headers([bad])
    with pytest.raises(ValueError, match="X-Token has a line break") as refused:
        parse_cdp_headers(["X-Token: secret\r\nInjected: 1"])
    assert "secret" not in str(refused.value)
    config = RuntimeConfig.from_env({"BROWX_CDP_HEADERS": "Authorization: Bearer s3cret\nX-A: 1"})
    assert config.cdp_headers == (("Authorization", "Bearer s3cret"), ("X-A", "1"))
    assert "s3cret" not in repr(config)
