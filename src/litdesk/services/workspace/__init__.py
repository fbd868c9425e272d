"""The workspace: saved papers, reading status, Studies, notes and highlights, evidence,
imports and search runs attached to Studies: the store-level repository the areas use
(``app.studies`` builds its use cases on it), with the export renderers (CSV, notebook,
Study ZIP) and Study recovery it calls."""

from typing import TYPE_CHECKING

from litdesk._exports import lazy_exports

if TYPE_CHECKING:  # each name is imported from its module on first use
    from ._archive import (
        MAX_ZIP_BYTES,
        MAX_ZIP_MEMBER_BYTES,
        MAX_ZIP_MEMBERS,
        StudyExportTooLarge,
        StudyImportRefused,
    )
    from ._codec import (
        IMPORT_VERSION,
        TraceInvalid,
        import_source,
        import_source_row,
        read_import,
        read_import_row,
        trace_document,
    )
    from ._evidence_files import evidence_csv, notebook_markdown
    from ._exports import EXPORT_VERSION, export_study, import_study, ris_text
    from ._inputs import FieldsRefused, PaperFields
    from ._results import RefusedRecord
    from ._service import (
        EvidenceView,
        FilesNotFound,
        FilesRefused,
        IdentityConflict,
        ImportResult,
        NoteView,
        SaveResult,
        StudyAdditions,
        StudyImport,
        Workspace,
        all_refused,
        context_from_fulltext,
        merge_papers,
        now_iso,
    )
    from ._study_papers import TakenPapers, catch_up_kept_runs, take_papers, take_run_papers
    from ._summaries import RecoveredStudy, StudyPaper, StudySummary

__all__ = [
    "EXPORT_VERSION",
    "IMPORT_VERSION",
    "MAX_ZIP_BYTES",
    "MAX_ZIP_MEMBERS",
    "MAX_ZIP_MEMBER_BYTES",
    "EvidenceView",
    "FieldsRefused",
    "FilesNotFound",
    "FilesRefused",
    "IdentityConflict",
    "ImportResult",
    "RefusedRecord",
    "NoteView",
    "PaperFields",
    "RecoveredStudy",
    "SaveResult",
    "StudyAdditions",
    "StudyImport",
    "StudyExportTooLarge",
    "StudyImportRefused",
    "StudyPaper",
    "StudySummary",
    "TakenPapers",
    "TraceInvalid",
    "Workspace",
    "all_refused",
    "catch_up_kept_runs",
    "context_from_fulltext",
    "evidence_csv",
    "export_study",
    "import_study",
    "merge_papers",
    "notebook_markdown",
    "now_iso",
    "import_source",
    "import_source_row",
    "read_import",
    "read_import_row",
    "ris_text",
    "take_papers",
    "take_run_papers",
    "trace_document",
]

__getattr__ = lazy_exports(__name__, __file__, globals())
