"""What CdpConnection lends the Playwright relay (browx_actors/cdp/relay.py), against the
scripted peer: ids from its counter, a write of an encoded message, and a diverter that
sees every message first and keeps what it takes from everyone else."""

from __future__ import annotations

import json

import pytest
import trio

from browx_actors.cdp import CdpConnectionLost, CdpTimeout, open_cdp_connection
from cdp_fixtures import fake_peer


async def test_a_diverter_takes_the_replies_to_what_was_written_and_leaves_the_rest() -> None:
    async with fake_peer() as (url, _), open_cdp_connection(url) as conn:
        taken: list[str | bytes] = []
        relayed = conn.claim_id()

        def divert(raw: str | bytes, peeked: tuple[str, str] | None) -> bool:
            if json.loads(raw).get("id") == relayed:
                taken.append(raw)
                return True
            return False

        remove = conn.divert(divert)
        with pytest.raises(RuntimeError, match="already diverts"):
            conn.divert(divert)
        await conn.write(json.dumps({"id": relayed, "method": "Test.echo", "params": {"x": 1}}))
        assert (await conn.send("Test.echo", {"y": 2})) == {"y": 2}  # ours: routed as ever
        assert [json.loads(raw)["result"] for raw in taken] == [{"x": 1}]  # answered before ours
        assert conn.claim_id() > relayed and conn.stats().unknown_replies == 0
        remove()
        await conn.write(json.dumps({"id": relayed, "method": "Test.echo"}))
        await conn.send("Test.echo")
        assert len(taken) == 1 and conn.stats().unknown_replies == 1  # no longer diverted


async def test_a_write_stalled_past_its_deadline_abandons_the_socket() -> None:
    async with fake_peer() as (url, _), open_cdp_connection(url, disconnect_timeout=0.2) as conn:
        with pytest.raises(CdpTimeout):
            await conn.send("Test.stall", timeout=0.1)
        blob = json.dumps({"id": conn.claim_id(), "method": "Test.echo", "params": {"blob": "x" * (8 << 20)}})
        with trio.fail_after(20):
            while True:
                try:
                    await conn.write(blob, timeout=0.3)
                except CdpConnectionLost as exc:
                    error = exc
                    break
        assert "relayed write stalled" in str(error) and conn.lost == str(error)
        with pytest.raises(CdpConnectionLost, match="stalled"):
            await conn.write(blob)
