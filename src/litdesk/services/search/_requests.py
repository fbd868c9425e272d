"""The search area's requests, each validated once in ``__post_init__`` — the CLI and the
web build the same objects (the web's pydantic models only parse types), so the rules of a
search form (query syntax with its position, choices, years, cursor, limit) live here only.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final, Literal, cast

from litdesk._errors import InputError
from litdesk.core.providers import DECLARED, DEMO_PROVIDER, PROVIDERS
from litdesk.core.query import QuerySyntaxError, parse_query
from litdesk.core.runs import RunDefinition, RunInvalid
from litdesk.core.search import SearchFilters
from litdesk.core.trace import SearchRequest as ProviderRequest
from litdesk.core.trace import validate_request
from litdesk.core.vocab import Expansion

from ._fused import make_definition

__all__ = [
    "EXPORTS",
    "FIELDS",
    "MAX_CURSOR_CHARS",
    "MAX_PAGE",
    "MAX_QUERY_CHARS",
    "MAX_SELECTION",
    "MODES",
    "SORTS",
    "TYPES",
    "QueryCheckRequest",
    "QueryField",
    "RunExportRequest",
    "SaveSelectionRequest",
    "SearchInputError",
    "SearchRequest",
    "TraceRequest",
    "in_workspace",
    "query_problem",
]

Mode = Literal["keyword", "semantic", "discovery"]
QueryField = Literal["all", "title", "abstract", "author"]
MODES: Final[tuple[Mode, ...]] = ("keyword", "semantic", "discovery")
FIELDS: Final[tuple[QueryField, ...]] = ("all", "title", "abstract", "author")
TYPES: Final = ("all", "review", "preprint", "journal")
SORTS: Final = ("relevance", "newest", "cited")
#: the formats a kept run is exported in (see ``_reports``)
EXPORTS: Final = ("json", "ris", "prisma-md", "prisma-html")
MAX_QUERY_CHARS: Final = 2_000
MAX_CURSOR_CHARS: Final = 2_000
MAX_PAGE: Final = 1_000
MAX_LIMIT: Final = 100
MAX_SELECTION: Final = 20


class SearchInputError(InputError):
    """A search, a selection or a run export does not fit (a choice, the query's syntax,
    years, cursor, limit, selection size, format); ``code`` says which rule."""

    default_code = "search_input"


def _choice(name: str, value: str, allowed: Sequence[str]) -> None:
    if value not in allowed:
        raise SearchInputError(
            f"{name} must be one of {', '.join(allowed)}, not {value[:40]!r}", code=name
        )


@dataclass(frozen=True, slots=True)
class QueryProblem:
    """Why a query does not parse: the message, its code and the 1-based span."""

    message: str
    code: str
    position: int
    end: int


def query_problem(query: str, field_name: QueryField) -> QueryProblem | None:
    """The query's first problem (too long, or its syntax), ``None`` when it parses."""
    if len(query) > MAX_QUERY_CHARS:
        return QueryProblem(
            f"a query is at most {MAX_QUERY_CHARS:,} characters",
            "too_long",
            MAX_QUERY_CHARS + 1,
            len(query),
        )
    try:
        parse_query(query, field=field_name)
    except QuerySyntaxError as exc:
        return QueryProblem(exc.reason, exc.code, exc.position, exc.end)
    return None


@dataclass(frozen=True, slots=True)
class QueryCheckRequest:
    """A query to check as the user types, in a search field."""

    query: str
    field: str = "all"

    def __post_init__(self) -> None:
        _choice("field", self.field, FIELDS)

    @property
    def query_field(self) -> QueryField:
        return cast(QueryField, self.field)


