"""``ask_library``/``make_report`` as one service call: typed requests refuse bad scopes
before anything is opened; a library opened by the call is closed by it, a caller's own
library is used and left open."""

from __future__ import annotations

from pathlib import Path

import pytest

from litdesk._errors import InputError
from litdesk._settings import Settings
from litdesk.services.library import AskRequest, Library, ask_library
from litdesk.services.synthesis import ReportRequest, make_report


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


def test_opened_libraries_are_closed_and_given_ones_kept(
    tmp_settings: Settings, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
):
    closed: list[Library] = []

    def close(self: Library) -> None:
        closed.append(self)

    monkeypatch.setattr(Library, "close", close)
    with pytest.raises(InputError):  # --top-k out of range, refused by the retrieval
        ask_library(tmp_settings, AskRequest("q", top_k=0))
    assert len(closed) == 1
    mine = Library(tmp_settings)
    with pytest.raises(InputError):
        ask_library(tmp_settings, AskRequest("q", top_k=0), library=mine)
    assert closed == [closed[0]]
    with pytest.raises(InputError):  # nothing to report
        make_report(tmp_settings, ReportRequest(whole_library=True), library=mine)
    assert len(closed) == 1
    with pytest.raises(InputError):
        make_report(tmp_settings, ReportRequest(whole_library=True))
    assert len(closed) == 2
