"""The Study page lists its papers a page at a time (issue 34): the view carries the total
and where the page is, pages do not overlap and together hold every paper, a page past the
last shows the last, and the full-text counts stay over the whole Study; on SQLite and
PostgreSQL."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.adapters.store.conftest import pg_schema, store_url

from litdesk import Settings
from litdesk._errors import InputError
from litdesk.core.records import make_paper
from litdesk.services.app import App, open_app_sync
from litdesk.services.studies import STUDY_MAX_PAGE, StudyRequest

__all__ = ["pg_schema", "store_url"]


@pytest.fixture
def app(store_url: str, tmp_path: Path) -> Iterator[App]:
    settings = Settings(data_dir=tmp_path / "data", database_url=store_url)
    with open_app_sync(settings) as a:
        yield a


def _study(app: App, n: int) -> str:
    ws = app.workspace()
    study = ws.create_study("Paged review")
    papers = [make_paper(pmid=str(1000 + i), title=f"Trial number {i}") for i in range(n)]
    ws.save_papers(papers, study=study.id)
    return study.id


def test_pages_hold_every_paper_once(app: App) -> None:
    sid = _study(app, 7)
    seen: list[str] = []
    for page in (1, 2, 3):
        view = app.studies.study(StudyRequest(sid, page, 3), owner="local").to_dict()
        assert (view["papers_total"], view["page"], view["pages"], view["per_page"]) == (
            7,
            page,
            3,
            3,
        )
        seen += [str(p["id"]) for p in view["papers"]]  # type: ignore[attr-defined]
        assert view["retrieval"]["counts"]["papers"] == 7  # type: ignore[index]
        listed = set(view["retrieval"]["papers"])  # type: ignore[index]
        assert listed == {str(p["id"]) for p in view["papers"]}  # type: ignore[attr-defined]
    assert len(seen) == len(set(seen)) == 7
    past = app.studies.study(StudyRequest(sid, 9, 3), owner="local").to_dict()
    assert past["page"] == 3 and len(past["papers"]) == 1  # type: ignore[arg-type]
    whole = app.studies.study(sid, owner="local").to_dict()  # a bare ref: the first page
    assert len(whole["papers"]) == 7 and whole["pages"] == 1  # type: ignore[arg-type]


def test_an_empty_study_has_one_page(app: App) -> None:
    sid = app.workspace().create_study("Empty").id
    view = app.studies.study(StudyRequest(sid, 4), owner="local").to_dict()
    assert (view["papers"], view["papers_total"], view["page"], view["pages"]) == ([], 0, 1, 1)


@pytest.mark.parametrize(("page", "per_page"), [(0, 50), (1, 0), (1, STUDY_MAX_PAGE + 1)])
def test_bad_paging_is_refused(page: int, per_page: int) -> None:
    with pytest.raises(InputError):
        StudyRequest("Paged review", page, per_page)


def test_a_working_set_page_is_its_slice_of_the_whole_working_set(
    app: App, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A page of the working set reads the documents of its own groups' records only: each
    page is the same groups, with the same members in the same order, as that slice of the
    whole working set (groups of two records and records of their own), and the total is
    the whole set's; a page naming more records than one statement reads (any number here)
    reads every record, with the same page."""
    from litdesk.services.dedup import _working_set, working_groups, working_page

    def ris(path: Path, numbers: list[int]) -> Path:
        lines: list[str] = []
        for n in numbers:
            lines += ["TY  - JOUR", f"TI  - Trial number {n}", f"DO  - 10.5555/t.{n}", "ER  - "]
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        return path

    first = ris(tmp_path / "first.ris", list(range(7)))
    again = ris(tmp_path / "again.ris", [0, 2, 4])  # the same DOIs: groups of two
    ws = app.workspace()
    sid = ws.create_study("Working set pages").id
    ws.save_file(first, study=sid)
    ws.save_file(again, study=sid)

    def shape(groups: list[_working_set.WorkingGroup]) -> list[tuple[str, list[str]]]:
        return [(g.key, [m.key for m in g.members]) for g in groups]

    whole = shape(working_groups(app.store, sid))
    assert len(whole) == 7 and sorted(len(m) for _, m in whole) == [1] * 4 + [2] * 3
    for keys_at_once in (5_000, 1):
        monkeypatch.setattr(_working_set, "_PAGE_KEYS", keys_at_once)
        for offset, limit in ((0, 3), (3, 3), (6, 3), (2, 50), (9, 3)):
            page, total = working_page(app.store, sid, offset, limit)
            assert total == 7
            assert shape(page) == whole[offset : offset + limit]