@dataclass(frozen=True, slots=True)
class SearchRequest:
    """One search (the web's form and API, ``litdesk search``): validated on construction;
    :attr:`definition` is the run definition it describes.

    ``page`` chooses the page of a bounded-discovery run's frozen hits; ``save`` keeps the
    run in the store (``study``: and attaches it to that Study) when a lane succeeded;
    ``use_cache`` false skips the search cache; ``expansions`` are the subjects picked
    into the query from a vocabulary (provenance the run, manifest and PRISMA-S keep)."""

    query: str
    mode: str = "keyword"
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
    save: bool = False
    study: str | None = None
    use_cache: bool = True
    expansions: tuple[Expansion, ...] = ()
    #: Europe PMC's vocabulary expansion: ``None`` leaves it to Europe PMC (not sent)
    synonyms: bool | None = None
    definition: RunDefinition = dataclasses.field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if not self.query.strip():
            raise SearchInputError("type a query", code="empty")
        if self.synonyms and self.mode == "semantic":
            raise SearchInputError(
                "vocabulary expansion is for keyword and discovery searches, not a question",
                code="synonyms",
            )
        _choice("mode", self.mode, MODES)
        _choice("field", self.field, FIELDS)
        _choice("type", self.type, TYPES)
        _choice("sort", self.sort, SORTS)
        unknown = [p for p in self.providers if p not in DECLARED]
        if unknown:
            raise SearchInputError(f"unknown provider {unknown[0][:40]!r}", code="provider")
        problem = query_problem(self.query, cast(QueryField, self.field))
        if problem is not None:
            raise SearchInputError(
                f"{problem.message} (at character {problem.position})",
                code=problem.code,
                position=problem.position,
                end=problem.end,
            )
        if (
            self.year_from is not None
            and self.year_to is not None
            and self.year_from > self.year_to
        ):
            raise SearchInputError("the first year is after the last year", code="years")
        if not 1 <= self.limit <= MAX_LIMIT:
            raise SearchInputError(f"limit must be 1 to {MAX_LIMIT}", code="limit")
        if not 1 <= self.page <= MAX_PAGE:
            raise SearchInputError(f"page must be 1 to {MAX_PAGE}", code="page")
        if self.cursor is not None:
            if len(self.cursor) > MAX_CURSOR_CHARS:
                raise SearchInputError(
                    f"a cursor is at most {MAX_CURSOR_CHARS:,} characters", code="cursor"
                )
            if self.mode != "keyword":
                raise SearchInputError("a cursor pages keyword searches only", code="cursor")
        if self.study is not None and not self.study.strip():
            raise SearchInputError("name the Study to save the run into", code="study")
        try:
            definition = make_definition(
                self.query,
                mode=self.mode,
                providers=list(dict.fromkeys(self.providers)) or None,
                filters={
                    "field": self.field,
                    "type": self.type,
                    "year_from": self.year_from,
                    "year_to": self.year_to,
                    "open_access": self.open_access,
                    "include_retracted": self.include_retracted,
                    "sort": self.sort,
                }
                | ({"synonyms": self.synonyms} if self.synonyms is not None else {}),
                limit=self.limit,
                expansions=self.expansions,
            )
        except RunInvalid as exc:
            raise SearchInputError(exc.message, code="definition") from None
        if self.synonyms and "europepmc" not in definition.providers:
            raise SearchInputError(
                "vocabulary expansion (synonyms) is a Europe PMC option: include Europe PMC "
                "among the databases, or leave it off",
                code="synonyms",
            )
        object.__setattr__(self, "definition", definition)


@dataclass(frozen=True, slots=True)
class SaveSelectionRequest:
    """Up to :data:`MAX_SELECTION` papers of a search run to save, optionally into an
    existing Study (``study``) or a new one (``new_study``)."""

    run_id: str
    paper_ids: tuple[str, ...]
    study: str | None = None
    new_study: str | None = None

    def __post_init__(self) -> None:
        ids = tuple(dict.fromkeys(self.paper_ids))
        if not ids:
            raise SearchInputError("select at least one paper", code="empty_selection")
        if len(ids) > MAX_SELECTION:
            raise SearchInputError(
                f"a selection holds at most {MAX_SELECTION} papers", code="selection_size"
            )
        if self.study and self.new_study:
            raise SearchInputError(
                "choose an existing Study or a new one, not both", code="study_choice"
            )
        object.__setattr__(self, "paper_ids", ids)


@dataclass(frozen=True, slots=True)
class RunExportRequest:
    """A kept run in one of :data:`~._reports.EXPORTS` (``json`` manifest, ``ris``,
    ``prisma-md``, ``prisma-html``)."""

    run_id: str
    format: str = "json"

    def __post_init__(self) -> None:
        if self.format not in EXPORTS:
            raise SearchInputError(
                f"run export format is one of {', '.join(EXPORTS)}, not {self.format[:40]!r}",
                code="format",
            )


@dataclass(frozen=True, slots=True)
class TraceRequest:
    """The per-provider trace of a search (``litdesk search --trace``): every sighting of
    each provider's lane, not deduplicated. :attr:`provider_request` is the validated
    request the providers get; ``include_raw`` keeps the raw response bodies."""

    query: str
    providers: tuple[str, ...] = PROVIDERS
    field: str = "all"
    type: str = "all"
    year_from: int | None = None
    year_to: int | None = None
    open_access: bool = False
    include_retracted: bool = False
    sort: str = "relevance"
    cursor: str | None = None
    limit: int = 20
    include_raw: bool = False
    use_cache: bool = True
    provider_request: ProviderRequest = dataclasses.field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        _choice("field", self.field, FIELDS)
        _choice("type", self.type, TYPES)
        _choice("sort", self.sort, SORTS)
        filters = SearchFilters(
            field=cast(QueryField, self.field),
            year_from=self.year_from,
            year_to=self.year_to,
            open_access=self.open_access,
            include_retracted=self.include_retracted,
            type=cast(Literal["all", "review", "preprint", "journal"], self.type),
            sort=cast(Literal["relevance", "newest", "cited"], self.sort),
        )
        request = validate_request(
            self.query,
            self.providers,
            filters=filters,
            limit=self.limit,
            cursor=self.cursor,
            include_raw=self.include_raw,
        )
        object.__setattr__(self, "provider_request", request)


def in_workspace(request: SearchRequest, *, demo: bool) -> SearchRequest:
    """``request`` as the workspace runs it: in the demo workspace a keyword search with no
    provider chosen searches the demo sample (the real databases' default needs a network
    the demo does not assume)."""
    if demo and not request.providers and request.mode == "keyword":
        return dataclasses.replace(request, providers=(DEMO_PROVIDER,))
    return request
