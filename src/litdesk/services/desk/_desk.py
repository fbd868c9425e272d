"""The desk: one method per use case of the web workspace, over services opened once.

Built by :func:`litdesk.services.app.open_app` over the app's providers and its search
area (whose recent runs the reader and the selection tools read); the searches, live
searches, selections of a run and saved runs are the search area's
(:class:`litdesk.services.search.SearchArea`). Store methods are plain (a web face runs
them in its thread pool).
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Final

from litdesk._clock import SYSTEM_CLOCK, Clock
from litdesk._errors import InputError, LitdeskError, NotFoundError
from litdesk._settings import Settings
from litdesk.adapters.formats import dumps
from litdesk.adapters.store import READING_STATUSES, Store, repo
from litdesk.adapters.store import accounts as access
from litdesk.core.saved import filter_papers
from litdesk.services.providers import Providers
from litdesk.services.search import Export, SearchArea, load_run
from litdesk.services.workspace import Workspace, notebook_markdown, now_iso

from ._import_run import study_import
from ._listings import Listings
from ._reader import ReaderDesk
from ._views import NotebookView, SavedView, StudiesView, StudyView

__all__ = [
    "EXPORT_MEDIA",
    "SAVED_CAP",
    "SAVED_PAGE",
    "Desk",
]

SAVED_CAP: Final = 5_000
SAVED_PAGE: Final = 50
EXPORT_MEDIA: Final = {
    "ris": ("application/x-research-info-systems", "ris"),
    "csv": ("text/csv; charset=utf-8", "csv"),
    "bibtex": ("application/x-bibtex", "bib"),
}


class DeskInputError(InputError):
    """A request to the desk does not fit (selection size, unknown run, bad choice)."""

    default_code = "desk_input"


@dataclass(slots=True)
class Desk:
    """The web workspace's use cases for one owner: ``local`` (single-user), or a team
    account whose rights the workspace checks on every record."""

    providers: Providers
    # the search area (its recent runs: what the reader and the selection tools read)
    search: SearchArea
    # citation listings shown for saving (in the store; one per app, shared by the desks)
    listings: Listings
    owner: str = "local"
    #: what recent runs' retention, live searches and listings read (tests: a ManualClock)
    clock: Clock = SYSTEM_CLOCK
    # validated saved papers by id with their stored text, reused while the text is unchanged
    _papers: dict[str, tuple[str, repo.PaperRow]] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def settings(self) -> Settings:
        return self.providers.settings

    @property
    def store(self) -> Store:
        return self.providers.store

    @property
    def workspace(self) -> Workspace:
        return Workspace(self.store, owner=self.owner)

    def for_owner(self, owner: str) -> Desk:
        """A desk over the same app acting as ``owner`` (whose recent runs it reads)."""
        return Desk(self.providers, self.search, self.listings, owner, self.clock)

    # --- saved papers ----------------------------------------------------------------------

    @staticmethod
    def _check_status(status: str | None) -> None:
        if status is not None and status not in READING_STATUSES:
            raise DeskInputError(
                f"reading status is one of {', '.join(READING_STATUSES)}", code="status"
            )

    def _saved_rows(
        self, text: str, study: str | None, status: str | None
    ) -> tuple[list[repo.PaperRow], int, bool]:
        self._check_status(status)
        study_id = self.workspace.study(study).id if study else None
        # one listing at a time reuses and refreshes the records
        with self.store.read() as conn, self._lock:
            if len(self._papers) > 4 * SAVED_CAP:
                self._papers.clear()
            rows = repo.list_papers_reusing(
                conn,
                self._papers,
                study_id=study_id,
                status=status,
                limit=SAVED_CAP + 1,
                visible_to=self.owner,
            )
        capped = len(rows) > SAVED_CAP
        rows = rows[:SAVED_CAP]
        total = len(rows)
        if text.strip():
            by_id = {r.paper.id: r for r in rows}
            rows = [by_id[p.id] for p in filter_papers([r.paper for r in rows], text)]
        return rows, total, capped

    def saved(
        self, *, text: str = "", study: str | None = None, status: str | None = None, page: int = 1
    ) -> SavedView:
        """One page of saved papers. Without a text filter the page comes from the store
        (count + one page); with one, the newest :data:`SAVED_CAP` are filtered here."""
        if text.strip():
            rows, total, capped = self._saved_rows(text, study, status)
            matched = len(rows)
            pages = max(1, -(-matched // SAVED_PAGE))
            page = min(max(1, page), pages)
            shown = rows[(page - 1) * SAVED_PAGE : page * SAVED_PAGE]
        else:
            self._check_status(status)
            study_id = self.workspace.study(study).id if study else None
            with self.store.read() as conn:
                total = matched = repo.count_papers(
                    conn, study_id=study_id, status=status, visible_to=self.owner
                )
                pages = max(1, -(-matched // SAVED_PAGE))
                page = min(max(1, page), pages)
                with self._lock:
                    shown = repo.list_papers_reusing(
                        conn,
                        self._papers,
                        study_id=study_id,
                        status=status,
                        limit=SAVED_PAGE,
                        offset=(page - 1) * SAVED_PAGE,
                        visible_to=self.owner,
                    )
            capped = False
        return SavedView(
            rows=[
                {
                    "id": r.paper.id,
                    "title": r.paper.title,
                    "authors": list(r.paper.authors[:6]),
                    "more_authors": max(0, len(r.paper.authors) - 6),
                    "journal": r.paper.journal,
                    "year": r.paper.year,
                    "doi": r.paper.doi,
                    "status": r.status,
                    "retracted": r.paper.retracted,
                }
                for r in shown
            ],
            total_saved=total,
            matched=matched,
            cap=SAVED_CAP,
            capped=capped,
            page=page,
            pages=pages,
            filters={"text": text, "study": study, "status": status},
            studies=self.studies().studies,
        )

    def export_saved(
        self, fmt: str, *, text: str = "", study: str | None = None, status: str | None = None
    ) -> Export:
        """The filtered saved list as RIS, CSV or BibTeX."""
        if fmt not in EXPORT_MEDIA:
            raise DeskInputError(
                f"export format is one of {', '.join(EXPORT_MEDIA)}", code="format"
            )
        rows, _total, _capped = self._saved_rows(text, study, status)
        papers = [r.paper for r in rows]
        media, ext = EXPORT_MEDIA[fmt]
        return Export(dumps(papers, fmt).encode("utf-8"), f"saved-papers.{ext}", media, len(papers))

    # --- reader and evidence (services/desk/_reader.py) -----------------------------------

    @property
    def reading(self) -> ReaderDesk:
        """The reader's use cases (abstract, full text, highlights, evidence)."""
        owner = self.owner
        return ReaderDesk(
            self.providers,
            owner,
            lambda paper_id: self.search.paper_in_runs(paper_id, owner=owner),
            lambda run: self.search.remember(run, owner=owner),
            lambda: self.studies().studies,
        )

    # --- the review notebook ---------------------------------------------------------------

    def notebook(
        self, *, text: str = "", kind: str | None = None, study: str | None = None
    ) -> NotebookView:
        """Highlights and comments across papers, newest last; filtered by words (in the
        passage, comment or paper title) and kind."""
        if kind not in (None, "highlight", "comment"):
            raise DeskInputError("kind is highlight or comment", code="kind")
        notes, problems = self.workspace.notes(study=study or None)
        titles = self._titles({n.annotation.paper_id for n in notes})
        needle = " ".join(text.casefold().split())
        rows = []
        for n in notes:
            d = n.to_dict()
            d["paper_title"] = titles.get(n.annotation.paper_id, "")
            if kind and (d["kind"] == "comment") != (kind == "comment"):
                continue
            hay = " ".join(
                str(x)
                for x in (d.get("comment"), (d.get("anchor") or {}).get("text"), d["paper_title"])
                if x
            ).casefold()
            if needle and needle not in " ".join(hay.split()):
                continue
            rows.append(d)
        return NotebookView(
            rows,
            len(notes),
            problems,
            {"text": text, "kind": kind, "study": study},
            self.studies().studies,
        )

    def export_notebook(self, *, study: str | None = None) -> Export:
        """The review notebook (Markdown): highlights, comments and evidence per paper."""
        notes, _p = self.workspace.notes(study=study or None)
        evidence, _q = self.workspace.evidence(study=study or None)
        ids = {n.annotation.paper_id for n in notes} | {e.evidence.paper_id for e in evidence}
        with self.store.read() as conn:
            papers = [repo.get_paper(conn, pid).paper for pid in sorted(ids)]
        title = (
            f"Review notebook · {self.workspace.study(study).name}" if study else "Review notebook"
        )
        body = notebook_markdown(title, papers, notes, evidence).encode("utf-8")
        return Export(
            body, "review-notebook.md", "text/markdown; charset=utf-8", len(notes) + len(evidence)
        )

    def _titles(self, ids: set[str]) -> dict[str, str]:
        out: dict[str, str] = {}
        with self.store.read() as conn:
            for pid in ids:
                try:
                    out[pid] = repo.get_paper(conn, pid).paper.title
                except NotFoundError:
                    out[pid] = ""
        return out

    # --- imports ------------------------------------------------------------------------------

    def import_into_study(self, study: str, files: list[tuple[str, bytes]]) -> dict[str, object]:
        """Export files into a Study within the request (see :func:`study_import`, which
        the ``imports.study`` job runs too): a refused file is reported beside the
        imported ones with its reason."""
        return study_import(self.workspace, study, files)

    # --- studies -----------------------------------------------------------------------------

    def studies(self) -> StudiesView:
        return StudiesView(
            [
                {
                    "id": s.id,
                    "name": s.name,
                    "description": s.description,
                    "created_at": s.created_at,
                    "papers": n,
                }
                for s, n in self.workspace.studies()
            ]
        )

    def create_study(self, name: str, description: str | None = None) -> StudyView:
        row = self.workspace.create_study(name, description or None)
        return self.study(row.id)

    def rename_study(self, ref: str, name: str) -> StudyView:
        name = " ".join(name.split())
        if not name or len(name) > 200:
            raise DeskInputError("a Study name is 1 to 200 characters", code="bad_name")
        with self.store.write() as conn:
            access.require_study(
                conn, self.owner, repo.get_study(conn, ref, account=self.owner).id, "owner"
            )
            row = repo.rename_study(conn, ref, name, account=self.owner)
            access.add_history(conn, row.id, self.owner, "study_renamed", name, now_iso())
        return self.study(row.id)

    def study(self, ref: str) -> StudyView:
        """A Study's papers and counts, with its kept search runs (their definitions, so a
        page can restore one into the search form)."""
        summary = self.workspace.study_summary(ref)
        runs = []
        for run_id in summary["search_runs"][:200]:
            try:
                run = load_run(self.store, run_id)
            except LitdeskError as exc:
                runs.append({"id": run_id, "problem": exc.message})
                continue
            runs.append(
                {
                    "id": run.id,
                    "executed_at": run.executed_at,
                    "definition": run.definition.to_dict(),
                    "hits": len(run.hits),
                    "problem": None,
                }
            )
        return StudyView(summary | {"runs": runs})
