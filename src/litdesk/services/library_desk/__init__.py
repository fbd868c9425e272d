"""The PDF library's web use cases: the library page, uploads into the inbox, the
background index job (``library.index``), adoption from the page, the model status."""

from ._desk import PER_PAGE, LibraryDesk, LibraryView, NotInLibrary
from ._index_job import INDEX_KIND, index_handler
from ._models import ModelCheck, ModelStatus, model_status
from ._uploads import (
    MAX_NAME_BYTES,
    StoredUpload,
    Upload,
    UploadRefused,
    UploadReport,
    safe_name,
    store_upload,
)

__all__ = [
    "INDEX_KIND",
    "MAX_NAME_BYTES",
    "PER_PAGE",
    "LibraryDesk",
    "LibraryView",
    "ModelCheck",
    "ModelStatus",
    "NotInLibrary",
    "StoredUpload",
    "Upload",
    "UploadRefused",
    "UploadReport",
    "index_handler",
    "model_status",
    "safe_name",
    "store_upload",
]
