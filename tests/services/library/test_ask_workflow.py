"""``ask_library``/``app.reports.build`` as one service call: typed requests refuse bad scopes
before anything is opened; the app's library is used, left open by the calls and closed
once by the app."""

from __future__ import annotations

from pathlib import Path

import pytest

from litdesk._errors import InputError
from litdesk._settings import Settings
from litdesk.services.app import open_app_sync
from litdesk.services.library import AskRequest, Library, ask_library
from litdesk.services.synthesis import ReportRequest


@pytest.mark.parametrize(
    "kwargs",
    [
        {"papers": ("a.pdf",), "whole_library": True},
        {"thinking": "extreme"},
    ],
)
def test_ask_request_refuses_bad_options(kwargs):
    with pytest.raises(InputError):
        AskRequest("q", **kwargs)


def test_report_request_needs_one_scope():
    with pytest.raises(InputError):
        ReportRequest()
    with pytest.raises(InputError):
        ReportRequest(papers=("a.pdf",), whole_library=True)
    assert ReportRequest(whole_library=True).write is True


def test_the_app_library_is_used_left_open_and_closed_once_by_the_app(
    tmp_settings: Settings, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
):
    closed: list[Library] = []

    def close(self: Library) -> None:
        closed.append(self)

    monkeypatch.setattr(Library, "close", close)
    with open_app_sync(tmp_settings) as app:
        mine = app.pdfs
        with pytest.raises(InputError):  # --top-k out of range, refused by the retrieval
            ask_library(tmp_settings, AskRequest("q", top_k=0), library=mine)
        with pytest.raises(InputError):  # nothing to report
            app.reports.build(ReportRequest(whole_library=True), owner=app.owner)
        assert closed == []  # the calls leave the app's library open
    assert closed == [mine]  # the app closes it, once
