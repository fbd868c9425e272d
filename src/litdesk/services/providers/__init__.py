"""The provider use cases (searches, full text, citations, adoption lookups) over the
app's one transport; built by :func:`litdesk.services.app.open_app` as ``app.providers``."""

from ._providers import (
    BODY_LIMITS,
    LOCAL_OWNER,
    AdoptionLookupFailed,
    Providers,
    adopted_paper,
    adoption_request,
)

__all__ = [
    "BODY_LIMITS",
    "LOCAL_OWNER",
    "AdoptionLookupFailed",
    "Providers",
    "adopted_paper",
    "adoption_request",
]
