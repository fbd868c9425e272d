"""The Study page's in-step check (a diagnostic of a few statements that only warns) runs
at most once a minute per Study and process, not on every read of the Study's numbers."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from litdesk import Settings
from litdesk.adapters.store import open_store
from litdesk.core.records import make_paper
from litdesk.services.dedup import _working_set
from litdesk.services.dedup._working_set import identification
from litdesk.services.workspace import Workspace


def test_an_out_of_step_study_is_warned_once_a_minute(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
):
    store = open_store(Settings(data_dir=tmp_path))
    try:
        ws = Workspace(store)  # no keep_working_sets: the saved paper gets no record
        study = ws.create_study("Left out of step").id
        ws.save_paper(make_paper(pmid="123", title="A paper"), study=study)
        clock = [1000.0]
        monkeypatch.setattr(_working_set.time, "monotonic", lambda: clock[0])
        monkeypatch.setattr(_working_set, "_checked", {})

        def warnings() -> int:
            return sum("out of step" in r.getMessage() for r in caplog.records)

        with caplog.at_level(logging.WARNING, logger=_working_set.log.name):
            identification(store, study)
            assert warnings() == 1
            clock[0] += 30
            identification(store, study)
            assert warnings() == 1  # checked 30 s ago: not again
            clock[0] += 31
            identification(store, study)
            assert warnings() == 2
    finally:
        store.dispose()
