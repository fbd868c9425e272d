"""The desk: one method per use case of the web workspace, over services opened once.

Built by :func:`litdesk.services.app.open_app` over the app's providers (the store, one
provider transport, optionally answering from a replay cassette, and the fused search)
and its live-search registry. Search methods are async;
store methods are plain (a web face runs them in its thread pool). Recent search runs
are kept in the store by owner and id (bounded per owner and by age) so that saving a
selection refers to papers litdesk itself retrieved (a client never sends paper records),
whichever worker of a team server ran the search.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any, Final, Literal

from litdesk._clock import SYSTEM_CLOCK, Clock
from litdesk._errors import InputError, LitdeskError, NotFoundError
from litdesk._settings import Settings
from litdesk.adapters.store import (
    Store,
    get_recent_run,
    remember_run,
)
from litdesk.adapters.store import accounts as access
from litdesk.core.query import QuerySyntaxError, parse_query
from litdesk.core.runs import RunDefinition, RunInvalid, SearchRun, read_run
from litdesk.services.providers import Providers
from litdesk.services.search import (
    export_run,
    load_run,
    make_definition,
    run_document,
    save_run,
)
from litdesk.services.studies import EXPORT_MEDIA, Export, StudyView, study_rows, study_view
from litdesk.services.workspace import (
    Workspace,
    ris_text,
)

from ._progress import LiveRegistry
from ._views import (
    QueryCheck,
    SearchView,
    SelectionResult,
)

__all__ = [
    "EXPORT_MEDIA",
    "MAX_SELECTION",
    "Desk",
    "SearchForm",
]

MAX_SELECTION: Final = 20
MAX_QUERY_CHARS: Final = 2_000
Mode = Literal["keyword", "semantic", "discovery"]
QueryField = Literal["all", "title", "abstract", "author"]
_FIELDS: Final[dict[str, QueryField]] = {
    "all": "all",
    "title": "title",
    "abstract": "abstract",
    "author": "author",
}


def study_dicts(ws: Workspace) -> list[dict[str, Any]]:
    """The Studies ``ws``'s owner may read, for the views that offer "add to a Study"."""
    return [dict(row) for row in study_rows(ws)]


class DeskInputError(InputError):
    """A request to the desk does not fit (selection size, unknown run, bad choice)."""

    default_code = "desk_input"


@dataclass(frozen=True, slots=True)
class SearchForm:
    """The search form, validated by the face's request model."""

    query: str
    mode: Mode = "keyword"
    providers: tuple[str, ...] = ()
    field: str = "all"
    type: str = "all"
    year_from: int | None = None
    year_to: int | None = None
    open_access: bool = False
    include_retracted: bool = False
    sort: str = "relevance"
    cursor: str | None = None
    page: int = 1
    limit: int = 20


