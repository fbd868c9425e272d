"""The provider use cases (searches, full text, citations, adoption lookups) over the
app's one transport; built by :func:`litdesk.services.app.open_app` as ``app.providers``."""

from ._providers import (
    LOCAL_OWNER,
    AdoptionLookupFailed,
    Providers,
    adopted_paper,
    adoption_request,
)

__all__ = [
    "LOCAL_OWNER",
    "AdoptionLookupFailed",
    "Providers",
    "adopted_paper",
    "adoption_request",
]
