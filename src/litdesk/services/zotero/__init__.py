"""The Zotero bridge area (``app.zotero``): import a Zotero library offline into Studies,
papers, notes and the PDF library, keeping each item's Zotero identity."""

from typing import TYPE_CHECKING

from litdesk._exports import lazy_exports

if TYPE_CHECKING:  # each name is imported from its module on first use
    from ._area import UNFILED_STUDY, WHOLE_LIBRARY_STUDY, UnknownCollection, ZoteroArea
    from ._requests import (
        ZoteroImportRequest,
        ZoteroInputError,
        ZoteroPushRequest,
        ZoteroWebImportRequest,
    )
    from ._views import (
        ItemProblem,
        ItemRef,
        MovedItem,
        PushItem,
        PushPlanView,
        PushView,
        StudyCount,
        ZoteroImportView,
    )

__all__ = [
    "UNFILED_STUDY",
    "WHOLE_LIBRARY_STUDY",
    "ItemProblem",
    "ItemRef",
    "MovedItem",
    "PushItem",
    "PushPlanView",
    "PushView",
    "StudyCount",
    "UnknownCollection",
    "ZoteroArea",
    "ZoteroImportRequest",
    "ZoteroImportView",
    "ZoteroInputError",
    "ZoteroPushRequest",
    "ZoteroWebImportRequest",
]

__getattr__ = lazy_exports(__name__, __file__, globals())
