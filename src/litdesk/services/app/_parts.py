"""The construction of the app's provider transport (used by :mod:`._app` only)."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from litdesk._clock import SYSTEM_CLOCK, Clock
from litdesk._errors import InputError
from litdesk._settings import Settings
from litdesk.adapters.store import Store, allowance_owner

if TYPE_CHECKING:  # the transport's modules are imported when it is opened
    import httpx

    from litdesk.adapters.http import ProviderTransport

__all__ = ["provider_transport"]


def provider_transport(
    settings: Settings,
    store: Store,
    *,
    owner: str,
    record: Path | None = None,
    replay: Path | None = None,
    http_transport: httpx.AsyncBaseTransport | None = None,
    base_urls: Mapping[str, str] | None = None,
    pacing: Mapping[str, float] | None = None,
    clock: Clock = SYSTEM_CLOCK,
) -> ProviderTransport:
    """The one provider transport: every network call reserved once in ``store``'s daily
    allowance for ``owner``; ``record`` writes a cassette, ``replay`` answers from one
    (nothing is sent, nothing is reserved). ``http_transport`` / ``base_urls`` / ``pacing``
    are test hooks (an ``httpx`` transport, loopback origins, intervals per provider)."""
    from litdesk.adapters.http import Cassette, CassetteRecorder, ProviderTransport, StoreMeter

    if record is not None and replay is not None:
        raise InputError("choose --record or --replay, not both", code="record_replay")
    if settings.demo:
        if record is not None or replay is not None:
            raise InputError(
                "the demo workspace answers its sample itself: no --record or --replay",
                code="demo_replay",
            )
        # the demo sample's host is answered in-process; everything else goes out as usual
        from litdesk.adapters.demo import DemoTransport

        http_transport = DemoTransport(http_transport)
    return ProviderTransport(
        settings,
        transport=http_transport,
        base_urls=base_urls,
        pacing=pacing,
        recorder=CassetteRecorder(record) if record is not None else None,
        replay=Cassette(replay) if replay is not None else None,
        meter=StoreMeter(store, settings, owner=allowance_owner(owner), clock=clock),
    )
