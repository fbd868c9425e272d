"""The subjects area (``app.subjects``): controlled-vocabulary suggestions for the search
form's active term, the offline vocabularies' declarations (package, version, licence,
source terms) for the About page, a concept group's aliases, the subjects evidence links to
(resolved as the vocabularies name them) and a subject's page.

The vocabularies are read from their packages once, on first use (about half a second for
MeSH's 30,000 descriptors), then answered from memory: a keystroke costs a binary search,
plus a trigram shortlist for spelling suggestions (``bench/vocab_suggest.py``)."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from litdesk._errors import InputError
from litdesk.adapters.store import Store
from litdesk.adapters.vocab import (
    VOCABULARIES,
    VocabularyPackage,
    load_vocabulary,
    package_version,
)
from litdesk.core.vocab import (
    MAX_PREFIX,
    Subject,
    SubjectIndex,
    SubjectLinkInvalid,
    SubjectRef,
    active_term,
    controlled_term,
    normalise,
    parse_subject_refs,
    quote_label,
    synonym_group,
)
from litdesk.services.reader import evidence_row
from litdesk.services.workspace import Workspace

from ._pages import AliasesRequest, AliasesView, SubjectPageView, SubjectRequest, not_found
from ._remote import (
    RemoteAnswer,
    RemoteSuggestions,
    RemoteSuggestView,
    remote_term_fits,
    remote_view,
)

__all__ = [
    "MAX_SUGGEST_QUERY",
    "SubjectsArea",
    "SuggestInputError",
    "SuggestRequest",
    "SuggestView",
    "VOCABULARY_NAMES",
    "VocabulariesView",
    "VocabularyInfo",
]

#: Each offline vocabulary's display name, by its name in litdesk (``mesh`` → ``MeSH``).
VOCABULARY_NAMES: Final = {name: package.display for name, package in VOCABULARIES.items()}
#: Longest query text a suggestion request takes (the form's limit).
MAX_SUGGEST_QUERY: Final = 2_000
_MODES: Final = ("keyword", "semantic", "discovery")
_FIELDS: Final = ("all", "title", "abstract", "author")

Loader = Callable[[VocabularyPackage], list[Subject] | None]


_Built = tuple[SubjectIndex, tuple["VocabularyInfo", ...]]
_installed_lock = threading.Lock()
_installed: dict[tuple[tuple[str, str | None], ...], _Built] = {}


def _build_index(load: Loader) -> _Built:
    subjects: list[Subject] = []
    info: list[VocabularyInfo] = []
    for package in VOCABULARIES.values():
        loaded = load(package) or []
        version = package_version(package) if loaded else None
        info.append(VocabularyInfo(package, version, len(loaded)))
        subjects.extend(loaded)
    return SubjectIndex(subjects), tuple(info)


def _installed_index() -> _Built:
    """The index over the installed vocabulary packages, shared by every area of the
    process (an index is read-only once built): reading MeSH and indexing its 30,000
    subjects costs about 0.7 s of CPU, which every App paid again (a test's, a server
    worker's). Kept by the packages' installed versions, so an upgrade is read anew."""
    key = tuple((p.package, package_version(p)) for p in VOCABULARIES.values())
    with _installed_lock:  # one build at a time: a second caller waits for the first
        built = _installed.get(key)
        if built is None:
            _installed.clear()  # only the installed versions' index is kept
            built = _installed[key] = _build_index(load_vocabulary)
        return built


class SuggestInputError(InputError):
    """A suggestion request does not fit (query length, caret, mode or field)."""

    default_code = "suggest_input"


@dataclass(frozen=True, slots=True)
class SuggestRequest:
    """The search form's text, the caret in it (``None``: the end), its mode and field."""

    query: str
    caret: int | None = None
    mode: str = "keyword"
    field: str = "all"
    limit: int = MAX_PREFIX

    def __post_init__(self) -> None:
        if len(self.query) > MAX_SUGGEST_QUERY:
            raise SuggestInputError(
                f"a query is at most {MAX_SUGGEST_QUERY:,} characters", code="too_long"
            )
        if self.caret is not None and not 0 <= self.caret <= len(self.query):
            raise SuggestInputError("the caret is outside the query", code="caret")
        if self.mode not in _MODES:
            raise SuggestInputError(f"mode must be one of {', '.join(_MODES)}", code="mode")
        if self.field not in _FIELDS:
            raise SuggestInputError(f"field must be one of {', '.join(_FIELDS)}", code="field")
        if not 1 <= self.limit <= 20:
            raise SuggestInputError("limit must be 1 to 20", code="limit")


@dataclass(frozen=True, slots=True)
class VocabularyInfo:
    """One offline vocabulary as installed (``version`` ``None``: not installed)."""

    package: VocabularyPackage
    version: str | None
    subjects: int

    def to_dict(self) -> dict[str, Any]:
        return self.package.to_dict() | {
            "version": self.version,
            "installed": self.version is not None,
            "subjects": self.subjects,
        }


@dataclass(frozen=True, slots=True)
class VocabulariesView:
    vocabularies: tuple[VocabularyInfo, ...]

    def to_dict(self) -> dict[str, Any]:
        return {"vocabularies": [v.to_dict() for v in self.vocabularies]}


@dataclass(frozen=True, slots=True)
class SuggestView:
    """Suggestions for the active term: ``active`` (the span a pick replaces), each
    suggestion with the text to put there (``insert``: the label, quoted where needed),
    ``reason`` when none are offered on purpose (author field, semantic mode)."""

    active: Mapping[str, Any] | None
    suggestions: tuple[Mapping[str, Any], ...]
    reason: str = ""
    attribution: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {
            "active": dict(self.active) if self.active is not None else None,
            "suggestions": [dict(s) for s in self.suggestions],
            "reason": self.reason,
            "attribution": self.attribution,
        }


class SubjectsArea:
    """Suggestions from the offline vocabularies (owner-free: packaged public data), and
    subjects as objects: a subject's page with the evidence linked to it (``store``:
    where evidence is kept; the owner's rights are checked as for the evidence table)."""

    def __init__(
        self,
        *,
        load: Loader = load_vocabulary,
        store: Store | None = None,
        remote: RemoteSuggestions | None = None,
    ) -> None:
        self._load = load
        self._store = store
        #: remote suggestions (OpenAlex autocomplete); ``None``: none are offered
        self.remote = remote
        self._lock = threading.Lock()
        self._index: SubjectIndex | None = None
        self._info: tuple[VocabularyInfo, ...] = ()

    def index(self) -> SubjectIndex:
        """The index over every installed vocabulary (built on first use; with the
        installed packages' loader, once per process: see :func:`_installed_index`)."""
        with self._lock:
            if self._index is None:
                if self._load is load_vocabulary:
                    self._index, self._info = _installed_index()
                else:
                    self._index, self._info = _build_index(self._load)
            return self._index

    def vocabularies(self) -> VocabulariesView:
        """The offline vocabularies: package, version, licence, source and its terms."""
        self.index()
        return VocabulariesView(self._info)

    def _attribution(self) -> str:
        parts = [
            f"{i.package.source} ({i.package.display}, {i.package.package} {i.version})"
            for i in self._info
            if i.version is not None
        ]
        return "; ".join(parts)

    def suggest(self, request: SuggestRequest) -> SuggestView:
        """Subjects for the active term of ``request.query`` at its caret: exact and
        prefix matches first (shorter labels first), then spelling suggestions."""
        if request.mode == "semantic":
            return SuggestView(None, (), reason="semantic searches take a question, not terms")
        if request.field == "author":
            return SuggestView(None, (), reason="the author field takes names, not subjects")
        term = active_term(request.query, request.caret)
        if term is None:
            return SuggestView(None, ())
        index = self.index()
        if not len(index):
            return SuggestView(
                term.to_dict(),
                (),
                reason="no offline vocabulary is installed (make setup installs MeSH)",
            )
        found = index.suggest(term.text, limit=request.limit)
        # after a field prefix (TITLE:…) the term stays in that field: no controlled form
        fielded = term.start > 0 and request.query[term.start - 1] == ":"
        rows = []
        for s in found:
            package = VOCABULARIES[s.subject.vocabulary]
            prefix = package.query_prefix
            rows.append(
                s.to_dict()
                | {
                    "insert": quote_label(s.subject.label),
                    # the explicit choices: the heading as a controlled term, or the label
                    # with the vocabulary's synonyms (None where there is no such form)
                    "insert_controlled": (
                        controlled_term(s.subject.label, prefix) if prefix and not fielded else None
                    ),
                    "insert_synonyms": (
                        synonym_group(s.subject.label, s.subject.synonyms)
                        if s.subject.synonyms
                        else None
                    ),
                    "url": package.id_url.format(id=s.subject.id),
                    "vocabulary_name": package.display,
                }
            )
        return SuggestView(term.to_dict(), tuple(rows), attribution=self._attribution())

    async def remote_suggest(self, request: SuggestRequest, *, owner: str) -> RemoteSuggestView:
        """Remote suggestions (OpenAlex) for the active term, after the offline ones: none
        asked when the offline answer fills the list or the term is too short; a call
        spends ``owner``'s allowance unless the server keeps the answer already."""
        offline = await asyncio.to_thread(self.suggest, request)
        active = offline.active
        if offline.reason and active is None:
            return RemoteSuggestView(None, (), "skipped", offline.reason)
        if active is None or not remote_term_fits(str(active["text"])):
            return RemoteSuggestView(active, (), "skipped", "the term is too short")
        if len(offline.suggestions) >= request.limit:
            return RemoteSuggestView(active, (), "skipped", "the offline list is full")
        if self.remote is None:
            return RemoteSuggestView(
                active, (), "unavailable", "Remote suggestions unavailable on this server."
            )
        text = str(active["text"])
        kept = self.remote.cached(text)
        if kept is not None:
            answer = RemoteAnswer(kept)
            return remote_view(active, offline.suggestions, answer, cached=True)
        answer = await self.remote.ask(text, owner=owner)
        return remote_view(active, offline.suggestions, answer, cached=False)

    def aliases(self, request: AliasesRequest) -> AliasesView:
        """The subject a concept group's first alternative names exactly (a label or a
        synonym, compared as normalised), with its other names to offer as alternatives
        (each once, case-insensitively, the typed one left out)."""
        exact = [
            s
            for s in self.index().suggest(request.term.strip(), limit=MAX_PREFIX)
            if s.kind == "exact"
        ]
        if not exact:
            return AliasesView(None)
        subject = exact[0].subject
        seen = {normalise(request.term)}
        aliases: list[str] = []
        for name in (subject.label, *subject.synonyms):
            if normalise(name) not in seen:
                seen.add(normalise(name))
                aliases.append(name)
        return AliasesView(subject, tuple(aliases))

    # --- subjects as objects ----------------------------------------------------------------

    def resolve(self, refs: Sequence[str]) -> tuple[SubjectRef, ...]:
        """The subjects named by ``refs`` (``mesh:D003920``, or a bare MeSH id), each
        once, as the installed vocabularies label them; one that is not there is refused
        (so a link always names a real subject)."""
        parsed = parse_subject_refs(refs)
        if not parsed:
            return ()
        index = self.index()
        out: list[SubjectRef] = []
        for vocabulary, ident in parsed:
            subject = index.get(vocabulary, ident)
            if subject is None:
                name = VOCABULARY_NAMES.get(vocabulary)
                raise SubjectLinkInvalid(
                    f"{ident} is not a subject of {name}"
                    if name
                    else f"litdesk has no vocabulary called {vocabulary!r}",
                    code="unknown_subject",
                )
            out.append(SubjectRef(subject.vocabulary, subject.id, subject.label))
        return tuple(out)

    def subject(self, request: SubjectRequest, *, owner: str) -> SubjectPageView:
        """A subject's page: the subject as its vocabulary names it (or as the evidence
        linked to it keeps it, when the vocabulary is not installed), the searches it
        seeds, and the evidence linked to it that ``owner`` may see (each re-checked)."""
        found = self.index().get(request.vocabulary, request.id)
        rows: list[Mapping[str, Any]] = []
        problems: list[str] = []
        kept: SubjectRef | None = None
        if self._store is not None:
            ws = Workspace(self._store, owner=owner)
            views, problems = ws.evidence(subject=(request.vocabulary, request.id))
            forms = {sid: ws.form(sid) for sid in {v.study_id for v in views}}
            rows = [evidence_row(v, forms[v.study_id]) for v in views]
            kept = next(
                (
                    s
                    for v in views
                    for s in v.subjects
                    if (s.vocabulary, s.id) == (request.vocabulary, request.id)
                ),
                None,
            )
        if found is None and kept is None:
            raise not_found(request)
        subject = found or Subject(request.vocabulary, request.id, kept.label if kept else "")
        return SubjectPageView(
            subject, found is not None, tuple(rows), tuple(problems), self._attribution()
        )
