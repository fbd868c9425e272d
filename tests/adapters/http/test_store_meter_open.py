"""The store meter opens its store once, even when the lanes' first reservations arrive
from several threads at the same moment (the first search of a fresh process)."""

from __future__ import annotations

import threading
import time

from litdesk._settings import Settings
from litdesk.adapters.http import StoreMeter
from litdesk.adapters.store import Store, open_store


def test_first_reservations_from_many_threads_open_the_store_once(
    tmp_settings: Settings,
) -> None:
    opened: list[Store] = []

    def slow_open() -> Store:
        time.sleep(0.2)  # migrating a fresh store takes a while; every lane arrives meanwhile
        store = open_store(tmp_settings)
        opened.append(store)
        return store

    meter = StoreMeter(slow_open, tmp_settings)
    barrier = threading.Barrier(6)
    errors: list[BaseException] = []

    def lane(provider: str) -> None:
        barrier.wait()
        try:
            meter.reserve(provider)
        except BaseException as exc:  # noqa: BLE001 - collected and asserted below
            errors.append(exc)

    providers = ["europepmc", "openalex", "semanticscholar", "crossref", "pubmed", "arxiv"]
    threads = [threading.Thread(target=lane, args=(p,)) for p in providers]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    try:
        assert errors == []
        assert len(opened) == 1  # before the lock: one open per racing lane, some refused
    finally:
        for store in opened:
            store.dispose()
