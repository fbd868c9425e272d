"""Name the source an import already in a Study counts under (issue 28): ``app.studies.
set_import_source``. The import's document keeps the name and kind (its trace is never
edited) and the Study's records from it are counted under them at once — their keys,
digests and groups stay, so every screening and deduplication decision on them holds."""

from __future__ import annotations

from dataclasses import dataclass

from litdesk._errors import IntegrityError, NotFoundError
from litdesk.adapters.store import Store, repo, study_records
from litdesk.adapters.store import accounts as access
from litdesk.core.imports import ImportSourceKind, SourceLabel, source_label
from litdesk.services.workspace import import_source_row, now_iso, read_import_row

from ._edit_requests import EditInputError
from ._trash import counted_as

__all__ = ["ImportSourceRequest", "ImportSourceView", "set_import_source"]


@dataclass(frozen=True, slots=True)
class ImportSourceRequest:
    """Count the records of ``import_id`` (an import of ``study``) under the source
    ``name`` of ``kind`` (database, register, other). Either may be left out: the kind
    alone keeps the name it has; the name alone is a register when it has a register's
    words, else a database."""

    study: str
    import_id: str
    name: str | None = None
    kind: str | None = None

    def __post_init__(self) -> None:
        if not self.import_id.strip():
            raise EditInputError("choose an import", code="no_import")
        # a name or a kind is needed: checked once the Study is known to be the caller's
        # (a stranger gets the same 404 whatever the body says)
        if (self.name or "").strip() or (self.kind or "").strip():
            source_label(self.name, self.kind, fallback="—")  # validated now (SourceLabelInvalid)


@dataclass(frozen=True, slots=True)
class ImportSourceView:
    """The import's source now, and how many of the Study's records count under it."""

    study_id: str
    study_name: str
    import_id: str
    file: str
    name: str
    kind: ImportSourceKind
    records: int

    def to_dict(self) -> dict[str, object]:
        return {
            "study_id": self.study_id,
            "study_name": self.study_name,
            "import_id": self.import_id,
            "file": self.file,
            "source": {"name": self.name, "kind": self.kind},
            "records": self.records,
        }


def set_import_source(store: Store, request: ImportSourceRequest, owner: str) -> ImportSourceView:
    """One transaction: the import's source in its document and on its records, with a
    line in the Study's history. Needs write on the Study."""
    with store.write() as conn:
        row, _ = repo.study_with_role(conn, request.study, account=owner, need="write")
        if not (request.name or "").strip() and not (request.kind or "").strip():
            raise EditInputError(
                "name the source (e.g. Embase) or choose its kind (database, register, other)",
                code="bad_source",
            )
        try:
            doc = repo.get_document(conn, "imports", request.import_id.strip())
        except NotFoundError:
            doc = None
        if doc is None or doc.study_id != row.id:
            raise NotFoundError(
                f"no import {request.import_id.strip()[:80]!r} in this Study",
                code="record_not_found",
            )
        try:
            trace, _ = read_import_row(doc)
        except IntegrityError as exc:
            raise IntegrityError(f"the import cannot be read: {exc.message}") from None
        now_name, _ = counted_as(doc, trace)
        had = import_source_row(doc)
        label = source_label(request.name, request.kind, fallback=had.name if had else now_name)
        if label is None:  # the request names a source or a kind (checked when made)
            raise EditInputError("name the source or choose its kind", code="bad_source")
        label = SourceLabel(label.name, label.kind, "given")
        repo.set_import_source(conn, doc.id, label.to_dict())
        n = study_records.relabel_import_records(conn, row.id, doc.id, label.name, label.kind)
        file = trace.source.path.rsplit("/", 1)[-1] or doc.id
        access.add_history(
            conn,
            row.id,
            owner,
            study_records.RELABELLED,  # (a cached screen set sees the change by it)
            f"{file}: {label.name} ({label.kind})",
            now_iso(),
        )
    return ImportSourceView(row.id, row.name, doc.id, file, label.name, label.kind, n)
