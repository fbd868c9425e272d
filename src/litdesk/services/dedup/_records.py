"""A Study's records, materialised from its sources and kept in step with them.

A Study's *sources* are its imports (each keeps the trace of the records it read), its
linked search runs (each keeps every hit with its lanes and ranks) and the papers added to
it by hand (saved papers that no import or run of the Study brought; those a Zotero library
brought are counted under that library, :func:`paper_source_names`). Every record a source
identified is one row of ``study_records`` with its source, database and rank; the rows are
reconciled with the sources in one transaction (:func:`sync_records`): a new source's
records are added, a removed source's records go, nothing else changes — so the groups
(the working set) of records already deduplicated are kept.

An import of a file the Study imported before (same SHA-256) identifies nothing new (PRISMA
does not count it again): its records are not materialised.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Final

from sqlalchemy.engine import Connection

from litdesk._errors import IntegrityError
from litdesk.adapters.store import (
    LOCAL_OWNER,
    RecordCounts,
    SourceRow,
    Store,
    StudyRecordRow,
    repo,
    stored_record_paper,
    whole_searches,
)
from litdesk.adapters.store import study_records as records_store
from litdesk.adapters.zotero import study_libraries, zotero_source_name
from litdesk.core.providers import display_name
from litdesk.core.records import Paper
from litdesk.core.runs import read_run
from litdesk.core.words import run_label
from litdesk.services.workspace import catch_up_kept_runs, import_source_row, read_import_row

from ._suggestions import alt_titles

__all__ = [
    "ADDED_BY_HAND",
    "SYNC_LOCK",
    "in_step",
    "import_path",
    "record_paper",
    "sync_records",
    "sync_records_in",
]

#: the database a paper added to a Study by hand is counted under
ADDED_BY_HAND: Final = "Added to the Study by hand"
#: identity keys looked up in one query
_KEYS_PER_QUERY: Final = 500
#: the store lock that serialises the reconciliation of one Study's records
SYNC_LOCK: Final = 1909102061


def _digest(paper: Paper) -> str:
    """A record without a raw text (a run's hit, a saved paper): its paper's digest, so a
    reviewer decision on it holds when the same record comes again."""
    body = json.dumps(paper.to_dict(), sort_keys=True, ensure_ascii=False, default=str)
    return "sha256:" + hashlib.sha256(body.encode("utf-8")).hexdigest()


def import_path(conn: Connection, import_id: str) -> str:
    """The file an import read (as the import recorded it)."""
    return read_import_row(repo.get_document(conn, "imports", import_id))[0].source.path


def record_paper(row: StudyRecordRow) -> Paper:
    """The record's paper (validated; once per use case, see ``read_once``)."""
    return stored_record_paper(row.data.get("paper"))


def _import_rows(conn: Connection, src: SourceRow) -> list[StudyRecordRow]:
    doc = repo.get_document(conn, "imports", src.id)
    trace, ids = read_import_row(doc)
    label = f"{Path(trace.source.path).name} ({trace.source.format})"
    source = import_source_row(doc)
    # the source PRISMA counts the records under (issue 28): the name and kind the import
    # holds, else (an import made before sources were named) its file, a register by name
    database = source.name if source is not None else f"Import: {label}"
    rows: list[StudyRecordRow] = []
    for i, (rec, pid) in enumerate(zip(trace.records, ids, strict=True)):
        data: dict[str, object] = {
            "paper": rec.paper.to_dict(),
            "label": label,
            "file": trace.source.path,
            "source_record": rec.source_id,
            "lines": [rec.first_line, rec.last_line],
        }
        if alts := alt_titles(rec.extras):
            data["alt_titles"] = alts
        if terms := subject_terms(rec.extras):  # screening reads them (issue 28)
            data["subject_terms"] = terms
        if source is not None:
            data["prisma_kind"] = source.kind
        rows.append(
            StudyRecordRow(
                f"{src.id}:{i}", "import", src.id, i, rec.digest,
                database, None, pid, data, src.at,
            )
        )  # fmt: skip
    return rows


#: columns of a file's records whose values are subject terms the Paper does not keep (its
#: ``keywords`` are the author keywords): Scopus's index keywords, MeSH in a CSV export
_SUBJECT_KEYS: Final = frozenset(
    {"index keywords", "mesh_terms", "mesh terms", "mesh", "mesh headings", "keywords plus"}
)
_MAX_TERMS: Final = 200
_MAX_TERM: Final = 200


def subject_terms(extras: Mapping[str, Sequence[str]]) -> list[str]:
    """A record's subject terms kept in its extras (``;``-separated cells), each once,
    bounded in number and length."""
    out: dict[str, str] = {}
    for key, values in extras.items():
        if key.strip().lower() not in _SUBJECT_KEYS:
            continue
        for value in values:
            for term in value.split(";"):
                t = term.strip()[:_MAX_TERM]
                if t and len(out) < _MAX_TERMS:
                    out.setdefault(t.casefold(), t)
    return list(out.values())


#: the most hits a run document read here holds: a stored run's own limit; a whole
#: search's hits (kept as rows beside the run, their number bounded when they were stored:
#: the cap per lane times the lanes) are read whatever their number
_RUN_HITS: Final = 5000


def _run_document(conn: Connection, run_id: str) -> tuple[object, int]:
    """A linked run's document with its hits and the most hits to accept: a whole search
    (added to a Study by pages) keeps its hits as rows beside the run, each a run hit as
    a run document holds it."""
    doc = records_store.run_document(conn, run_id)
    if isinstance(doc, dict) and not doc.get("hits"):
        # a whole search this transaction saved (``commit_whole``): its hits as stored,
        # without reading back and parsing the thousands of rows just written
        hits = whole_searches.written_hits(conn, run_id)
        if hits is None:
            hits = [hit.data for hit in whole_searches.run_hits(conn, run_id)]
        if hits:
            return {**doc, "hits": hits}, max(_RUN_HITS, len(hits))
    return doc, _RUN_HITS


def _run_rows(conn: Connection, src: SourceRow, study_id: str) -> list[StudyRecordRow]:
    doc, max_hits = _run_document(conn, src.id)
    run = read_run(doc, max_hits=max_hits)
    label = f"search {run_label(run.definition.query, run.executed_at)}"
    rows: list[StudyRecordRow] = []
    keys = [repo.identity_keys(hit.paper) for hit in run.hits]
    flat = [k for ks in keys for k in ks]
    found: dict[str, str] = {}
    for n in range(0, len(flat), _KEYS_PER_QUERY):  # the Study's papers the hits are
        found |= repo.find_study_paper_ids(conn, flat[n : n + _KEYS_PER_QUERY], study_id=study_id)
    for i, hit in enumerate(run.hits):
        pid = min((found[k] for k in keys[i] if k in found), default=None)
        lanes = [c.to_dict() for c in hit.contributions]
        digest = _digest(hit.paper)
        # one record per lane that retrieved the hit: each database's identified records
        for j, c in enumerate(hit.contributions or (None,)):
            data: dict[str, object] = {
                "paper": hit.paper.to_dict(),
                "label": label,
                "source_record": hit.paper.id,
                "lanes": lanes,
            }
            rows.append(
                StudyRecordRow(
                    f"{src.id}:{i}:{j}", "run", src.id, len(rows), digest,
                    display_name(c.provider) if c else "search", c.rank if c else None,
                    pid, data, src.at,
                )
            )  # fmt: skip
    return rows


def _link_records(conn: Connection, study_id: str, source_id: str) -> None:
    """The source's records that name no saved paper linked to the Study's paper each is
    (by identity), as :func:`_run_rows` links a run's records when it materialises them."""
    rows = [
        r
        for r in records_store.list_records(conn, study_id)
        if r.source_id == source_id and r.paper_id is None
    ]
    keys = [repo.identity_keys(record_paper(r)) for r in rows]
    flat = [k for ks in keys for k in ks]
    found: dict[str, str] = {}
    for n in range(0, len(flat), _KEYS_PER_QUERY):
        found |= repo.find_study_paper_ids(conn, flat[n : n + _KEYS_PER_QUERY], study_id=study_id)
    pairs = [
        (r.key, pid)
        for r, ks in zip(rows, keys, strict=True)
        if (pid := min((found[k] for k in ks if k in found), default=None)) is not None
    ]
    records_store.set_record_papers(conn, study_id, pairs)


def paper_source_names(conn: Connection, study_id: str) -> dict[str, str]:
    """The source each saved paper of the Study that a Zotero import brought is counted
    under (PRISMA 2020's "other methods", named as the Study names imports); a paper not
    here was added by hand (:data:`ADDED_BY_HAND`)."""
    return {pid: zotero_source_name(lib) for pid, lib in study_libraries(conn, study_id).items()}


def _paper_rows(conn: Connection, src: SourceRow, study_id: str, name: str) -> list[StudyRecordRow]:
    paper = repo.get_paper(conn, src.id, viewer=LOCAL_OWNER, study_id=study_id).paper
    data: dict[str, object] = {"paper": paper.to_dict(), "label": name}
    return [
        StudyRecordRow(
            f"paper:{src.id}", "paper", src.id, 0, _digest(paper), name, None,
            src.id, data, src.at,
        )
    ]  # fmt: skip


def _wanted(sources: Sequence[SourceRow]) -> list[SourceRow]:
    """The imports and runs whose records count (a repeated file's import does not)."""
    seen: set[str] = set()
    out: list[SourceRow] = []
    for src in sources:
        if src.kind == "import" and src.sha256:
            if src.sha256 in seen:
                continue
            seen.add(src.sha256)
        if src.kind != "paper":
            out.append(src)
    return out


def in_step(conn: Connection, study_id: str) -> bool:
    """Whether the Study's records are those of its sources now — a cheap check of which
    sources have records (a source without records is read only then: an empty import or
    search identified nothing; a run kept before migration 0031 whose hits are not the
    Study's papers yet is out of step too)."""
    if repo.runs_without_papers(conn, study_id):
        return False
    have = set(records_store.record_sources(conn, study_id))
    sources = records_store.study_sources(conn, study_id)
    wanted = _wanted(sources)
    covered = records_store.covered_papers(conn, study_id)
    expected = {s.id for s in wanted}
    expected |= {s.id for s in sources if s.kind == "paper" and s.id not in covered}
    if have - expected:
        return False
    for src in wanted:
        if src.id not in have:
            try:
                rows = (
                    _import_rows(conn, src)
                    if src.kind == "import"
                    else _run_rows(conn, src, study_id)
                )
            except IntegrityError:
                return False
            if rows:
                return False
    if not all(s.id in have for s in sources if s.kind == "paper" and s.id in expected):
        return False
    names = paper_source_names(conn, study_id)
    return all(
        names.get(pid, ADDED_BY_HAND) == name
        for pid, name in records_store.paper_record_names(conn, study_id).items()
    )


def sync_records_in(conn: Connection, store: Store, study_id: str) -> tuple[RecordCounts, bool]:
    """Reconcile the Study's records with its sources inside the caller's write
    transaction (see the module's description); returns the counts after it and whether
    any record came or went."""
    store.lock(conn, SYNC_LOCK, study_id)
    before = records_store.count_records(conn, study_id).records
    changed = False
    have = records_store.record_sources(conn, study_id)
    # runs kept before migration 0031: their hits become the Study's papers now, and the
    # records they identified then name those papers (not "added by hand" records too)
    for run_id in catch_up_kept_runs(conn, store, study_id):
        if run_id in have:
            _link_records(conn, study_id, run_id)
    sources = records_store.study_sources(conn, study_id)
    wanted = _wanted(sources)
    keep = {s.id for s in wanted}
    for source_id in set(have) - keep - {s.id for s in sources if s.kind == "paper"}:
        changed |= records_store.delete_source(conn, study_id, source_id) > 0
    for src in wanted:
        if src.id in have:
            continue
        try:
            rows = (
                _import_rows(conn, src) if src.kind == "import" else _run_rows(conn, src, study_id)
            )
        except IntegrityError as exc:  # an unreadable source identifies nothing; said so
            raise IntegrityError(
                f"the Study's {src.kind} {src.id} cannot be read: {exc.message}",
                code="source_unreadable",
            ) from None
        records_store.insert_records(conn, study_id, rows)
        changed = True
    covered = records_store.covered_papers(conn, study_id)
    by_hand = {s.id: s for s in sources if s.kind == "paper" and s.id not in covered}
    for source_id in {k for k in have if k not in keep} - set(by_hand):
        changed |= records_store.delete_source(conn, study_id, source_id) > 0
    names = paper_source_names(conn, study_id) if by_hand else {}
    stored = records_store.paper_record_names(conn, study_id) if by_hand else {}
    for pid, src in by_hand.items():
        name = names.get(pid, ADDED_BY_HAND)
        if pid not in have:
            records_store.insert_records(conn, study_id, _paper_rows(conn, src, study_id, name))
            changed = True
        elif stored.get(pid, name) != name:  # a paper added by hand, then from Zotero
            records_store.rename_paper_record(conn, study_id, pid, name)
    counts = records_store.count_records(conn, study_id)
    return counts, changed or counts.records != before


def sync_records(store: Store, study_id: str) -> tuple[RecordCounts, bool]:
    """Reconcile the Study's records with its sources (one transaction); the counts and
    whether any record came or went."""
    with store.write() as conn:
        return sync_records_in(conn, store, study_id)