@dataclass(slots=True)
class Desk:
    """The web workspace's use cases for one owner: ``local`` (single-user), or a team
    account whose rights the workspace checks on every record."""

    providers: Providers
    # searches the search page follows live (in the store; one registry per app, shared
    # by the owners' desks)
    live: LiveRegistry
    owner: str = "local"
    #: what recent runs' retention and live searches read (tests: a ManualClock)
    clock: Clock = SYSTEM_CLOCK

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
        """A desk over the same app acting as ``owner`` (whose recent runs it reads),
        sharing this desk's live searches (those this process runs stop with it)."""
        return Desk(self.providers, self.live, owner, self.clock)

    # --- search ------------------------------------------------------------------------

    def check_query(self, query: str, field_name: str = "all") -> QueryCheck:
        """Validate a query as the user types: the error and its 1-based position."""
        if len(query) > MAX_QUERY_CHARS:
            return QueryCheck(
                False,
                f"a query is at most {MAX_QUERY_CHARS:,} characters",
                "too_long",
                MAX_QUERY_CHARS + 1,
                len(query),
            )
        try:
            if field_name not in _FIELDS:
                raise DeskInputError(f"field is one of {', '.join(_FIELDS)}", code="field")
            parse_query(query, field=_FIELDS[field_name])
        except QuerySyntaxError as exc:
            return QueryCheck(False, exc.reason, exc.code, exc.position, exc.end)
        return QueryCheck(True)

    def definition(self, form: SearchForm) -> RunDefinition:
        """The run definition of a search form, validated (query syntax with its position,
        years, cursor) — shared by :meth:`search` and the live search."""
        check = self.check_query(form.query, form.field)
        if not check.ok:
            raise DeskInputError(
                f"{check.message} (at character {check.position})",
                code=check.code,
                position=check.position,
                end=check.end,
            )
        if form.year_from and form.year_to and form.year_from > form.year_to:
            raise DeskInputError("the first year is after the last year", code="years")
        if form.cursor is not None and form.mode != "keyword":
            raise DeskInputError("a cursor pages keyword searches only", code="cursor")
        try:
            return make_definition(
                form.query,
                mode=form.mode,
                providers=list(form.providers) or None,
                filters={
                    "field": form.field,
                    "type": form.type,
                    "year_from": form.year_from,
                    "year_to": form.year_to,
                    "open_access": form.open_access,
                    "include_retracted": form.include_retracted,
                    "sort": form.sort,
                },
                limit=form.limit,
            )
        except RunInvalid as exc:
            raise DeskInputError(exc.message, code="definition") from None

    async def search(self, form: SearchForm) -> SearchView:
        """Run (or reuse) the search and remember the run for selection actions."""
        definition = self.definition(form)
        run = await self.providers.fused_search(definition, cursor=form.cursor, owner=self.owner)
        await asyncio.to_thread(self._remember, run)
        return SearchView(
            run, page=form.page, cursor=form.cursor, studies=study_dicts(self.workspace)
        )

    def _remember(self, run: SearchRun) -> None:
        """Keep ``run`` among the owner's recent runs in the store (any worker reads it).
        A run in which no lane succeeded holds no paper to select, keep or read, and is
        not kept (it could not be read back as a run)."""
        if not any(lane.status == "ok" for lane in run.lanes):
            return
        remember_run(self.store, self.owner, run.id, run_document(run), now=self.clock.now())

    def _recent(self, run_id: str) -> SearchRun:
        """The owner's recent run ``run_id``; another owner's, an expired or an unknown run
        is not open (``run_not_open``)."""
        return read_run(get_recent_run(self.store, self.owner, run_id, now=self.clock.now()))

    # --- search runs in Studies -----------------------------------------------------------

    def save_run(self, run_id: str, study: str) -> StudyView:
        """Keep a run shown here (immutable) in a Study; a run kept before is attached."""
        run = self._recent(run_id)
        self.workspace.study(study, "write")  # a viewer (or a stranger) keeps nothing there
        try:
            load_run(self.store, run.id)
        except NotFoundError:
            save_run(self.store, run, owner=self.owner, study=study)  # refuses all-failed runs
        else:
            self.workspace.attach_search_run(study, run.id)
        return study_view(self.workspace, study)

    def export_run(self, run_id: str, fmt: str) -> Export:
        """A kept run as its JSON manifest, RIS or PRISMA-S Markdown."""
        media = {
            "json": ("application/json", "search.json"),
            "ris": (EXPORT_MEDIA["ris"][0], "search.ris"),
            "prisma-md": ("text/markdown; charset=utf-8", "prisma-s.md"),
        }
        if fmt not in media:
            raise DeskInputError(f"run export format is one of {', '.join(media)}", code="format")
        with self.store.read() as conn:
            access.require_run(conn, self.owner, run_id)
        run = load_run(self.store, run_id)
        body = export_run(run, fmt).encode("utf-8")
        return Export(body, media[fmt][1], media[fmt][0], len(run.hits))

    # --- selection -----------------------------------------------------------------------

    def save_selection(
        self,
        run_id: str,
        paper_ids: list[str],
        *,
        study: str | None = None,
        new_study: str | None = None,
    ) -> SelectionResult:
        """Save up to 20 papers of a search run, optionally into a Study (existing or
        new). Conflicted hits are refused; each paper's failure is reported beside the
        successes."""
        ids = list(dict.fromkeys(paper_ids))
        if not ids:
            raise DeskInputError("select at least one paper", code="empty_selection")
        if len(ids) > MAX_SELECTION:
            raise DeskInputError(
                f"a selection holds at most {MAX_SELECTION} papers", code="selection_size"
            )
        if study and new_study:
            raise DeskInputError(
                "choose an existing Study or a new one, not both", code="study_choice"
            )
        run = self._recent(run_id)
        hits = {h.paper.id: h for h in run.hits}
        ws = self.workspace
        study_row = None
        if new_study:
            study_row = ws.create_study(new_study)
        elif study:
            study_row = ws.study(study)
        saved: list[str] = []
        failed: list[dict[str, str]] = []
        created = 0
        for pid in ids:
            hit = hits.get(pid)
            if hit is None:
                failed.append({"id": pid[:200], "reason": "not in this search run"})
                continue
            if hit.conflicts:
                failed.append(
                    {"id": pid, "reason": "identifier conflict: " + "; ".join(hit.conflicts)}
                )
                continue
            try:
                result = ws.save_paper(hit.paper, study=study_row.id if study_row else None)
            except LitdeskError as exc:
                failed.append({"id": pid, "reason": exc.message})
                continue
            saved.append(result.paper.id)
            created += int(result.created)
        return SelectionResult(
            saved,
            created,
            failed,
            study_row.id if study_row else None,
            study_row.name if study_row else None,
        )

    def export_selection(self, run_id: str, paper_ids: list[str]) -> Export:
        """RIS of selected (non-conflicted) papers of a search run."""
        run = self._recent(run_id)
        wanted = set(paper_ids[:MAX_SELECTION])
        papers = [h.paper for h in run.hits if h.paper.id in wanted and not h.conflicts]
        return Export(
            ris_text(papers).encode("utf-8"), "selection.ris", EXPORT_MEDIA["ris"][0], len(papers)
        )
