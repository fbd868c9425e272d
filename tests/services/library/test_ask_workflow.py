"""``app.library.ask``/``app.reports.build`` as one service call: typed requests refuse
bad scopes before anything is opened; the app's library is used, left open by the calls and
closed once by the app. The library area's other requests are validated once, too."""

from __future__ import annotations

import asyncio
import secrets
from pathlib import Path

import pytest

from litdesk._errors import InputError
from litdesk._settings import Settings
from litdesk.services.app import open_app_sync
from litdesk.services.library import (
    AdoptRequest,
    AskRequest,
    ChatQuestionRequest,
    ChatScopeRequest,
    Library,
    LibraryPageRequest,
    PageRequest,
)
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
            asyncio.run(app.library.ask(AskRequest("q", top_k=0), owner=app.owner))
        with pytest.raises(InputError):  # nothing to report
            app.reports.build(ReportRequest(whole_library=True), owner=app.owner)
        assert closed == []  # the calls leave the app's library open
    assert closed == [mine]  # the app closes it, once


SHA = "a" * 64
TOKEN = secrets.token_urlsafe(32)


@pytest.mark.parametrize(
    "make",
    [
        lambda: LibraryPageRequest(page=0),
        lambda: LibraryPageRequest(per_page=201),
        lambda: AdoptRequest(""),
        lambda: PageRequest("not-a-hash"),
        lambda: PageRequest(SHA, page=0),
        lambda: PageRequest(SHA, zoom=33),
        lambda: PageRequest(SHA, passage="x" * 4_001),
        lambda: ChatScopeRequest(TOKEN),  # neither papers nor the whole library
        lambda: ChatScopeRequest(TOKEN, ("a.pdf",), True),
        lambda: ChatScopeRequest(TOKEN, tuple(f"{n}.pdf" for n in range(201))),
        lambda: ChatScopeRequest("../../etc/passwd", whole_library=True),
        lambda: ChatQuestionRequest(TOKEN, " \n "),
        lambda: ChatQuestionRequest(TOKEN, "q" * 2_001),
    ],
)
def test_library_requests_refuse_bad_input(make):
    with pytest.raises(InputError):
        make()


def test_library_requests_normalise_once():
    assert ChatScopeRequest(TOKEN, (" a.pdf", "a.pdf ", "", "b.pdf")).papers == ("a.pdf", "b.pdf")
    assert ChatQuestionRequest(TOKEN, "  how \n  so? ").question == "how so?"
    assert PageRequest(SHA, passage="  two\n words ").passage == "two words"
    assert PageRequest(SHA, passage="   ").passage is None
