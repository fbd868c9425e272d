"""Fused search with a lane observer (live progress) against loopback servers speaking
Europe PMC's and OpenAlex's wire format: lanes are heard as they finish; a cancelled caller
that waits alone stops the lanes (nothing cached, the next search asks again); a cancelled
caller sharing the search with another leaves it running for that one."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import pytest
from pydantic import SecretStr
from tests.faces.web._server import epmc_body, epmc_record
from tests.faces.web._slow import Provider, openalex_body, provider_server

from litdesk.core.runs import LaneResult
from litdesk.services.app import open_app
from litdesk.services.search import make_definition


async def _until(pred: Any, seconds: float = 20.0) -> None:
    for _ in range(int(seconds / 0.01)):
        if pred():
            return
        await asyncio.sleep(0.01)
    raise AssertionError("the condition never held")


@pytest.mark.parametrize("shared", [False, True])
def test_lanes_heard_as_they_finish_and_cancel(tmp_settings: Any, shared: bool) -> None:
    settings = tmp_settings.model_copy(update={"openalex_api_key": SecretStr("k-test-123456")})
    epmc = Provider(epmc_body([epmc_record(i) for i in range(1, 4)]))
    oax = Provider(openalex_body(), gate=threading.Event())
    with provider_server(epmc) as epmc_url, provider_server(oax) as oax_url:

        async def scenario() -> None:
            bases = {"europepmc": epmc_url, "openalex": oax_url}
            async with open_app(settings, base_urls=bases) as rt_app:
                rt = rt_app.providers
                definition = make_definition("tumour growth", providers=["europepmc", "openalex"])
                heard: list[LaneResult] = []
                live = asyncio.create_task(
                    rt.fused_search(definition, on_lane=heard.append, stop_alone=True)
                )
                await _until(lambda: heard and oax.seen)
                assert [(h.lane, h.status, h.returned) for h in heard] == [
                    ("europepmc-keyword", "ok", 3)
                ]
                other = asyncio.create_task(rt.fused_search(definition)) if shared else None
                await asyncio.sleep(0.05)
                live.cancel()
                with pytest.raises(asyncio.CancelledError):
                    await live
                oax.gate.set()
                if other is not None:  # the search went on for the other caller
                    run = await other
                    assert {lane.status for lane in run.lanes} == {"ok"}
                    assert [h.lane for h in heard] == ["europepmc-keyword", "openalex-keyword"]
                    again = await rt.fused_search(definition)
                    assert again.reuse == "cache" and len(oax.seen) == 1  # from the cache
                else:  # the lanes stopped: nothing heard later, nothing cached
                    await asyncio.sleep(0.2)
                    assert [h.lane for h in heard] == ["europepmc-keyword"]
                    again = await rt.fused_search(definition)
                    assert {lane.status for lane in again.lanes} == {"ok"}
                    assert len(oax.seen) == 2 and len(epmc.seen) == 2

        asyncio.run(scenario())
