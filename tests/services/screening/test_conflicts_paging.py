"""The resolution queue one page at a time (issue 28): a Study of the 47 gambling-harms
records screened in pairs through the decision import (two named reviewers, most records in
conflict), revealed. Pages cut the queue in the order first decided without losing or
repeating a record; the filters list the conflicts waiting, those resolved (with the
resolution) or both; resolving or changing a resolution keeps the counts right (and equal to
the progress page's); bad paging input is a typed error."""

from __future__ import annotations

import csv
import io
import math
from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.services.screening._study import make_study

from litdesk import Settings
from litdesk.services.app import App, open_app_sync
from litdesk.services.screening import (
    CONFLICTS_PAGE,
    MAX_CONFLICTS_PAGE,
    ConfigureRequest,
    ConflictsRequest,
    ImportDecisionsRequest,
    ItemsRequest,
    ProgressRequest,
    ResolveRequest,
    ScreeningRequestError,
    StudyStageRequest,
)

TA = "title_abstract"
FT = "full_text"


def _verdicts(n: int) -> tuple[list[str], list[str]]:
    """Two reviewers' verdicts on n records: opposite, except every seventh (agreed)."""
    ana = ["include" if i % 3 else "exclude" for i in range(n)]
    bo = ["exclude" if v == "include" else "include" for v in ana]
    for i in range(0, n, 7):
        bo[i] = ana[i]
    return ana, bo


def _import(app: App, sid: str, who: str, keys: list[str], verdicts: list[str]) -> None:
    buf = io.StringIO()
    writer = csv.writer(buf)
    writer.writerow(["record_id", "decision", "reason", "note"])
    for i, (key, verdict) in enumerate(zip(keys, verdicts, strict=True)):
        reason = "wrong outcome" if verdict == "exclude" else ""
        writer.writerow([key, verdict, reason, f"{who} on record {i}" if i % 4 == 0 else ""])
    asked = ImportDecisionsRequest(sid, buf.getvalue().encode(), "pairs.csv", reviewer=who)
    assert app.screening.import_decisions(asked, owner=app.owner).recorded == len(keys)


@pytest.fixture
def pairs(tmp_settings: Settings, export: Path) -> Iterator[tuple[App, str, list[str]]]:
    """The Study, revealed, and its conflicting records in the order they were decided."""
    with open_app_sync(tmp_settings) as app:
        sid = make_study(app, "Pairs", [export])
        me = app.owner
        app.screening.configure(ConfigureRequest(sid, dual_review={TA: True}), owner=me)
        rows = app.screening.items(ItemsRequest(sid, page_size=500), owner=me).rows
        keys = [str(r["record_key"]) for r in rows]
        ana, bo = _verdicts(len(keys))
        _import(app, sid, "Ana Lima", keys, ana)
        _import(app, sid, "Bo Chen", keys, bo)
        blind = app.screening.conflicts(ConflictsRequest(sid), owner=me)
        assert blind.conflicts == () and blind.total == 0 and blind.waiting == 0
        app.screening.reveal(StudyStageRequest(sid, TA), owner=me)
        yield app, sid, [k for k, a, b in zip(keys, ana, bo, strict=True) if a != b]


def _pages(app: App, sid: str, status: str, per_page: int) -> list[list[str]]:
    first = app.screening.conflicts(
        ConflictsRequest(sid, TA, status, 1, per_page),  # type: ignore[arg-type]
        owner=app.owner,
    )
    out = []
    for page in range(1, first.pages + 1):
        view = app.screening.conflicts(
            ConflictsRequest(sid, TA, status, page, per_page),  # type: ignore[arg-type]
            owner=app.owner,
        )
        assert (view.page, view.pages, view.per_page) == (page, first.pages, per_page)
        out.append([c.record_key for c in view.conflicts])
    return out


