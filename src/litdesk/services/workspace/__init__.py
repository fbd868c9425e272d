"""The workspace: saved papers, reading status, Studies, notes and highlights, evidence,
imports and search runs attached to Studies, exports (CSV, notebook, Study ZIP) and
Study recovery."""

from ._codec import IMPORT_VERSION, TraceInvalid, read_import, trace_document
from ._exports import (
    EXPORT_VERSION,
    MAX_ZIP_BYTES,
    MAX_ZIP_MEMBER_BYTES,
    MAX_ZIP_MEMBERS,
    StudyImportRefused,
    evidence_csv,
    export_study,
    import_study,
    notebook_markdown,
    ris_text,
)
from ._flows import EvidenceTable, Notebook, evidence_export, notebook_export, open_workspace
from ._inputs import FieldsRefused, PaperFields
from ._service import (
    EvidenceView,
    FilesNotFound,
    FilesRefused,
    IdentityConflict,
    ImportResult,
    NoteView,
    SaveResult,
    StudyImport,
    Workspace,
    context_from_fulltext,
    merge_papers,
    now_iso,
)

__all__ = [
    "EXPORT_VERSION",
    "IMPORT_VERSION",
    "MAX_ZIP_BYTES",
    "MAX_ZIP_MEMBERS",
    "MAX_ZIP_MEMBER_BYTES",
    "EvidenceTable",
    "EvidenceView",
    "FieldsRefused",
    "FilesNotFound",
    "FilesRefused",
    "IdentityConflict",
    "ImportResult",
    "NoteView",
    "Notebook",
    "PaperFields",
    "SaveResult",
    "StudyImport",
    "StudyImportRefused",
    "TraceInvalid",
    "Workspace",
    "context_from_fulltext",
    "evidence_csv",
    "evidence_export",
    "export_study",
    "import_study",
    "merge_papers",
    "notebook_export",
    "notebook_markdown",
    "now_iso",
    "open_workspace",
    "read_import",
    "ris_text",
    "trace_document",
]