def test_pages_cut_the_queue_without_losing_a_record(pairs: tuple[App, str, list[str]]) -> None:
    app, sid, conflicting = pairs
    assert len(conflicting) > CONFLICTS_PAGE  # more than one page
    first = app.screening.conflicts(ConflictsRequest(sid), owner=app.owner)
    assert first.per_page == CONFLICTS_PAGE and first.page == 1
    assert first.total == first.waiting == len(conflicting) and first.resolved == 0
    assert first.pages == math.ceil(len(conflicting) / CONFLICTS_PAGE)
    assert [c.record_key for c in first.conflicts] == conflicting[:CONFLICTS_PAGE]
    for per_page in (1, 7, 10, len(conflicting), MAX_CONFLICTS_PAGE):
        pages = _pages(app, sid, "unresolved", per_page)
        assert len(pages) == math.ceil(len(conflicting) / per_page)
        assert all(len(p) == per_page for p in pages[:-1]) and 0 < len(pages[-1]) <= per_page
        assert [k for p in pages for k in p] == conflicting  # in order, none twice or lost
    # a page past the last gives the last (a record resolved from the last page shrinks it)
    past = app.screening.conflicts(ConflictsRequest(sid, TA, page=10_000), owner=app.owner)
    assert past.page == past.pages == first.pages
    assert [c.record_key for c in past.conflicts] == _pages(app, sid, "unresolved", 25)[-1]
    # each row: both reviewers by name, their reasons and notes, no resolution yet
    row = first.conflicts[0].to_dict()
    assert [d["reviewer_name"] for d in row["decisions"]] == ["Ana Lima", "Bo Chen"]  # type: ignore[index]
    assert {d["verdict"] for d in row["decisions"]} == {"include", "exclude"}  # type: ignore[union-attr]
    assert row["status"] == "conflict" and row["resolution"] is None
    decided = [d for c in first.conflicts for d in c.decisions]
    noted = [d for d in decided if d["note"]]
    assert noted and all(str(d["note"]).startswith(str(d["reviewer"])) for d in noted)
    excluded = [d for d in decided if d["verdict"] == "exclude"]
    assert excluded and all(d["reason"] == "wrong outcome" for d in excluded)


def test_filters_and_counts_through_resolutions(pairs: tuple[App, str, list[str]]) -> None:
    app, sid, conflicting = pairs
    me = app.owner
    settled = [conflicting[1], conflicting[4], conflicting[-1]]
    for key, verdict in zip(settled, ("include", "exclude", "maybe"), strict=True):
        reason = "wrong outcome" if verdict == "exclude" else ""
        app.screening.resolve(
            ResolveRequest(sid, TA, key, verdict, reason, note="settled at the meeting"), owner=me
        )
    left = [k for k in conflicting if k not in settled]
    waiting = app.screening.conflicts(ConflictsRequest(sid, per_page=100), owner=me)
    assert [c.record_key for c in waiting.conflicts] == left
    assert (waiting.total, waiting.waiting, waiting.resolved) == (len(left), len(left), 3)
    progress = app.screening.progress(ProgressRequest(sid), owner=me)
    assert progress.all is not None and progress.all["conflicts"] == waiting.waiting
    resolved = app.screening.conflicts(ConflictsRequest(sid, status="resolved"), owner=me)
    assert [c.record_key for c in resolved.conflicts] == settled  # the order first decided
    assert resolved.total == resolved.resolved == 3 and resolved.waiting == len(left)
    for row, verdict in zip(resolved.conflicts, ("include", "exclude", "maybe"), strict=True):
        assert row.status == "resolved" and row.resolution is not None
        assert row.resolution["verdict"] == verdict and row.resolution["reviewer"] == me
        assert row.resolution["note"] == "settled at the meeting"
        assert len(row.decisions) == 2  # both originals beside it
    both = _pages(app, sid, "all", 10)
    assert [k for p in both for k in p] == conflicting
    # changing a resolution changes no count; the record stays where it was
    app.screening.resolve(ResolveRequest(sid, TA, settled[0], "exclude", "wrong outcome"), owner=me)
    again = app.screening.conflicts(ConflictsRequest(sid, status="resolved"), owner=me)
    assert [c.record_key for c in again.conflicts] == settled
    assert (again.waiting, again.resolved) == (len(left), 3)
    assert again.conflicts[0].resolution is not None
    assert again.conflicts[0].resolution["verdict"] == "exclude"
    # the stage is a filter too: full text has its own (empty) queue
    ft = app.screening.conflicts(ConflictsRequest(sid, FT, "all"), owner=me)
    assert ft.stage == FT and ft.conflicts == ()
    assert (ft.total, ft.waiting, ft.resolved) == (0, 0, 0)
    # the reveal counts the queue as the page does
    assert app.screening.reveal(StudyStageRequest(sid, TA), owner=me).conflicts == len(left)


@pytest.mark.parametrize(
    ("fields", "code"),
    [
        ({"page": 0}, "bad_page"),
        ({"page": -3}, "bad_page"),
        ({"page": True}, "bad_page"),
        ({"page": "2"}, "bad_page"),
        ({"per_page": 0}, "bad_page"),
        ({"per_page": MAX_CONFLICTS_PAGE + 1}, "bad_page"),
        ({"per_page": 2.5}, "bad_page"),
        ({"status": "open"}, "bad_status"),
        ({"stage": "abstract"}, "bad_stage"),
    ],
)
def test_bad_paging_input_is_a_typed_error(fields: dict[str, object], code: str) -> None:
    with pytest.raises(ScreeningRequestError) as refused:
        ConflictsRequest("a Study", **fields)  # type: ignore[arg-type]
    assert refused.value.code == code
    if fields.get("per_page") == MAX_CONFLICTS_PAGE + 1:
        assert f"1 to {MAX_CONFLICTS_PAGE}" in refused.value.message
